"""Worker processes that take shares of a pass over a large vault: one pool per `serve` or
`http` process, started only when a vault is large enough to gain, gone after a short idle
time, closed with the process.

A pool is no cache: a share is a plain function of what it is handed (paths, the call's
query and rules), and a worker keeps nothing of it — its result goes back and its arguments
are dropped before it takes the next share (tests/server/recall/finding/test_pool.py looks
for a note's words in a worker after a call).  Workers are started by 'spawn', the one start
method every platform has; never 'fork', unsafe beside the SDK's threads.

The calling thread takes the first share itself (the server's own process is one of the
cores), so on one core there is no pool at all.  Until a pool's first worker has started
(a spawned Python importing the recall code: about a third of a second here) calls run in
this process as they always did: the call that starts a pool never waits for it.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

from vault_recall.server.vault.listing import VaultListing

if TYPE_CHECKING:  # imported when a pool starts: a serve that never needs one never loads them
    from concurrent.futures import Future, ProcessPoolExecutor

S = TypeVar("S")
R = TypeVar("R")

# A share smaller than this costs more to hand over and merge than it saves (measured:
# docs/benchmarks.md, "A pool of workers").  The environment variable sets another, for
# tests and benchmarks of a `serve` over a small vault.
NOTES_PER_SHARE = 4000
SHARE_VARIABLE = "VAULT_RECALL_NOTES_PER_SHARE"
# Workers leave when no call has used them for this long: six idle clients' servers hold
# no more memory than without a pool.
IDLE_SECONDS = 30.0


def cores() -> int:
    """The cores this process may run on (os.process_cpu_count on 3.13; the affinity mask
    where there is one; else every core)."""
    counted = getattr(os, "process_cpu_count", None)
    if counted is not None:
        return max(1, counted() or 1)
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def shares_for(notes: int, available: int, per_share: int = NOTES_PER_SHARE) -> int:
    """How many shares a pass over `notes` notes is split in: one per core, no more than the
    notes fill, and 1 (no pool) below two shares' worth."""
    return max(1, min(available, notes // per_share))


def split(items: Sequence[S], shares: int) -> list[Sequence[S]]:
    """`items` in `shares` runs in their order, of sizes differing by at most one."""
    size, extra = divmod(len(items), shares)
    runs: list[Sequence[S]] = []
    at = 0
    for index in range(shares):
        end = at + size + (1 if index < extra else 0)
        runs.append(items[at:end])
        at = end
    return runs


def listing_shares(listing: VaultListing, shares: int) -> list[VaultListing]:
    """The listing as `shares` listings of runs of its notes, in order: what a pass over each
    in turn gives is what one pass over the whole gives.  The first holds what a pass gives
    before any note (unreadable folders, undecodable names)."""
    if shares < 2:
        return [listing]
    runs = split(listing.paths, shares)
    first = replace(listing, paths=tuple(runs[0]))
    rest = (replace(listing, paths=tuple(run), unreadable_folders=(), undecodable=()) for run in runs[1:])
    return [first, *rest]


def _leave_with_parent() -> None:
    """A worker's first act: a thread that ends the worker when the process that started it
    is gone, however it ended (killed, it never closes its pool) — the worker would otherwise
    wait for shares forever, holding the other end of its own queue.  It blocks on the
    parent's sentinel (a pipe on POSIX, a process handle on Windows): no waking up to look."""
    import multiprocessing
    from multiprocessing.connection import wait

    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="leave-with-parent", daemon=True).start()


def _ready() -> bool:
    """What a new worker is first asked: it answers once it has imported what a share needs."""
    return True


# What a worker runs: one share of a pass, with everything it imports.
RECALL_SHARES = "vault_recall.server.recall.answers.recall_shares"


def imported(module: str) -> bool:
    """A new worker's first task, as `warm`: import `module` — all a share needs — before the
    pool is used.  Named, not imported, by the process that opens the pool, which so imports
    none of the recall until its first call."""
    importlib.import_module(module)
    return True


class WorkerPool:
    """Up to `workers` spawned processes, started on the first share they could take and
    stopped after `idle` seconds without one (or by `close`)."""

    def __init__(self, workers: int, idle: float = IDLE_SECONDS, warm: Callable[[], object] = _ready) -> None:
        self.workers = workers
        self.idle = idle
        self._warm = warm
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None
        self._started: Future[object] | None = None
        self._busy = 0  # calls using the pool now
        self._last_used = 0.0
        self._timer: threading.Timer | None = None
        self._closed = False
        self.handed = 0  # shares workers have taken (tests and benchmarks read it)

    def run(self, share: Callable[[S], R], tasks: Sequence[S]) -> list[R]:
        """Every task's result, in order: the first taken by the calling thread, the others by
        workers — or all here, while the pool is starting (or cannot start)."""
        executor = self._take() if len(tasks) > 1 else None
        if executor is None:
            return [share(task) for task in tasks]
        from concurrent.futures.process import BrokenProcessPool

        try:
            futures: list[Future[R]] = []
            try:
                futures = [executor.submit(share, task) for task in tasks[1:]]
            except (BrokenProcessPool, RuntimeError):
                self._broken(executor)
                return [share(task) for task in tasks]
            try:
                results = [share(tasks[0])]
                for task, future in zip(tasks[1:], futures, strict=True):
                    try:
                        results.append(future.result())
                        self.handed += 1
                    except BrokenProcessPool:
                        self._broken(executor)
                        results.append(share(task))  # a worker died: its share again, here
            except BaseException:
                # This call failed (or its thread was stopped): shares not started never will be,
                # and those started end on their own — no worker waits on this call.
                for future in futures:
                    future.cancel()
                raise
            return results
        finally:
            self._give_back()

    def warm_up(self) -> bool:
        """Start the workers now and wait until they can take shares (tests, benchmarks):
        whether they can."""
        with self._lock:
            if self._executor is None and not self._closed:
                self._start()
            started = self._started
        if started is None:
            return False
        try:
            started.result()
        except Exception:  # a pool that cannot start is no pool: calls run here
            return False
        return True

    def in_worker(self, function: Callable[[S], R], argument: S) -> R | None:
        """`function(argument)` in a worker (tests: what a worker holds between calls); None
        when no worker is up."""
        with self._lock:
            executor = self._executor
        return None if executor is None else executor.submit(function, argument).result()

    @property
    def busy(self) -> int:
        """Calls using the workers now."""
        with self._lock:
            return self._busy

    @property
    def running(self) -> bool:
        """Whether workers are up (or starting)."""
        with self._lock:
            return self._executor is not None

    def pids(self) -> list[int]:
        """The workers' process ids (for tests and benchmarks)."""
        with self._lock:
            executor = self._executor
        processes = getattr(executor, "_processes", None) or {}
        return sorted(processes)

    def close(self) -> None:
        """Stop the workers (a share in progress finishes first) and start none again."""
        with self._lock:
            self._closed = True
            held, self._executor, self._started = self._executor, None, None
            if self._timer is not None:
                self._timer.cancel()
        if held is not None:
            box = [held]
            del held
            _ended(box)

    def _take(self) -> ProcessPoolExecutor | None:
        with self._lock:
            if self._closed:
                return None
            if self._executor is None:
                self._start()
                return None  # this call runs here; the next takes the pool once started
            assert self._started is not None
            if not self._started.done() or self._started.exception() is not None:
                return None
            self._busy += 1
            return self._executor

    def _start(self) -> None:
        from concurrent.futures import ProcessPoolExecutor
        from multiprocessing import get_context

        try:
            executor = ProcessPoolExecutor(
                self.workers, mp_context=get_context("spawn"), initializer=_leave_with_parent
            )
            self._started = executor.submit(self._warm)
        except (OSError, RuntimeError):
            return  # no process could be started: every call runs here, as on one core
        self._executor = executor
        _live(+1)
        self._last_used = time.monotonic()
        self._started.add_done_callback(self._touch)  # idle from when it could first be used
        self._arm()

    def _touch(self, _: object = None) -> None:
        with self._lock:
            self._last_used = time.monotonic()

    def _give_back(self) -> None:
        with self._lock:
            self._busy -= 1
        self._touch()

    def _arm(self) -> None:
        timer = threading.Timer(self.idle, self._maybe_stop)
        timer.daemon = True
        self._timer = timer
        timer.start()

    def _maybe_stop(self) -> None:
        with self._lock:
            if self._executor is None:
                return
            left = self._last_used + self.idle - time.monotonic()
            starting = self._started is not None and not self._started.done()
            if self._busy or starting or left > 0:
                self._timer = threading.Timer(max(left, 0.05), self._maybe_stop)
                self._timer.daemon = True
                self._timer.start()
                return
            held, self._executor, self._started = [self._executor], None, None
        _ended(held)

    def _broken(self, executor: ProcessPoolExecutor) -> None:
        """A worker died: this pool is done; a later call starts another."""
        with self._lock:
            if self._executor is not executor:
                return  # another call saw it first
            held, self._executor, self._started = [executor], None, None
        del executor
        _ended(held)


# Executors started and not yet wholly ended, over every pool of this process.
_executors = 0
_executors_lock = threading.Lock()


def _live(change: int) -> int:
    global _executors
    with _executors_lock:
        _executors += change
        return _executors


def _ended(held: list[ProcessPoolExecutor]) -> None:
    """Stop the executor `held` holds (its only reference: a share in progress finishes first)
    and, once no executor is left, the process multiprocessing starts beside spawned workers
    on POSIX to remove their semaphores should this process die (about 14 MB; the next pool
    starts it again) — only when no semaphore is left: it would remove those still in use."""
    import gc
    import multiprocessing.resource_tracker as tracker
    from multiprocessing.synchronize import SemLock

    executor = held.pop()
    executor.shutdown(wait=True, cancel_futures=True)
    del executor
    with _executors_lock:
        global _executors
        _executors -= 1
        if _executors:
            return
        gc.collect()  # the ended executors' queues, and the semaphores they hold
        if any(isinstance(thing, SemLock) for thing in gc.get_objects()):
            return  # still held somewhere (a call that saw its pool break): the next stop
        stop = getattr(getattr(tracker, "_resource_tracker", None), "_stop", None)
        if stop is not None:
            with contextlib.suppress(OSError, RuntimeError):  # already gone: nothing to stop
                stop()


_pool: WorkerPool | None = None
_pool_lock = threading.Lock()


def open_pool(workers: int | None = None, idle: float = IDLE_SECONDS, warm: Callable[[], object] = _ready) -> None:
    """Let this process's passes over large vaults use worker processes (`serve` and `http`
    call it once; without it every pass runs in the calling thread).  `workers`: at most
    this many (default: one fewer than the cores, the process taking one share itself)."""
    global _pool, NOTES_PER_SHARE
    count = cores() - 1 if workers is None else workers
    wanted = os.environ.get(SHARE_VARIABLE, "")
    if wanted.isdigit() and int(wanted) > 0:
        NOTES_PER_SHARE = int(wanted)
    with _pool_lock:
        if _pool is None and count > 0:
            _pool = WorkerPool(count, idle, warm)


def close_pool() -> None:
    global _pool
    with _pool_lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.close()


def use_pool(pool: WorkerPool | None) -> WorkerPool | None:
    """Make `pool` this process's pool (None: none), returning the one it was (benchmarks
    comparing a pass with and without one)."""
    global _pool
    with _pool_lock:
        before, _pool = _pool, pool
    return before


def run_shares(share: Callable[[S], R], notes: int, make: Callable[[int], Sequence[S]]) -> list[R]:
    """A pass over `notes` notes, as the results of `share` over the tasks `make(n)` splits it
    in: n is 1 (no pool, a small vault, or one core) or one per core the vault fills."""
    pool = _pool
    count = shares_for(notes, pool.workers + 1, NOTES_PER_SHARE) if pool is not None else 1
    tasks = make(count)
    if pool is None or len(tasks) < 2:
        return [share(task) for task in tasks]
    return pool.run(share, tasks)
