"""Benchmark: whole-vault recall on a real vault as a new user leaves it — every rule
`vault-recall subject suggest` proposes accepted — against the same vault without rules and
`rg -l -i`, over real `vault-recall serve` processes, in one run.

    .venv/bin/python -m bench.suggested_rules --vault /tmp/obsidian-hub
    .venv/bin/python -m bench.suggested_rules --vault /tmp/obsidian-hub --rounds 5 --json out.json

Two homes of their own are configured with the real commands: both add the vault and expose
the client `bench` the whole vault; one then runs every `vault-recall subject add …` line that
`subject suggest` prints. The vault is only read. Each round asks every query of each server
(single words and real questions of the public question set, bench/recall_eval/public),
interleaved with `rg -l -i` over the vault for the query's longest word, so load drift hits
all alike; the table gives each way's median round trip and its ratio to ripgrep's median.
Nothing here asserts times.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import anyio
from mcp import Client

from bench.rule_recall import command, params, rg_cells
from bench.tools import machine, ripgrep

WORDS = ("kanban", "calendar", "dataview", "excalidraw", "zettelkasten", "graph", "plugin", "theme")
QUESTIONS = (
    "Why is there no .obsidian folder in the hub repository?",
    "What should a reviewer check before merging a pull request to the hub?",
    "How should the lists of plugins on category pages be sorted?",
    "How do I contribute a note template to the community vault?",
)


@dataclass
class Result:
    way: str
    rules: int
    p50_ms: float
    rg_p50_ms: float | None
    ratio: float | None


def configure(home: Path, vault: Path, suggested: bool) -> int:
    """The vault and a client seeing all of it in `home`; with `suggested`, every rule
    `subject suggest` proposes added.  The number of rules added."""
    env = {**os.environ, "VAULT_RECALL_HOME": str(home)}

    def run(*argv: str) -> str:
        done = subprocess.run([*command(), *argv], env=env, check=True, capture_output=True, text=True, timeout=600)
        return done.stdout

    run("vault", "add", str(vault), "--name", "Bench")
    run("client", "expose", "bench", "vault")
    if not suggested:
        return 0
    added = 0
    for line in run("subject", "suggest").splitlines():
        _, found, rest = line.partition("vault-recall subject add ")
        if found:
            run("subject", "add", *shlex.split(rest))
            added += 1
    return added


async def measure(vault: Path, rounds: int) -> list[Result]:
    queries = [*WORDS, *QUESTIONS]
    with tempfile.TemporaryDirectory() as plain_home, tempfile.TemporaryDirectory() as ruled_home:
        configure(Path(plain_home), vault, suggested=False)
        rules = configure(Path(ruled_home), vault, suggested=True)
        async with (
            Client(params("bench", Path(plain_home)), read_timeout_seconds=600) as plain,
            Client(params("bench", Path(ruled_home)), read_timeout_seconds=600) as ruled,
        ):
            servers = {"no rules": plain, "suggested rules": ruled}
            for client in servers.values():  # the first answer: start-up is not measured here
                await client.call_tool("recall_context", {"query": "start"})
            times: dict[tuple[str, str], list[float]] = {}
            baseline: dict[str, list[float]] = {}
            for _ in range(rounds):
                for query in queries:
                    kind = "words" if " " not in query else "questions"
                    for way, client in servers.items():
                        started = time.perf_counter()
                        result = await client.call_tool("recall_context", {"query": query})
                        times.setdefault((way, kind), []).append((time.perf_counter() - started) * 1000)
                        if result.is_error:
                            raise RuntimeError(f"{way}: {result.content}")
                    sample = ripgrep(vault, max(query.split(), key=len))
                    if sample is not None:
                        baseline.setdefault(kind, []).append(sample)
    results = []
    for (way, kind), samples in times.items():
        p50 = statistics.median(samples)
        rg = statistics.median(baseline[kind]) if baseline.get(kind) else None
        results.append(
            Result(
                f"{way}, {kind}",
                rules if way == "suggested rules" else 0,
                round(p50, 1),
                round(rg, 1) if rg else None,
                round(p50 / rg, 2) if rg else None,
            )
        )
    return results


def table(results: list[Result]) -> str:
    lines = [f"{'whole-vault recall_context':<28} {'rules':>5} {'p50 ms':>8} {'rg ms':>8} {'× rg':>6}"]
    for r in results:
        lines.append(f"{r.way:<28} {r.rules:>5} {r.p50_ms:8.1f} {rg_cells(r.rg_p50_ms, r.ratio)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--vault", type=Path, required=True, help="a real vault, only read (obsidian-hub)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    if shutil.which("rg") is None:
        print("ripgrep (rg) is not installed: the ratios are left out")
    results = anyio.run(measure, args.vault.resolve(), args.rounds)
    print(table(results))
    if args.json is not None:
        args.json.write_text(json.dumps({"machine": machine(), "results": [asdict(r) for r in results]}, indent=2))
        print(f"written: {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
