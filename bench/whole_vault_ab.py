"""A/B: whole-vault `recall_context` of two installs, each in a process of its own, called in
turn with `rg -l -i WORD` over the same vault, in one run.

    .venv/bin/python -m bench.whole_vault_ab --baseline ../before/.venv/bin/python
    .venv/bin/python -m bench.whole_vault_ab --baseline … --sizes 10000,50000 --words vocabulary
    .venv/bin/python -m bench.whole_vault_ab --baseline … --pool     # each with its pool of workers

The baseline is another install of Vault Recall (bench/recall_ab.py says how to make one).
Each install answers in a long-lived process of its own, as a `serve` does (without `--pool`,
in that process alone, as bench.read_floor's recall), a word at a time: this one, the baseline,
then ripgrep, so load drift hits all three alike.  Prints each one's median and its ratio to
ripgrep's, this install's median over the baseline's, and how many answers differ (the two
must answer alike: a change of speed only).  The same synthetic vaults as bench.read_floor.
Nothing here asserts times.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from functools import partial
from pathlib import Path

from bench.rule_recall import asked, rg_cells
from bench.tools import generate_bytes, prepared, ripgrep
from tests.support.synthetic_vault import GENERATOR_VERSION

# What each install runs: whole-vault recalls of the words it is sent, one a line, answering
# each with its wall time and the answer's JSON.
ANSWERER = """
import json, sys, time
from pathlib import Path
from vault_recall.server.recall.answers.recall_records import recall_context
from vault_recall.server.recall.scope import Exposure, Scope
if sys.argv[1] == "pool":
    from vault_recall.server.recall.finding.pool import open_pool
    open_pool()
scope = Scope(client="bench-ab", vault=Path(sys.argv[2]), exposure=Exposure(mode="vault"))
for line in sys.stdin:
    started = time.perf_counter()
    answer = recall_context(scope, None, line.rstrip("\\n"), budget=4096, limit=5)
    print(json.dumps([(time.perf_counter() - started) * 1000, answer], sort_keys=True), flush=True)
"""


class Answerer:
    def __init__(self, python: str, vault: Path, pool: bool) -> None:
        mode = "pool" if pool else "alone"
        self._process = subprocess.Popen(
            [python, "-c", ANSWERER, mode, str(vault)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def ask(self, word: str) -> tuple[float, str]:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(word + "\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError("an install's answerer ended")
        took, answer = json.loads(line)
        return took, json.dumps(answer, sort_keys=True)

    def close(self) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait()


def measure(vault: Path, notes: int, words: list[str], baseline: str, pool: bool) -> None:
    answerers = {"this": Answerer(sys.executable, vault, pool), "baseline": Answerer(baseline, vault, pool)}
    try:
        for answerer in answerers.values():  # a first call each (a pool starts on it), not timed
            answerer.ask(words[0])
            answerer.ask(words[0])
        times: dict[str, list[float]] = {name: [] for name in answerers}
        rg: list[float] = []  # none without ripgrep: its columns are dashes
        differing = 0
        for word in words:
            answers = {name: answerer.ask(word) for name, answerer in answerers.items()}
            for name, (took, _) in answers.items():
                times[name].append(took)
            differing += answers["this"][1] != answers["baseline"][1]
            sample = ripgrep(vault, word)
            if sample is not None:
                rg.append(sample)
    finally:
        for answerer in answerers.values():
            answerer.close()
    floor = statistics.median(rg) if rg else None
    way = "pool" if pool else "one process"
    for name, taken in times.items():
        median = statistics.median(taken)
        cells = rg_cells(floor, median / floor if floor else None)
        print(f"{notes:>6} {way:<11} {name:<8} p50 {median:8.1f} ms  rg ms, × rg {cells}")
    ratio = statistics.median(times["this"]) / statistics.median(times["baseline"])
    print(f"{notes:>6} {way:<11} this/baseline p50 {ratio:.3f}; answers differing: {differing} of {len(words)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--baseline", required=True, help="the other install's python")
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--words", choices=("vocabulary", "numbers"), default="numbers")
    parser.add_argument("--pool", action="store_true", help="each install with its pool of workers")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "vault-recall-bench")
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    for size in (int(s) for s in args.sizes.split(",") if s.strip()):
        vault, _ = prepared(args.workdir, f"vault-{size}", f"v{GENERATOR_VERSION}", partial(generate_bytes, size))
        measure(vault, size, asked(args.words, size, args.rounds), args.baseline, args.pool)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
