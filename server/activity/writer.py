"""The activity store's writer: each server process appends one event per call, on a thread of
its own, so a locked or slow store never delays a call.

A writer keeps its connection while the store file is the same one, and opens it again when the
file was deleted or replaced, so a store removed while servers run is simply created again.
Nothing here may fail a tool call: every problem is logged to stderr and the call answers as
if the store were not there.  `record_activity` is what a call hands its event over with.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_recall.server import defaults
from vault_recall.server.activity.database import connect
from vault_recall.server.activity.events import ActivityEvent, event_from_result
from vault_recall.server.activity.queries import insert, prune
from vault_recall.server.errors import ActivityStoreError, ConfigError

if TYPE_CHECKING:  # the store is told who called; it needs no part of the config to be
    from vault_recall.server.config.call_scope import ServeOptions
    from vault_recall.server.config.config_file import ActivitySettings

log = logging.getLogger(__name__)

PRUNE_EVERY = 100  # events written by one process between two prunes


@dataclass(frozen=True)
class Call:
    """One tool call as the activity store is told of it: who asked, what, and what came of it."""

    options: ServeOptions
    tool: str
    arguments: dict[str, Any]
    result: dict[str, Any] | None  # the structured result; None for a refused call
    error: str | None
    started: float  # time.perf_counter() when the call began
    client_info: tuple[str | None, str | None]  # name and version the client reported
    # How the event is kept, from the config the call itself read (None: read it now).
    settings: ActivitySettings | None = None


def record_activity(writer: ActivityWriter, call: Call) -> None:
    """Hand one call's event to the writer (a call refused before it had a result is logged
    with the vault it would have read)."""
    settings = call.settings if call.settings is not None else activity_settings()
    vault = _vault_of(call.options) if call.result is None else None
    event = event_from_result(
        client=call.options.client,
        tool=call.tool,
        arguments=call.arguments,
        result=call.result,
        error=call.error,
        started=call.started,
        client_info=call.client_info,
        keep_query_text=settings.keep_query_text,
        vault=vault,
    )
    from vault_recall.server.config.config_file import activity_path

    writer.submit(activity_path(), event, settings.retention_days, settings.max_events)


def activity_settings() -> ActivitySettings:
    # The config reader (and YAML) loads on a call's first event, not to answer `initialize`.
    from vault_recall.server.config.config_file import ActivitySettings, load_config

    try:
        return load_config().activity
    except ConfigError:
        return ActivitySettings()  # the call already reports the broken config; log anyway


def _vault_of(options: ServeOptions) -> str | None:
    """The vault a call for these options reads now, by name (None when there is none)."""
    from vault_recall.server.config.call_scope import current_scope
    from vault_recall.server.vault.listing import vault_name

    vault = current_scope(options).vault
    return vault_name(vault) if vault is not None else None


class ActivityWriter:
    """Appends the events of one server process, on a thread of its own: a tool call hands its
    event over and answers at once, so a locked or slow store never delays a call.  Never raises.

    The connection stays open between events (closing the last connection to a WAL database
    checkpoints it, which costs more than the insert), but before each event the store's file
    identity is checked: a store deleted or replaced meanwhile is opened afresh.
    """

    QUEUE_LIMIT = 10_000  # events waiting; past it new ones are dropped (and said so)

    def __init__(self) -> None:
        self.written = 0
        self._connection: sqlite3.Connection | None = None
        self._identity: tuple[str, int, int] | None = None
        self._queue: queue.Queue[tuple[Path, ActivityEvent, int, int] | None] = queue.Queue(self.QUEUE_LIMIT)
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._last_warning: str | None = None

    def submit(
        self,
        path: Path,
        event: ActivityEvent,
        retention_days: int = defaults.RETENTION_DAYS,
        max_events: int = defaults.MAX_EVENTS,
    ) -> None:
        """Queue one event for the writer thread (started on first use)."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="activity-writer", daemon=True)
                self._thread.start()
        try:
            self._queue.put_nowait((path, event, retention_days, max_events))
        except queue.Full:
            log.warning("activity not recorded: %d events are already waiting for the store", self.QUEUE_LIMIT)

    def _warn(self, message: str) -> None:
        # Once per problem, not once per call: a store that cannot be opened stays so for a
        # while, and every client shows its server's stderr in its logs.
        if message != self._last_warning:
            log.warning("%s", message)
            self._last_warning = message

    def __enter__(self) -> ActivityWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self, timeout: float = 5.0) -> None:
        """Write what is queued (waiting at most `timeout` seconds in all), then stop the thread.

        Also called from a signal handler (serve.py), so it never waits longer than `timeout`,
        even when the queue is full or the store is locked.
        """
        deadline = time.monotonic() + timeout
        thread = self._thread  # read without the lock: a signal may arrive while it is held
        if thread is not None:
            # Full: the thread is still writing; what it cannot write in time is lost.
            with contextlib.suppress(queue.Full):
                self._queue.put(None, timeout=max(0.0, deadline - time.monotonic()))
            thread.join(max(0.0, deadline - time.monotonic()))
        else:
            self._disconnect()  # events were appended directly, on this thread

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            try:
                self.append(*item)
            except Exception:  # the thread's entry point: one bad event must not stop the rest
                log.exception("activity not recorded: unexpected error")
        self._disconnect()  # SQLite connections belong to the thread that opened them

    def append(
        self,
        path: Path,
        event: ActivityEvent,
        retention_days: int = defaults.RETENTION_DAYS,
        max_events: int = defaults.MAX_EVENTS,
    ) -> bool:
        """Store one event now; False (and a line on stderr) when the store cannot take it."""
        try:
            connection = self._open(path)
        except (sqlite3.Error, OSError, ValueError, ActivityStoreError) as exc:
            self._warn(f"activity not recorded: cannot open {path}: {exc}")
            return False
        try:
            insert(connection, event)
            self.written += 1
            self._last_warning = None
            if self.written % PRUNE_EVERY == 1:
                prune(connection, retention_days, max_events)
            return True
        except (sqlite3.Error, ValueError) as exc:  # ValueError: text SQLite cannot store
            self._warn(f"activity not recorded in {path}: {exc}")
            self._disconnect()
            return False

    def _open(self, path: Path) -> sqlite3.Connection:
        if self._connection is not None and self._identity == _identity(path):
            return self._connection
        self._disconnect()
        self._connection = connect(path)
        self._identity = _identity(path)
        return self._connection

    def _disconnect(self) -> None:
        if self._connection is not None:
            self._connection.close()
        self._connection = None
        self._identity = None


def _identity(path: Path) -> tuple[str, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (str(path), st.st_dev, st.st_ino)
