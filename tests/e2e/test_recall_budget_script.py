"""bench.recall_budget on the hand-written holdout vault: its counts hold together (never
asserted as figures: those are for the benchmark run)."""

from __future__ import annotations

import pytest

from bench import recall_budget

pytestmark = [pytest.mark.e2e]


def test_the_counts_of_one_vault_hold_together() -> None:
    small = recall_budget.hand_written("holdout", 512)
    assert small.asked > 0
    assert 0 <= small.lost_named <= small.lost <= small.asked
    assert small.lost_one_record <= min(small.lost, small.one_record)
    assert len(small.examples) == min(small.lost, 5)
    roomy = recall_budget.hand_written("holdout", recall_budget.LARGEST)
    assert (roomy.asked, roomy.lost) == (small.asked, 0)  # the largest budget loses nothing
    assert recall_budget.HEADER.split()[0] == "vault" and small.line().startswith("holdout")


def test_the_shares_of_answers_carrying_text_hold_together() -> None:
    names = []
    for name, asks in recall_budget.hand_written_asks("holdout"):  # the vault is there while asked
        names.append(name)
        found = recall_budget.shares(asks[:20], [1024, recall_budget.LARGEST])
        small, roomy = found[1024], found[recall_budget.LARGEST]
        assert 0 < small.answered == roomy.answered <= 20
        assert 0 <= small.all_text <= small.first_text <= small.answered
        assert roomy.first_text == roomy.all_text == roomy.answered  # the largest budget holds every text
        assert small.text <= roomy.text and small.cells().count("%") == 3
    assert names == ["holdout"]
