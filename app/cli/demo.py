"""`vault-recall demo`: two real MCP clients, two `serve` processes, one vault copy.

Shows, step by step with PASS/FAIL, the promises that matter: both clients see an edit on
their next call, other subjects and archived records stay out, and "unavailable", "degraded"
and "ok with nothing found" are three different answers.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import TextContent

from vault_recall.app.clients.launch import launcher
from vault_recall.app.state.sample_vault import sample_vault_path
from vault_recall.server.config.config_file import HOME_ENV

SUBJECT = "build-system"
NOTE = "Projects/Build/Build decision.md"


@dataclass
class Steps:
    failures: int = 0
    lines: list[str] = field(default_factory=list)

    def check(self, ok: bool, what: str, detail: str = "") -> bool:
        line = f"{'PASS' if ok else 'FAIL'}  {what}" + (f" — {detail}" if detail else "")
        print(line, flush=True)
        self.failures += 0 if ok else 1
        return ok


def serve_command(client: str, vault: Path) -> StdioServerParameters:
    """The same command line an AI client's config runs, with this interpreter.  The demo's
    servers get a config and activity folder of their own, beside the vault copy, so the
    demo neither depends on nor shows up in the person's real setup."""
    home = vault.parent / "vault-recall-home"
    command = launcher()  # the console script, or the bundle's own executable
    return StdioServerParameters(
        command=command[0],
        args=[*command[1:], "serve", "--client", client, "--vault", str(vault)],
        env={**os.environ, HOME_ENV: str(home)},
    )


@asynccontextmanager
async def connect(client: str, vault: Path) -> AsyncIterator[Client]:
    async with Client(serve_command(client, vault), read_timeout_seconds=30) as session:
        yield session


async def recall(session: Client, query: str, **extra: Any) -> dict[str, Any]:
    result = await session.call_tool("recall_context", {"subject": SUBJECT, "query": query, **extra})
    block = result.content[0] if result.content else None
    text = block.text if isinstance(block, TextContent) else ""
    if result.is_error:
        raise RuntimeError(text or "tool error")
    payload: dict[str, Any] = json.loads(text)
    return payload


def paths(payload: dict[str, Any]) -> list[str]:
    return [r["path"] for r in payload["records"]]


def body_of(note: Path) -> str:
    """The note's text after its properties block, as the person sees it in the file."""
    return note.read_text(encoding="utf-8").split("\n---\n", 1)[1]


def edit_like_an_editor(path: Path, old: str, new: str) -> None:
    """Save the way editors do: write a temporary file beside it, then rename over."""
    text = path.read_text(encoding="utf-8").replace(old, new)
    temp = path.with_name(path.name + ".saving")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


