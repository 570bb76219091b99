"""The pool of worker processes a pass over a large vault is split over (finding/pool.py): the
same answers in the same order (recall and list_subjects), nothing kept in a worker between calls, no pool on one core,
and a pool that outlives failed, stopped and concurrent calls and leaves when idle."""

from __future__ import annotations

import os
import pickle
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TypeVar

import pytest

from tests.support import pool_probe
from tests.support.synthetic_vault import generate
from tests.support.tricky_notes import TRICKY
from tests.support.vaults import write_vault
from vault_recall.server.recall.answers.recall_records import recall_activity, recall_context
from vault_recall.server.recall.answers.subjects import list_subjects
from vault_recall.server.recall.finding import pool
from vault_recall.server.recall.scope import Exposure, ExposureMode, Scope
from vault_recall.server.recall.tool_declarations import MatchMode
from vault_recall.server.vault.listing import list_notes

S = TypeVar("S")
R = TypeVar("R")

SECRET_WORD = "zyxqwordinnote"  # in a note's text, never asked
SECRET_NAME = "Qzvx private name"  # a note's name
# (query, match): a word most notes hold, a word few hold, a misspelling (respelt: a second
# pass), several words, match="all", and no query (newest first).
ASKED: list[tuple[str | None, MatchMode]] = [
    ("cache", "any"),
    ("000123", "any"),
    ("kubernets rollbak", "any"),
    ("decision about the release process", "any"),
    ("cache deploy", "all"),
    ("plumbago", "any"),
    (None, "any"),
]


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pool") / "v"
    generate(root, 300, seed=5, invalid=9)
    write_vault(root / "Tricky", TRICKY)
    (root / f"{SECRET_NAME}.md").write_text(f"# Plumbago\n\nThe plumbago {SECRET_WORD} decision.\n", "utf-8")
    return root


def scope(vault: Path, mode: ExposureMode = "vault") -> Scope:
    return Scope(client="t", vault=vault, exposure=Exposure(mode=mode))


def answers(vault: Path) -> list[object]:
    """Every kind of recall the pass serves, over the whole vault and by subject."""
    found: list[object] = []
    for mode in ("vault", "records"):
        for query, match in ASKED:
            found.append(recall_context(scope(vault, mode), None, query, budget=8192, limit=10, match=match))
    found.append(recall_context(scope(vault, "records"), "build-system", "cache", limit=10))
    found.append(recall_context(scope(vault, "records"), "security", None, limit=10))
    found.append(recall_activity(scope(vault, "records"), "billing", None, "release", limit=20))
    found.append(list_subjects(scope(vault, "records")))
    found.append(list_subjects(scope(vault, "vault")))
    return found


@pytest.fixture(scope="module")
def alone(vault: Path) -> list[object]:
    """The answers without a pool."""
    assert pool._pool is None
    return answers(vault)


