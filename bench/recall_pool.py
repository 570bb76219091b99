"""Benchmark: whole-vault recall with and without the pool of worker processes
(server/recall/finding/pool.py), against `rg -l -i WORD` in the same run; and the memory of
several `serve` processes at once.

    .venv/bin/python -m bench.recall_pool                                  # synthetic 10k and 50k
    .venv/bin/python -m bench.recall_pool --sizes 10000 --vault /tmp/obsidian-hub --words hub
    .venv/bin/python -m bench.recall_pool --sizes 2000,4000,8000 --rounds 5   # where a pool starts paying
    .venv/bin/python -m bench.recall_pool --serves 6 --vault /tmp/obsidian-hub  # RSS of six serves

Recall runs in this process, the pool's workers warmed before timing (a serve's first large
call starts them and runs without them).  Each round asks one word every way, interleaved,
then ripgrep; medians of wall time.  It also reports what one share's result weighs pickled
and what pickling and unpickling it cost: what handing shares back takes from the gain.
`--shares N` forces N shares whatever the vault's size (the pool's threshold is then beside
the point: this is how the threshold was measured).  Nothing here asserts times.
"""

from __future__ import annotations

import argparse
import os
import pickle
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from bench.rule_recall import WayResult, asked, command, medians, table
from bench.tools import generate_bytes, prepared, ripgrep
from tests.support.synthetic_vault import GENERATOR_VERSION
from vault_recall.server.recall.scope import Exposure, Scope
from vault_recall.server.vault.listing import list_notes

# The pool and the recall are imported when measured, not for --serves: that measures serve
# processes of whatever tree PYTHONPATH names (the code before the pool, too).

# Words and questions for a real vault (obsidian-hub): single words and questions as asked.
HUB_WORDS = [
    "kanban",
    "dataview",
    "calendar",
    "theme",
    "how do I sync my vault between devices",
    "which plugin shows a graph of tags",
    "excalidraw",
    "templater",
]


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000


def share_weight(vault: Path, word: str, shares: int) -> tuple[int, float]:
    """What the last share's result of a whole-vault ranked pass weighs pickled (bytes), and
    the ms of pickling and unpickling it."""
    from vault_recall.server.recall.answers import recall_records
    from vault_recall.server.recall.answers.recall_shares import Share, measure_share
    from vault_recall.server.recall.finding import pool

    scope = Scope(client="bench-pool", vault=vault, exposure=Exposure(mode="vault"))
    listing = list_notes(vault)
    ordering = recall_records._ordering(word, "any", scope, None, dated=False)
    part = pool.listing_shares(listing, shares)[-1]
    gates = recall_records._unheld_gates(ordering)
    keep = recall_records._current
    share = Share(recall_records._candidates, ordering.fresh(), [], {}, scope, part, None, keep, gates)
    result = measure_share(share)
    started = time.perf_counter()
    data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    pickle.loads(data)
    return len(data), (time.perf_counter() - started) * 1000


