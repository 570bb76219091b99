"""How far the tests that are not Hypothesis's own go, set by the same profile
(HYPOTHESIS_PROFILE, tests/conftest.py): under `ci` all the way; under `dev`, the fast loop,
races against another process run a tenth as long (a second at least) and the long
comparisons against a reference check every third case, or a third of the pairs of two lists
with every item of each still in one, and a third list's items in turn over those pairs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from hypothesis import settings

CI_EXAMPLES = 500  # the `ci` profile's cases per property test: full depth
T = TypeVar("T")
U = TypeVar("U")


def depth() -> float:
    """1.0 under the `ci` profile, less under a lighter one."""
    return min(1.0, settings().max_examples / CI_EXAMPLES)


def race_seconds(full: float) -> float:
    """How long a race against another process runs: `full` under `ci`."""
    return max(1.0, full * depth())


def costly_cases() -> int:
    """How many cases a property test tries when each case starts a server of its own (about
    17 ms to build six tools, then its calls): a tenth of the profile's, 50 under `ci`."""
    return max(10, settings().max_examples // 10)


def cases(items: Sequence[T]) -> list[T]:
    """The cases a long comparison checks: all of them under `ci`, every third else."""
    return list(items) if depth() >= 1.0 else list(items[::3])


def crossed(first: Sequence[T], second: Sequence[U]) -> list[tuple[T, U]]:
    """Every pair of the two lists under `ci`; else a third of them, on diagonals, so that each
    item of either list is still checked, beside items of the other in turn (not always the
    first one, as every third pair in order would give)."""
    every = depth() >= 1.0
    return [(a, b) for i, a in enumerate(first) for j, b in enumerate(second) if every or (i + j) % 3 == 0]


def in_turn(items: Sequence[T], case: int) -> list[T]:
    """What one case of a long comparison checks of `items`, a third list beside the two
    `crossed` paired: all of them under `ci`; else one, the next in turn from case to case, so
    that every item is still checked (given at least as many cases as items)."""
    return list(items) if depth() >= 1.0 else [items[case % len(items)]]
