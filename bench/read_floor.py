"""Benchmark: the floor under whole-vault recall — what listing the vault and opening and
reading every note cost, before any note is told from another — against `rg -l -i WORD` and
whole-vault `recall_context`, in the same run.

    .venv/bin/python -m bench.read_floor                        # 10k and 50k notes
    .venv/bin/python -m bench.read_floor --sizes 1000 --rounds 3 --words vocabulary

Every whole-vault recall lists the vault and reads each note whole (no index: fresh), then
tells from each note's bytes whether it can answer.  This measures the first two with our own
code (`list_notes`; one FolderChain pass opening, reading and closing each note, as
`finding/scan.py` does, and looking for the word's bytes lowered), in this process and split
over two worker processes forked and warmed before timing — the most that spreading the pass
over this machine's two cores could buy — and, beside them, `rg -l -i` over the same vault and
whole-vault `recall_context` in this process.  Each round runs every way once for one word,
interleaved, so load drift hits all alike; the table gives each one's median wall time and its
ratio to ripgrep's.  Same synthetic vaults as bench/tools.py and bench/rule_recall.py (under
--workdir).  Nothing here asserts times.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from functools import partial
from multiprocessing import get_context
from pathlib import Path

from bench.rule_recall import WayResult, asked, medians, table
from bench.tools import generate_bytes, machine, prepared, ripgrep
from tests.support.synthetic_vault import GENERATOR_VERSION
from vault_recall.server.recall.answers.recall_records import recall_context
from vault_recall.server.recall.scope import Exposure, Scope
from vault_recall.server.vault.folders import FolderChain
from vault_recall.server.vault.listing import list_notes
from vault_recall.server.vault.note_files import read_rest, read_start, start_buffer

WAYS = (
    "list the notes",
    "list, read every note (1 process)",
    "list, read every note (2 processes)",
    "whole-vault recall_context",
)


def read_every(root: str, paths: Sequence[str], word: str) -> tuple[int, int]:
    """Open, read whole and close each note, as a recall's pass does, and look for `word`'s
    bytes in it lowered: (how many notes were read, how many hold the word)."""
    wanted = word.lower().encode("utf-8")
    buffer = start_buffer()
    read = holding = 0
    with FolderChain(Path(root)) as chain:
        for path in paths:
            fd = chain.open_note(path)
            try:
                start, length = read_start(fd, buffer)
                data = (
                    bytes(memoryview(start)[:length])
                    if length < len(buffer)
                    else read_rest(fd, path, start, length).data
                )
            finally:
                os.close(fd)
            read += 1
            holding += wanted in data.lower()
    return read, holding


def _read_chunk(job: tuple[str, Sequence[str], str]) -> tuple[int, int]:
    return read_every(*job)


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000


def measure(vault: Path, notes: int, words: list[str]) -> list[WayResult]:
    root = str(vault)
    scope = Scope(client="bench-floor", vault=vault, exposure=Exposure(mode="vault"))
    listed = list_notes(vault).paths
    if len(listed) != notes:
        raise RuntimeError(f"{vault} lists {len(listed)} notes, not {notes}")
    with get_context("fork").Pool(2) as pool:
        pool.map(_read_chunk, [(root, listed[:10], "warm")] * 2)  # both workers started before timing

        def in_two(word: str) -> None:
            paths = list_notes(vault).paths
            half = len(paths) // 2
            done = pool.map(_read_chunk, [(root, paths[:half], word), (root, paths[half:], word)])
            if sum(read for read, _ in done) != notes:
                raise RuntimeError("the workers did not read every note")

        actions: dict[str, Callable[[str], object]] = {
            WAYS[0]: lambda word: list_notes(vault),
            WAYS[1]: lambda word: read_every(root, list_notes(vault).paths, word),
            WAYS[2]: in_two,
            WAYS[3]: lambda word: recall_context(scope, None, word, budget=4096, limit=5),
        }
        times: dict[str, list[float]] = {way: [] for way in WAYS}
        baseline: list[float] = []
        for word in words:
            for way, action in actions.items():
                times[way].append(timed(partial(action, word)))
            sample = ripgrep(vault, word)
            if sample is not None:
                baseline.append(sample)
    return medians(times, baseline, notes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sizes", default="10000,50000")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "vault-recall-bench")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--words",
        choices=("vocabulary", "numbers"),
        default="numbers",
        help="notes' numbers, which few notes hold (the floor's own case), or words nearly every note holds",
    )
    args = parser.parse_args(argv)
    if shutil.which("rg") is None:
        print("ripgrep (rg) is not installed: the ratios are left out")
    args.workdir.mkdir(parents=True, exist_ok=True)
    results: list[WayResult] = []
    for size in (int(s) for s in args.sizes.split(",") if s.strip()):
        vault, _ = prepared(args.workdir, f"vault-{size}", f"v{GENERATOR_VERSION}", partial(generate_bytes, size))
        results += measure(vault, size, asked(args.words, size, args.rounds))
    print(table(results, "way", 38))
    out = args.json or args.workdir / "read-floor.json"
    out.write_text(json.dumps({"machine": machine(), "results": [asdict(r) for r in results]}, indent=2), "utf-8")
    print(f"written: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