def measure(vault: Path, notes: int, words: list[str], shares: int | None) -> list[WayResult]:
    from vault_recall.server.recall.answers.recall_records import recall_context
    from vault_recall.server.recall.finding import pool

    scope = Scope(client="bench-pool", vault=vault, exposure=Exposure(mode="vault"))
    workers = pool.WorkerPool(
        max(1, (shares or pool.cores()) - 1), idle=600, warm=partial(pool.imported, pool.RECALL_SHARES)
    )
    if not workers.warm_up():
        raise RuntimeError("the pool's workers did not start")
    per_share = pool.NOTES_PER_SHARE
    if shares is not None:
        pool.NOTES_PER_SHARE = max(1, notes // shares)
    ways: dict[str, pool.WorkerPool | None] = {"whole vault, no pool": None, "whole vault, pool": workers}
    times: dict[str, list[float]] = {way: [] for way in ways}
    baseline: list[float] = []
    try:
        for word in words:
            for way, chosen in ways.items():
                before = pool.use_pool(chosen)
                try:
                    times[way].append(timed(partial(recall_context, scope, None, word, budget=4096, limit=5)))
                finally:
                    pool.use_pool(before)
            sample = ripgrep(vault, word)
            if sample is not None:
                baseline.append(sample)
    finally:
        pool.NOTES_PER_SHARE = per_share
        workers.close()
    return medians(times, baseline, notes)


def rss_kb(pid: int) -> int:
    """Resident memory of a process, kB (Linux: /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def children(pid: int) -> list[int]:
    """A process's children, started by any of its threads (Linux lists them per thread)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:  # a thread gone meanwhile
            continue
    return found


def family_rss_kb(pid: int) -> int:
    """A process's resident memory and its children's (a serve and its pool's workers)."""
    return rss_kb(pid) + sum(family_rss_kb(child) for child in children(pid))


def serves(vault: Path, count: int, word: str, idle: float) -> None:
    """`count` serve processes at once on `vault`, each sent one whole-vault recall twice (the
    first starts its pool, the second uses it): RSS (with workers) idle at start, at the peak
    (sampled during the calls), after the calls and after `idle` seconds."""
    import json

    with tempfile.TemporaryDirectory() as home_name:
        home = Path(home_name)
        env = {**os.environ, "VAULT_RECALL_HOME": str(home)}
        for argv in (["vault", "add", str(vault), "--name", "Bench"], ["client", "expose", "bench", "vault"]):
            subprocess.run([*command(), *argv], env=env, check=True, capture_output=True, timeout=600)
        procs = [
            subprocess.Popen(
                [*command(), "serve", "--client", "bench"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=(home / f"serve-{index}.err").open("wb"),
                env=env,
            )
            for index in range(count)
        ]

        def send(proc: subprocess.Popen[bytes], message: dict[str, object]) -> dict[str, object] | None:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(json.dumps(message).encode() + b"\n")
            proc.stdin.flush()
            if "id" not in message:
                return None
            answer: dict[str, object] = json.loads(proc.stdout.readline())
            return answer

        init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "b", "version": "0"}}
        for proc in procs:
            send(proc, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
            send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        time.sleep(5)  # the SDK loads on a thread after `initialize` is answered
        start = [family_rss_kb(p.pid) for p in procs]
        peak = list(start)
        import threading

        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                for i, p in enumerate(procs):
                    peak[i] = max(peak[i], family_rss_kb(p.pid))
                time.sleep(0.02)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        call = {"name": "recall_context", "arguments": {"query": word}}
        for round_ in range(1, 4):
            for proc in procs:
                answer = send(proc, {"jsonrpc": "2.0", "id": round_, "method": "tools/call", "params": call})
                assert answer is not None and "result" in answer, answer
            time.sleep(1.0)  # the first call starts each pool: later ones use it
        done.set()
        sampler.join()
        after = [family_rss_kb(p.pid) for p in procs]
        helpers = [len(children(p.pid)) for p in procs]
        time.sleep(idle)
        rested = [family_rss_kb(p.pid) for p in procs]
        helpers_rested = [len(children(p.pid)) for p in procs]
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.close()
        for proc in procs:
            proc.wait(timeout=30)
        for index in range(count):
            said = (home / f"serve-{index}.err").read_text("utf-8", "replace").strip()
            if said:
                print(f"serve {index} said: {said[-2000:]}")

    def mb(values: list[int]) -> str:
        median, top, total = statistics.median(values) / 1024, max(values) / 1024, sum(values) / 1024
        return f"median {median:.0f} MB, max {top:.0f}, sum {total:.0f}"

    print(f"{count} serves on {vault} (each with its workers):")
    print(f"  idle at start:        {mb(start)}")
    print(f"  peak during calls:    {mb(peak)}")
    print(f"  just after the calls: {mb(after)}")
    print(f"  {idle:.0f} s later:          {mb(rested)}")
    print(f"  child processes after the calls {helpers}, {idle:.0f} s later {helpers_rested}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sizes", default="10000,50000")
    parser.add_argument("--vault", type=Path, default=None, help="a real vault too (only read)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--words", choices=("vocabulary", "numbers", "hub"), default="numbers")
    parser.add_argument("--shares", type=int, default=None)
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "vault-recall-bench")
    parser.add_argument("--serves", type=int, default=0, help="measure RSS of this many serves instead")
    parser.add_argument("--idle", type=float, default=35.0, help="seconds idle after the calls (the pool's 30 and 5)")
    args = parser.parse_args(argv)
    if args.serves:
        if args.vault is None:
            sys.exit("--serves needs --vault")
        serves(args.vault, args.serves, "kanban", args.idle)
        return 0
    if shutil.which("rg") is None:
        print("ripgrep (rg) is not installed: the ratios are left out")
    args.workdir.mkdir(parents=True, exist_ok=True)
    results: list[WayResult] = []
    vaults: list[tuple[Path, int, list[str]]] = []
    for size in (int(s) for s in args.sizes.split(",") if s.strip() and int(s) > 0):
        vault, _ = prepared(args.workdir, f"vault-{size}", f"v{GENERATOR_VERSION}", partial(generate_bytes, size))
        words = HUB_WORDS[: args.rounds] if args.words == "hub" else asked(args.words, size, args.rounds)
        vaults.append((vault, size, words))
    if args.vault is not None:
        words = HUB_WORDS[: args.rounds] if args.words in ("hub", "numbers") else asked(args.words, 1, args.rounds)
        vaults.append((args.vault, len(list_notes(args.vault).paths), words))
    for vault, notes, words in vaults:
        results += measure(vault, notes, words, args.shares)
        size, ms = share_weight(vault, words[0], args.shares or 2)
        print(f"{vault}: one share's result {size / 1024:.0f} kB pickled, {ms:.1f} ms to pickle and unpickle")
    print(table(results, "way", 24))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
