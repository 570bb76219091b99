"""What a misspelt, foreign or nonsense query costs over its twin spelled right, in one run.

    .venv/bin/python -m bench.respelling_cost                       # Obsidian's help vault, obsidian-hub
    .venv/bin/python -m bench.respelling_cost --vault /tmp/obsidian-help/en --rounds 9

Each pair is a query that makes recall do more than rank — take a word for a misspelling
(`kanbam board`), recognise the query's language (`receita de bolo de cenoura`), find nothing
at all (`xqzvy flurbing`) — and the query a person means spelled right, asked in turn
(`recall_context` as a plain function, a client exposed the whole vault, no subject), so that
the machine's drift hits both alike.  Prints each pair's median times and their ratio (the
goal: at most 1.2).  The word lists a respelling asks are read once per process: one call
before the rounds reads them, as a server's first such call would.  Nothing here asserts times.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from pathlib import Path

from vault_recall.server.recall.answers.recall_records import recall_context
from vault_recall.server.recall.scope import Exposure, Scope

VAULTS = (Path("/tmp/obsidian-help/en"), Path("/tmp/obsidian-hub"))
# (asked, spelled right): a misspelling, a word English knows one letter from a vault word,
# a question in a language recognised by its small words, nonsense, a long misspelling.
PAIRS = (
    ("kanbam board", "kanban board"),
    ("colapsible callout", "collapsible callout"),
    ("life insurance", "life"),
    ("receita de bolo de cenoura", "receita de bolo"),
    ("xqzvy flurbing", "sync"),
    ("pestisides", "plugins"),
)


def timed(scope: Scope, query: str) -> float:
    start = time.perf_counter()
    recall_context(scope, None, query)
    return time.perf_counter() - start


def measure(vault: Path, rounds: int) -> list[str]:
    scope = Scope(client="bench", vault=vault, exposure=Exposure(mode="vault"))
    for asked, _ in PAIRS:
        recall_context(scope, None, asked)  # word lists read, as a server's first such call does
    lines = []
    for asked, right in PAIRS:
        times: dict[str, list[float]] = {asked: [], right: []}
        for _ in range(rounds):
            times[asked].append(timed(scope, asked))
            times[right].append(timed(scope, right))
        a, b = statistics.median(times[asked]), statistics.median(times[right])
        shown = f"`{asked}` | {a * 1000:,.0f} ms | `{right}` | {b * 1000:,.0f} ms"
        lines.append(f"| {vault.name} | {shown} | {a / b:.2f} |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--vault", type=Path, action="append", default=[], help="a vault folder (repeatable)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    vaults = args.vault or [v for v in VAULTS if v.is_dir()]
    print("| vault | asked | p50 | spelled right | p50 | ratio |")
    print("|---|---|---|---|---|---|")
    for vault in vaults:
        for line in measure(vault, args.rounds):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