class InThisThread:
    """A stand-in for a pool of `workers`: each share after the first is pickled there and
    back, as a worker process is handed it and answers, but run here."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.shares = 0

    def run(self, share: Callable[[S], R], tasks: Sequence[S]) -> list[R]:
        self.shares += len(tasks)
        first = share(tasks[0])
        rest = [pickle.loads(pickle.dumps(share(pickle.loads(pickle.dumps(task))))) for task in tasks[1:]]
        return [first, *rest]


@pytest.fixture
def small_shares(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pool, "NOTES_PER_SHARE", 37)


@pytest.mark.parametrize("workers", [1, 2, 6])
def test_a_pass_in_shares_answers_as_one_pass(
    vault: Path, alone: list[object], workers: int, small_shares: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand_in = InThisThread(workers)
    monkeypatch.setattr(pool, "_pool", stand_in)
    assert answers(vault) == alone
    assert stand_in.shares > len(alone)  # every pass was split


@pytest.fixture(scope="module")
def workers() -> Iterator[pool.WorkerPool]:
    """A real pool of one spawned worker, started before the tests use it."""
    started = pool.WorkerPool(1, idle=600, warm=partial(pool.imported, pool.RECALL_SHARES))
    assert started.warm_up()
    yield started
    started.close()


@pytest.fixture
def in_use(workers: pool.WorkerPool) -> Iterator[pool.WorkerPool]:
    before = pool.use_pool(workers)
    yield workers
    pool.use_pool(before)


def test_a_pass_over_worker_processes_answers_as_one_pass(
    vault: Path, alone: list[object], in_use: pool.WorkerPool, small_shares: None
) -> None:
    handed = in_use.handed
    assert answers(vault) == alone
    assert in_use.handed > handed  # the worker took shares


def test_a_worker_keeps_nothing_of_a_call(
    vault: Path, alone: list[object], in_use: pool.WorkerPool, small_shares: None
) -> None:
    handed = in_use.handed
    listing = list_notes(vault)
    assert f"{SECRET_NAME}.md" in pool.listing_shares(listing, pool.shares_for(len(listing.paths), 2, 37))[-1].paths
    answered = recall_context(scope(vault), None, "plumbago", limit=3)
    assert in_use.handed > handed
    assert answered["records"], answered  # the note was read, in the worker's share
    assert in_use.in_worker(pool_probe.held_text, SECRET_WORD) == []
    assert in_use.in_worker(pool_probe.held_text, SECRET_NAME) == []


def test_calls_at_once_share_the_pool(
    vault: Path, alone: list[object], in_use: pool.WorkerPool, small_shares: None
) -> None:
    results: dict[int, object] = {}

    def ask(index: int) -> None:
        query, match = ASKED[index % len(ASKED)]
        results[index] = recall_context(scope(vault), None, query, budget=8192, limit=10, match=match)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [results[i] for i in range(6)] == [alone[i % len(ASKED)] for i in range(6)]
    assert in_use.busy == 0


def test_a_call_stopped_mid_pass_leaves_no_worker_busy(workers: pool.WorkerPool) -> None:
    me = os.getpid()
    with pytest.raises(KeyboardInterrupt):
        workers.run(pool_probe.fail_here, [(me, 1), (me, 2), (me, 3), (me, 4)])
    assert workers.busy == 0
    # The worker answers the next call: nothing of the stopped one holds it.
    assert workers.run(pool_probe.doubled, [1, 2, 3]) == [2, 4, 6]
    assert workers.in_worker(pool_probe.doubled, 5) == 10


def test_a_worker_that_dies_costs_only_its_share(tmp_path: Path) -> None:
    me = os.getpid()
    dying = pool.WorkerPool(1, idle=600)
    try:
        assert dying.warm_up()
        assert dying.run(pool_probe.die_in_worker, [(me, 1), (me, 2), (me, 3)]) == [2, 4, 6]  # done here
        assert not dying.running  # that pool is gone; the next call starts another
        assert dying.run(pool_probe.doubled, [1, 2]) == [2, 4]  # here, while it starts
        assert dying.warm_up()
        assert dying.run(pool_probe.doubled, [1, 2]) == [2, 4]
    finally:
        dying.close()


def wait_for(condition: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds  # a bound on a hang, not a timing assertion
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.02)


def gone(pid: int) -> bool:
    """Whether process `pid` has ended (the pool joins its workers as they stop)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_workers_leave_when_idle_and_come_back_when_needed() -> None:
    idle = pool.WorkerPool(1, idle=0.2)
    try:
        assert idle.warm_up()
        pids = idle.pids()
        assert pids
        assert idle.run(pool_probe.doubled, [1, 2]) == [2, 4]
        wait_for(lambda: not idle.running, "the idle pool stopped")
        wait_for(lambda: all(gone(pid) for pid in pids), "its workers left")
        assert idle.run(pool_probe.doubled, [3, 4]) == [6, 8]  # here, while a new one starts
        assert idle.warm_up()
        assert idle.in_worker(pool_probe.pid, None) not in pids
    finally:
        idle.close()


def test_one_core_has_no_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pool, "cores", lambda: 1)
    monkeypatch.setattr(pool, "_pool", None)
    pool.open_pool()
    assert pool._pool is None
    assert pool.shares_for(1_000_000, pool.cores()) == 1


def test_shares_are_sized_to_the_cores_and_the_vault() -> None:
    assert pool.shares_for(7_999, 2, 4_000) == 1  # less than two shares' worth: no pool
    assert pool.shares_for(8_000, 2, 4_000) == 2
    assert pool.shares_for(1_000_000, 2, 4_000) == 2  # one share per core, the caller's included
    assert pool.shares_for(12_000, 8, 4_000) == 3


def test_a_listing_in_shares_keeps_its_order(vault: Path) -> None:
    listing = list_notes(vault)
    marked = replace(listing, unreadable_folders=("Locked",), undecodable=("b\\xff.md",))
    parts = pool.listing_shares(marked, 4)
    assert [path for part in parts for path in part.paths] == list(listing.paths)
    sizes = [len(part.paths) for part in parts]
    assert max(sizes) - min(sizes) <= 1
    assert parts[0].unreadable_folders == ("Locked",) and parts[0].undecodable == ("b\\xff.md",)
    assert all(not part.unreadable_folders and not part.undecodable for part in parts[1:])
    assert pool.listing_shares(listing, 1) == [listing]


def test_the_process_pool_is_one_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pool, "cores", lambda: 4)
    monkeypatch.setattr(pool, "_pool", None)
    pool.open_pool()
    first = pool._pool
    pool.open_pool()
    assert first is not None and pool._pool is first and first.workers == 3
    pool.close_pool()
    assert pool._pool is None and not first.running