async def demo(vault: Path, steps: Steps) -> None:
    async with AsyncExitStack() as stack:
        cursor = await stack.enter_async_context(connect("demo-cursor", vault))
        claude = await stack.enter_async_context(connect("demo-claude", vault))
        print(f"      two clients connected: demo-cursor and demo-claude, vault {vault}", flush=True)

        before = [await recall(c, "bazel") for c in (cursor, claude)]
        revisions = {r["revision"] for p in before for r in p["records"] if r["path"] == NOTE}
        steps.check(
            all(NOTE in paths(p) for p in before) and len(revisions) == 1,
            "both clients recall 'Build decision' for 'bazel'",
            f"revision {next(iter(revisions), '?')[:12]}",
        )

        edit_like_an_editor(vault / NOTE, "**Bazel**", "**Buck2** (replacing Bazel)")
        print(f"      edited {NOTE}: Bazel → Buck2", flush=True)
        after = [await recall(c, "buck2") for c in (cursor, claude)]
        new = [r for p in after for r in p["records"] if r["path"] == NOTE]
        steps.check(
            len(new) == 2 and all("Buck2" in r["text"] for r in new) and not revisions & {r["revision"] for r in new},
            "both clients see the edit on their next call, with a new revision",
            f"revision {new[0]['revision'][:12] if new else '?'}",
        )

        asked = await recall(claude, "why did we choose buck2 over make?")
        steps.check(
            paths(asked)[:1] == [NOTE] and asked.get("weak_match") is False,
            "a question asked the way assistants ask finds the decision first",
            f"'why did we choose buck2 over make?' → {paths(asked)[:1]}",
        )

        release = await recall(cursor, "release")
        steps.check(
            "Projects/Release/Release cadence.md" not in paths(release),
            "another subject's record stays out",
            f"{SUBJECT} + 'release' → {paths(release)}",
        )
        archived = await recall(cursor, "ccache", limit=20)
        steps.check(
            archived["status"] == "ok" and "Projects/Build/Old Makefile plan.md" not in paths(archived),
            "the archived 'Old Makefile plan' stays out",
        )
        excluded = await recall(cursor, "placeholder", limit=20)
        steps.check(
            excluded["status"] == "ok" and not any(p.startswith("Templates/") for p in paths(excluded)),
            "a note in an Excluded folder (Templates/) stays out",
        )
        tiny = await recall(claude, "build", budget=1024, limit=20)
        size = len(json.dumps(tiny, separators=(",", ":"), ensure_ascii=False).encode())
        whole = all(r["text"] == body_of(vault / r["path"]) for r in tiny["records"])
        steps.check(
            size <= 1024 and tiny["records"] != [] and tiny["omitted"] > 0 and whole,
            "a small budget returns whole records only and counts the rest",
            f"{len(tiny['records'])} returned, {tiny['omitted']} omitted, {size} bytes ≤ 1024",
        )

        unknown = await recall(cursor, "what did we decide about kubernetes autoscaling?")
        steps.check(
            unknown["status"] == "ok" and unknown["records"] == [] and unknown.get("weak_match") is True,
            "a question no note answers is 'ok', empty and marked weak, not other notes in its place",
            f"{len(unknown['records'])} record(s), {unknown.get('current_records')} current record(s) to ask again",
        )

        broken = vault / "Projects/Build/Broken.md"
        broken.write_text("---\nsubject: build-system\nsubject: build-system\n---\nTwice.\n", encoding="utf-8")
        degraded = await recall(claude, "buck2")
        steps.check(
            degraded["status"] == "degraded"
            and any(p["path"] == "Projects/Build/Broken.md" for p in degraded.get("problems", []))
            and NOTE in paths(degraded),
            "a broken note makes the answer 'degraded', naming it, still with the good records",
            degraded.get("problems", [{}])[0].get("reason", ""),
        )
        broken.unlink()

        moved = vault.with_name(vault.name + "-moved")
        vault.rename(moved)
        gone = await recall(cursor, "buck2")
        steps.check(
            gone["status"] == "unavailable" and gone["records"] == [],
            "a vault folder that disappears is 'unavailable', with the reason",
            gone.get("reason", ""),
        )
        moved.rename(vault)
        back = await recall(cursor, "buck2")
        steps.check(back["status"] == "ok" and NOTE in paths(back), "it recovers on the next call once it is back")


def run_demo(keep: bool = False) -> int:
    steps = Steps()
    workdir = Path(tempfile.mkdtemp(prefix="vault-recall-demo-"))
    vault = workdir / "Sample vault"
    try:
        shutil.copytree(sample_vault_path(), vault, symlinks=True)
        anyio.run(demo, vault, steps)
    except Exception as exc:  # the entry point: report any failure as one FAIL line
        steps.check(False, "the demo ran to the end", f"{type(exc).__name__}: {exc}")
    finally:
        if keep:
            print(f"      kept the vault copy at {vault}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    total = "all steps passed" if steps.failures == 0 else f"{steps.failures} step(s) failed"
    print(f"demo: {total}")
    return 0 if steps.failures == 0 else 1
