"""`serve`'s start-up: the collector paused while the SDK loads, what was made frozen after."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from vault_recall.server.mcp.serve import collector_paused


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()  # what the test froze goes back to the collector
    if enabled:
        gc.enable()


def test_start_up_runs_without_the_collector_and_freezes_what_it_made() -> None:
    frozen = gc.get_freeze_count()
    with collector_paused():
        assert not gc.isenabled()
        made: list[list[int]] = [[] for _ in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen + len(made)


def test_the_collector_comes_back_when_start_up_fails() -> None:
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("the SDK did not load")
    assert gc.isenabled()


def test_a_collector_paused_before_stays_paused() -> None:
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()
