"""Benchmark: recall by a subject rule, and recall across everything a client may see, against
recall by a `subject` property and `rg -l -i WORD`, over real `vault-recall serve` processes.

    .venv/bin/python -m bench.rule_recall                       # 10k and 50k notes
    .venv/bin/python -m bench.rule_recall --sizes 1000 --rounds 5

The synthetic vaults of bench/tools.py (generated once under --workdir, shared with it) hold
`subject` properties on three notes in four. The config made for the run (in a home of its own,
with the real `vault-recall` commands) adds a folder rule, `projects --folder Projects` (about
one note in seven, most of which also name a property subject, so the rule's notes are parsed
as records are), and a client exposed the whole vault. Each round asks the same word of each
way of recalling, interleaved with `rg -l -i WORD` over the same vault, so load drift hits all
alike; the table gives each one's median round trip and its ratio to ripgrep's. `--words
numbers` asks for notes' numbers instead of vocabulary words: few notes hold each, as with
most words of a real vault. Nothing here asserts times.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from bench.tools import generate_bytes, machine, prepared, ripgrep
from tests.support.synthetic_vault import GENERATOR_VERSION, SUBJECTS, WORDS

# What each way of recalling asks, and which client asks it: `bench` sees records (the
# default), `bench-all` the whole vault.
WAYS: dict[str, tuple[str, dict[str, Any]]] = {
    "property subject": ("bench", {"subject": SUBJECTS[0]}),
    "rule subject (folder)": ("bench", {"subject": "projects"}),
    "no subject, records": ("bench", {}),
    "no subject, whole vault": ("bench-all", {}),
}


@dataclass
class WayResult:
    way: str
    notes: int
    p50_ms: float
    rg_p50_ms: float | None
    ratio: float | None


def command() -> list[str]:
    script = Path(sys.executable).with_name("vault-recall")
    return [str(script)] if script.exists() else [sys.executable, "-m", "vault_recall.app"]


def configure(home: Path, vault: Path) -> None:
    """The rule and the whole-vault client, set as a person would, in `home`."""
    env = {**os.environ, "VAULT_RECALL_HOME": str(home)}
    for argv in (
        ["vault", "add", str(vault), "--name", "Bench"],
        ["subject", "add", "projects", "--folder", "Projects", "--vault", "Bench"],
        ["client", "expose", "bench-all", "vault"],
    ):
        subprocess.run([*command(), *argv], env=env, check=True, capture_output=True, timeout=600)


def params(client: str, home: Path) -> StdioServerParameters:
    argv = command()
    return StdioServerParameters(
        command=argv[0],
        args=[*argv[1:], "serve", "--client", client],
        env={**os.environ, "VAULT_RECALL_HOME": str(home)},
    )


def asked(kind: str, notes: int, rounds: int) -> list[str]:
    """The words asked: of the vocabulary (nearly every note holds each), or a note's number
    (`numbers`: its title's, held by the few notes sharing its first four digits)."""
    if kind == "numbers":
        return [f"{(i * 7919 + 13) % notes:06}" for i in range(rounds)]
    return [WORDS[(i * 7) % len(WORDS)].split()[0] for i in range(rounds)]


async def measure(vault: Path, notes: int, rounds: int, kind: str = "vocabulary") -> list[WayResult]:
    words = asked(kind, notes, rounds)
    with tempfile.TemporaryDirectory() as home_name:
        home = Path(home_name)
        configure(home, vault)
        async with (
            Client(params("bench", home), read_timeout_seconds=600) as records,
            Client(params("bench-all", home), read_timeout_seconds=600) as everything,
        ):
            clients = {"bench": records, "bench-all": everything}
            for client in clients.values():  # the first answer: start-up is not measured here
                await client.call_tool("list_subjects", {})
            times: dict[str, list[float]] = {way: [] for way in WAYS}
            baseline: list[float] = []
            for word in words:
                for way, (client_id, arguments) in WAYS.items():
                    started = time.perf_counter()
                    result = await clients[client_id].call_tool("recall_context", {**arguments, "query": word})
                    times[way].append((time.perf_counter() - started) * 1000)
                    if result.is_error:
                        raise RuntimeError(f"{way}: {result.content}")
                sample = ripgrep(vault, word)
                if sample is not None:
                    baseline.append(sample)
    return medians(times, baseline, notes)


def medians(times: dict[str, list[float]], baseline: list[float], notes: int) -> list[WayResult]:
    """Each way's median time, and its ratio to ripgrep's median (`baseline`; none: no ratio)."""
    rg = statistics.median(baseline) if baseline else None
    results = []
    for way, samples in times.items():
        p50 = statistics.median(samples)
        results.append(
            WayResult(way, notes, round(p50, 1), round(rg, 1) if rg else None, round(p50 / rg, 2) if rg else None)
        )
    return results


def table(results: list[WayResult], heading: str = "recall_context", width: int = 26) -> str:
    lines = [f"{'notes':>7}  {heading:<{width}} {'p50 ms':>8} {'rg ms':>8} {'× rg':>6}"]
    for r in results:
        lines.append(f"{r.notes:>7}  {r.way:<{width}} {r.p50_ms:8.1f} {rg_cells(r.rg_p50_ms, r.ratio)}")
    return "\n".join(lines)


def rg_cells(rg_p50_ms: float | None, ratio: float | None) -> str:
    """A table's ripgrep and ratio columns; a dash where rg is not installed."""
    rg = f"{rg_p50_ms:8.1f}" if rg_p50_ms is not None else f"{'–':>8}"
    return f"{rg} {ratio:6.2f}" if ratio is not None else f"{rg} {'–':>6}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sizes", default="10000,50000")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "vault-recall-bench")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--words",
        choices=("vocabulary", "numbers"),
        default="vocabulary",
        help="words nearly every note holds, or notes' numbers, which few hold",
    )
    args = parser.parse_args(argv)
    if shutil.which("rg") is None:
        print("ripgrep (rg) is not installed: the ratios are left out")
    args.workdir.mkdir(parents=True, exist_ok=True)
    results: list[WayResult] = []
    for size in (int(s) for s in args.sizes.split(",") if s.strip()):
        vault, _ = prepared(args.workdir, f"vault-{size}", f"v{GENERATOR_VERSION}", partial(generate_bytes, size))
        results += anyio.run(measure, vault, size, args.rounds, args.words)
    print(table(results))
    out = args.json or args.workdir / "rule-recall.json"
    out.write_text(json.dumps({"machine": machine(), "results": [asdict(r) for r in results]}, indent=2), "utf-8")
    print(f"written: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
