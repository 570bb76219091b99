"""What telling each change exactly once costs a call, against telling it at least once.

    .venv/bin/python -m bench.told_once_cost [--notes 50] [--changes 10] [--rounds 2000]

`changed_since_recalled` is told only in an answer that reached its client, and never twice.
Never lost needs the transport's word that the answer was delivered (server/mcp/delivery.py,
server/http/answer_delivery.py): a change is remembered as told only then.  Never twice adds, in
server/recall/answers/changed_since.py, the hold on a change an answer in flight tells (other
calls of the client pass over it) and the read stamps that keep an answer begun earlier from
bringing back a revision whose change was told.  Timed here, in this process, per call:

- the check every call makes anyway: reading again the notes remembered (`changed_since`,
  one open, fstat and SHA-256 each), on a generated vault;
- exactly once: `HandedOutNotes.reserve` (hold what is told) and `Pending.commit`;
- at least once: `HandedOutNotes.settle` alone — what remains without the hold.

docs/architecture.md's decision on the told-once state cites the figures.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tests.support.synthetic_vault import generate
from vault_recall.server.recall.answers.changed_since import Handed, HandedOutNotes, NoteChange, changed_since
from vault_recall.server.recall.scope import Exposure, Scope


def median_seconds(run: Callable[[], object], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        run()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.told_once_cost", description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=50, help="notes remembered (50 is the most kept per client)")
    parser.add_argument("--changes", type=int, default=10, help="changes told in the call (10 at most)")
    parser.add_argument("--rounds", type=int, default=2000)
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        vault = generate(Path(work) / "vault", max(options.notes * 2, 100)).root
        paths = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))[: options.notes]
        scope = Scope(client="bench", vault=vault, exposure=Exposure(mode="vault"))
        memory = HandedOutNotes()
        memory.settle("bench", [], [Handed(vault, path, "r0") for path in paths])
        handed = memory.notes("bench")
        check = median_seconds(lambda: changed_since(scope, handed), max(options.rounds // 20, 20))

        changes = [NoteChange(vault, path, "r0", "r1") for path in paths]
        exactly_samples: list[float] = []
        at_least_samples: list[float] = []
        for _ in range(options.rounds):
            # Every remembered note changed from r0; the call tells `changes` of them and hands
            # out nothing new.  Each way starts from a memory of its own, made before the clock
            # starts; the two ways take turns, so the machine's drift hits both alike.
            once, least = HandedOutNotes(), HandedOutNotes()
            for memory_now in (once, least):
                memory_now.settle("bench", [], [Handed(vault, path, "r0") for path in paths])
            started = time.perf_counter()
            pending = once.reserve("bench", changes, lambda untold: untold[: options.changes], [], 0, 1)
            if pending is not None:
                pending.commit()
            exactly_samples.append(time.perf_counter() - started)
            started = time.perf_counter()
            least.settle("bench", changes[: options.changes], [])
            at_least_samples.append(time.perf_counter() - started)
        exactly = statistics.median(exactly_samples)
        at_least = statistics.median(at_least_samples)
    print(f"{options.notes} notes remembered, {options.changes} changes told, medians of {options.rounds} rounds")
    print(f"the check every call makes (re-reading the notes)  {check * 1e6:9.1f} µs")
    print(f"exactly once: reserve + commit                       {exactly * 1e6:9.1f} µs")
    print(f"at least once: settle alone                          {at_least * 1e6:9.1f} µs")
    extra = max(exactly - at_least, 0.0)
    print(f"never twice adds {extra * 1e6:.1f} µs a call, {extra / check:.2%} of the check")
    return 0


if __name__ == "__main__":
    sys.exit(main())
