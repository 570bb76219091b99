"""`read_note` by a note's exact vault path against a bare MCPServer reading the same file.

    .venv/bin/python -m bench.read_by_path                       # obsidian-hub, 8 notes
    .venv/bin/python -m bench.read_by_path --vault /tmp/obsidian-help/en --rounds 40
    .venv/bin/python -m bench.read_by_path --before DIR   # an earlier tree's serve too, same run

Two servers, each a real process spoken to through the MCP SDK's stdio client: `vault-recall
serve` (its client exposed the whole vault, a home of its own) asked `read_note(note=PATH)`,
and the bare MCPServer of bench/baseline_server.py asked `read(path=ABSOLUTE)` — the file's
text as text and structured content, the least any Python MCP server takes for this answer.
The notes are the peer benchmark's (bench/peer_questions.py: at most 12 KiB, so both return
them whole).  Calls alternate between the two, so the machine's drift hits both alike; every
answer is checked to hold the note's rare phrase.  Prints p50 and p95 of each and the ratio of the
medians (ours / bare; the goal: at most 1.5).  Nothing here asserts times.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from bench.peer_questions import choose
from tests.support.paths import REPO_ROOT

VAULT = Path("/tmp/obsidian-hub")
BARE = "bare MCPServer read"


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _ours(home: Path, vault: Path, before: Path | None = None) -> StdioServerParameters:
    script = Path(sys.executable).with_name("vault-recall")
    command = [str(script)] if script.exists() and before is None else [sys.executable, "-m", "vault_recall.app"]
    env = {**os.environ, "VAULT_RECALL_HOME": str(home)}
    if before is not None:
        env["PYTHONPATH"] = str(before)  # an earlier tree (tests/support/earlier_tree.py)
    subprocess.run([*command, "client", "expose", "bench", "vault"], env=env, stdout=subprocess.DEVNULL, check=True)
    return StdioServerParameters(
        command=command[0], args=[*command[1:], "serve", "--client", "bench", "--vault", str(vault)], env=env
    )


def _bare() -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[str(REPO_ROOT / "bench" / "baseline_server.py")])


async def _timed(client: Client, tool: str, arguments: dict[str, object], expected: str) -> float:
    started = time.perf_counter()
    result = await client.call_tool(tool, arguments)
    elapsed = time.perf_counter() - started
    text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
    if result.is_error or expected not in json.loads(text).get("text", ""):
        raise SystemExit(f"{tool} {arguments}: a wrong answer: {text[:200]}")
    return elapsed


async def measure(vault: Path, notes: int, rounds: int, before: Path | None) -> None:
    cases = choose(vault, notes).cases
    with tempfile.TemporaryDirectory(prefix="read-by-path-") as home:
        async with contextlib.AsyncExitStack() as stack:
            servers = {
                "vault-recall read_note(path)": await stack.enter_async_context(Client(_ours(Path(home), vault)))
            }
            if before is not None:
                earlier = Client(_ours(Path(home), vault, before))
                servers["before: read_note(path)"] = await stack.enter_async_context(earlier)
            bare = await stack.enter_async_context(Client(_bare()))
            times: dict[str, list[float]] = {name: [] for name in [*servers, BARE]}
            asks = [*((name, c, "read_note") for name, c in servers.items()), (BARE, bare, "read")]
            for round_ in range(rounds + 1):  # the first round warms every server up and is not counted
                for number, case in enumerate(cases):
                    turn = (round_ * len(cases) + number) % len(asks)  # who goes first rotates
                    for name, client, tool in asks[turn:] + asks[:turn]:
                        asked: dict[str, object] = {"path": str(vault / case.path)}
                        if tool == "read_note":
                            asked = {"note": case.path}
                        seconds = await _timed(client, tool, asked, case.phrase)
                        if round_:
                            times[name].append(seconds)
    base = statistics.median(times[BARE])
    print(f"{vault}: {len(cases)} notes × {rounds} rounds")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:30} p50 {median * 1000:6.2f} ms  p95 {p95(values) * 1000:6.2f} ms  ratio {median / base:4.2f}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--vault", type=Path, default=VAULT)
    parser.add_argument("--notes", type=int, default=8, help="notes read, each once per round")
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--before", type=Path, help="an earlier tree, put first on PYTHONPATH")
    args = parser.parse_args(argv)
    anyio.run(measure, args.vault, args.notes, args.rounds, args.before)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
