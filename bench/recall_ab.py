"""A/B: recall over real `serve` processes of two installs, called in turn, in one run.

    .venv/bin/python -m bench.recall_ab --baseline /path/to/other/.venv/bin/python
    .venv/bin/python -m bench.recall_ab --baseline … --sizes 10000 --real 6500 --rounds 30

The baseline is another install of Vault Recall (a checkout of an earlier commit with its own
venv: `git worktree add ../before COMMIT && python3 -m venv ../before/.venv &&
../before/.venv/bin/pip install -e ../before`).  Both servers read the same vaults — the
synthetic ones of each size and the real-shaped one (tests/support/synthetic_vault.py) — and answer the
same `recall_context` calls as assistants make them (one word; a few keywords; a question),
one call to A, one to B, so that the machine's drift hits both alike.  Prints p50 and p95 of
each and the ratio, and each server's peak RSS after the calls (VmHWM).  Nothing here asserts
times.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from bench.tools import memory_mb, percentile
from tests.support.synthetic_vault import SUBJECTS, WORDS, generate, generate_realistic

QUESTIONS = ("what did we decide about the {w} {v}?", "why do we {w} the {v}", "{w} {v} policy")


def params(python: Path, vault: Path, home: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=str(python),
        args=["-m", "vault_recall.app", "serve", "--client", "ab", "--vault", str(vault)],
        env={**os.environ, "VAULT_RECALL_HOME": str(home)},
    )


def calls(rounds: int) -> list[dict[str, Any]]:
    made = []
    for i in range(rounds):
        word, other = WORDS[(i * 7) % len(WORDS)], WORDS[(i * 11 + 3) % len(WORDS)]
        subject = SUBJECTS[i % len(SUBJECTS)]
        query = [word, f"{word} {other}", QUESTIONS[i % len(QUESTIONS)].format(w=word, v=other)][i % 3]
        made.append({"subject": subject, "query": query})
    return made


async def measure(label: str, vault: Path, pythons: dict[str, Path], rounds: int) -> None:
    timings: dict[str, list[float]] = {name: [] for name in pythons}
    peaks: dict[str, float | None] = {}
    with tempfile.TemporaryDirectory() as home_name:
        async with AsyncExitStack() as stack:
            clients = {}
            for name, python in pythons.items():
                known = {p.name for p in Path("/proc").iterdir() if p.name.isdigit()}
                client = await stack.enter_async_context(
                    Client(params(python, vault, Path(home_name)), read_timeout_seconds=300)
                )
                await client.call_tool("list_subjects", {})
                clients[name] = (client, _new_child(known))
            for arguments in calls(rounds):
                for name, (client, _) in clients.items():
                    started = time.perf_counter()
                    result = await client.call_tool("recall_context", arguments)
                    timings[name].append((time.perf_counter() - started) * 1000)
                    if result.is_error:
                        raise RuntimeError(f"{name}: {result.content}")
            for name, (_, pid) in clients.items():
                peaks[name] = memory_mb(pid, "VmHWM")
    first, second = list(pythons)
    ratio = statistics.median(timings[first]) / statistics.median(timings[second])
    for name in pythons:
        values = timings[name]
        print(
            f"{label:<34} {name:<9} p50 {statistics.median(values):7.1f} ms  p95 {percentile(values, 0.95):7.1f} ms"
            f"  peak {peaks[name]} MB"
        )
    print(f"{label:<34} {first}/{second} p50 ratio {ratio:.2f}")


def _new_child(known: set[str]) -> int | None:
    """The serve process just started: a child of this process that was not there before."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or entry.name in known:
            continue
        try:
            status = (entry / "status").read_text(encoding="utf-8")
        except OSError:
            continue
        if f"\nPPid:\t{os.getpid()}\n" in status:
            return int(entry.name)
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", type=Path, required=True, help="the other install's python")
    parser.add_argument("--sizes", default="10000", help="comma-separated note counts of synthetic vaults")
    parser.add_argument("--real", type=int, default=6500, help="notes of the real-shaped vault (0: none)")
    parser.add_argument("--rounds", type=int, default=30, help="calls per vault")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "vault-recall-bench")
    args = parser.parse_args()
    pythons = {"this": Path(sys.executable), "baseline": args.baseline}
    vaults: list[tuple[str, Path]] = []
    for size in [int(s) for s in args.sizes.split(",") if s]:
        root = args.workdir / f"ab-synthetic-{size}"
        if not root.exists():
            generate(root, size)
        vaults.append((f"synthetic ({size:,} notes)", root))
    if args.real:
        root = args.workdir / f"ab-real-{args.real}"
        if not root.exists():
            generate_realistic(root, args.real)
        vaults.append((f"real-shaped ({args.real:,} notes)", root))
    for label, root in vaults:
        anyio.run(measure, label, root, pythons, args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
