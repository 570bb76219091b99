"""What "changed since recalled" costs a tool call: the same calls against two servers on the
same vault, in the same run — one that has handed out no note, one that remembers 50 (the
most it keeps per client), so every call of it reads those 50 again.  Also the check alone,
in this process, on the same notes.

    .venv/bin/python -m bench.changed_since_cost [--notes 1000] [--calls 200] [--json out.json]

Ratios are against the server remembering nothing, the two servers called in turn, call by
call, so load drift hits both alike.  At the end every remembered note is edited, and the second server must
tell all 50 (a check that it really remembered them; its own notes are then restored).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import TextContent

from tests.support.synthetic_vault import generate
from vault_recall.server.recall.answers.changed_since import (
    FIELD,
    MAX_REMEMBERED,
    Handed,
    changed_since,
)
from vault_recall.server.recall.scope import Exposure, Scope

# Calls that hand out no whole note, so the server remembering nothing keeps remembering nothing.
MEASURED: tuple[tuple[str, dict[str, Any]], ...] = (
    ("list_subjects", {}),
    ("search_notes", {"query": "rollback window", "limit": 5}),
    ("get_backlinks", {"note": "__record__"}),
)


def params(vault: Path, home: str, client: str) -> StdioServerParameters:
    script = Path(sys.executable).with_name("vault-recall")
    return StdioServerParameters(
        command=str(script),
        args=["serve", "--client", client, "--vault", str(vault)],
        env={**os.environ, "VAULT_RECALL_HOME": home},
    )


async def answer(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    block = result.content[0]
    assert isinstance(block, TextContent) and not result.is_error, block
    payload: dict[str, Any] = json.loads(block.text)
    return payload


def active_records(vault: Path, count: int) -> list[str]:
    """`count` active decision records: what read_note hands out whole to a records client."""
    records: list[str] = []
    for path in sorted(vault.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        if text.startswith("---\n") and "status: archived" not in text and "kind: event" not in text:
            records.append(path.relative_to(vault).as_posix())
        if len(records) == count:
            break
    return records


async def timed(client: Client, tool: str, args: dict[str, Any], rounds: int) -> list[float]:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        payload = await answer(client, tool, args)
        samples.append(time.perf_counter() - started)
        assert FIELD not in payload, "nothing was edited: nothing may be told"
    return samples


def check_alone(vault: Path, handed: list[Handed], rounds: int) -> float:
    """Median seconds of the check itself on `handed`, in this process."""
    scope = Scope(client="bench", vault=vault, exposure=Exposure())
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        assert changed_since(scope, handed) == []
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


async def measure(notes: int, calls: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as work:
        vault = generate(Path(work) / "vault", notes).root
        records = active_records(vault, MAX_REMEMBERED)
        assert len(records) == MAX_REMEMBERED, "the vault is too small for the benchmark"
        home = str(Path(work) / "home")
        results: list[dict[str, Any]] = []
        async with (
            Client(params(vault, home, "remembers-none")) as none,
            Client(params(vault, home, "remembers-fifty")) as fifty,
        ):
            handed = []
            for path in records:  # the second server hands out 50 whole notes
                read = await answer(fifty, "read_note", {"note": path, "budget": 65536})
                assert "text" in read, f"{path} is too long to be read whole"
                handed.append(Handed(vault, read["path"], read["revision"]))
            for tool, raw_args in MEASURED:
                args = {k: (records[0] if v == "__record__" else v) for k, v in raw_args.items()}
                await timed(none, tool, args, 3)  # warm both alike
                await timed(fifty, tool, args, 3)
                base: list[float] = []
                loaded: list[float] = []
                for _ in range(calls):  # call by call, alternating, so load drift hits both alike
                    base += await timed(none, tool, args, 1)
                    loaded += await timed(fifty, tool, args, 1)
                results.append(
                    {
                        "tool": tool,
                        "calls": len(base),
                        "none_ms": statistics.median(base) * 1000,
                        "fifty_ms": statistics.median(loaded) * 1000,
                        "ratio": statistics.median(loaded) / statistics.median(base),
                        "added_ms": (statistics.median(loaded) - statistics.median(base)) * 1000,
                    }
                )
            alone = check_alone(vault, handed, max(20, calls // 4))
            # Proof it remembered them all: edit every one; the next calls tell all 50.
            originals = {h.path: (vault / h.path).read_bytes() for h in handed}
            for path, data in originals.items():
                (vault / path).write_bytes(data + b"\nedited by the benchmark\n")
            told: set[str] = set()
            for _ in range(MAX_REMEMBERED):
                payload = await answer(fifty, "list_subjects", {})
                found = {entry["path"] for entry in payload.get(FIELD, [])}
                if not found:
                    break
                told |= found
            none_told = FIELD in await answer(none, "list_subjects", {})
            for path, data in originals.items():
                (vault / path).write_bytes(data)
    return {
        "notes": notes,
        "remembered": len(handed),
        "told_after_edit": len(told),
        "told_to_the_other_server": none_told,
        "check_alone_ms": alone * 1000,
        "results": results,
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
    }


def report(data: dict[str, Any]) -> str:
    lines = [
        f"{data['notes']:,} synthetic notes; the second server remembers {data['remembered']} notes",
        "",
        "| call | remembers 0 (p50) | remembers 50 (p50) | ratio | added |",
        "|---|---|---|---|---|",
    ]
    for r in data["results"]:
        times = f"{r['none_ms']:.2f} ms | {r['fifty_ms']:.2f} ms"
        lines.append(f"| {r['tool']} | {times} | {r['ratio']:.2f} | {r['added_ms']:+.2f} ms |")
    lines += [
        "",
        f"the check alone, 50 notes, in process: {data['check_alone_ms']:.2f} ms",
        f"after editing all 50: told {data['told_after_edit']} of {data['remembered']};"
        f" the server that recalled none told anything: {data['told_to_the_other_server']}",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=200, help="calls per tool and server")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    data = anyio.run(measure, args.notes, args.calls)
    print(report(data))
    if args.json:
        args.json.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
