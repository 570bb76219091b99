"""A share of a recall's pass (recall_records._measure): what a worker process of the pool
(finding/pool.py) is handed, and what it sends back — the ordering's numbers and the broken
notes met, never a note's text."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from vault_recall.server.recall.answers.respelling import Watch
from vault_recall.server.recall.answers.unheld import Unheld, asked_words
from vault_recall.server.recall.ranking.relevance import Ordering, Ranked
from vault_recall.server.recall.records import MemoryRecord
from vault_recall.server.recall.results import Problem
from vault_recall.server.recall.scope import Scope
from vault_recall.server.vault.listing import VaultListing

# recall_records._candidates: handed by name, so the recall's own pass is the one run.
Candidates = Callable[
    [
        Scope,
        VaultListing,
        str | None,
        list[Problem],
        tuple[str, ...] | None,
        Callable[[str], bool] | None,
        dict[str, Problem] | None,
        Watch | None,
    ],
    Iterator[MemoryRecord | Unheld],
]


@dataclass(frozen=True)
class Share:
    """One share of a pass over the notes of `listing`.  `keep` and `candidates` are
    module-level functions (or a frozen dataclass), pickled by name."""

    candidates: Candidates
    fresh: Ordering
    problems: list[Problem]
    shown: dict[str, Problem]
    scope: Scope
    listing: VaultListing
    subject: str | None
    keep: Callable[[MemoryRecord], bool]
    gates: tuple[str, ...] | None
    # What the pass notes for a misspelt word's correction (respelling.py): in an unsplit pass only.
    watch: Watch | None = None


def measure_share(share: Share) -> tuple[Ordering, list[Problem], dict[str, Problem]]:
    """A share's pass: `fresh` measures every candidate `keep` keeps (as _measure did over
    the whole vault); its ordering and the broken notes met."""
    fresh, keep, watch = share.fresh, share.keep, share.watch
    asked = asked_words(fresh)
    found = share.candidates(
        share.scope, share.listing, share.subject, share.problems, share.gates, asked, share.shown, watch
    )
    for item in found:
        if isinstance(item, Unheld):
            assert isinstance(fresh, Ranked)  # gates are given for a ranked recall only
            fresh.measure_unheld(item.length)
            if watch is not None:
                watch.counted(fresh, None)
        elif keep(item):
            fresh.measure(item)
            if watch is not None:
                assert isinstance(fresh, Ranked)  # a watch is kept for a ranked recall only
                watch.counted(fresh, item.note.path)
    return fresh, share.problems, share.shown
