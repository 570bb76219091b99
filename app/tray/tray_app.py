"""The tray's life, whichever backend draws it: state, the action worker, the watcher, health.

A background thread polls cheap signs of change (the activity store's newest event id, the
config file's time, the vault folder's times, the files of the notes recalled in the last
day) once a second; health is re-checked on a thread
of its own every minute and whenever the vault changes, so neither a slow disk nor a big vault
ever blocks the menu.  Clicks only queue actions; the worker runs them.  Every change ends in
`refresh`, which rebuilds the menu model and hands it to the backend's `TrayView`.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from vault_recall.app.clients.install import InstallError
from vault_recall.app.desktop import notifications
from vault_recall.app.state.activity_view import Recall, latest_recalls, newest_event_id, recent_events
from vault_recall.app.state.health import HealthReport, check_health
from vault_recall.app.state.note_revisions import FileMark, NoteRef, file_mark, revisions_now, vault_folders
from vault_recall.app.tray import state as tray_state
from vault_recall.app.tray.actions import ActionContext, perform
from vault_recall.app.tray.approvals import ApprovalNotices, approval_action, read_approvals, with_approvals
from vault_recall.app.tray.changed_notes import (
    RECALL_WINDOW_SECONDS,
    ChangeNotices,
    StaleNote,
    notice_text,
    stale_notes,
    watched_notes,
)
from vault_recall.app.tray.endpoint import EndpointError, EndpointProcess, endpoint_action
from vault_recall.app.tray.menu import (
    Action,
    Item,
    TrayState,
    build_menu,
    client_name,
    note_name,
    status_of,
    tooltip,
)
from vault_recall.server.config.config_file import ConfigError, activity_path, config_path

log = logging.getLogger(__name__)

POLL_SECONDS = 1.0
# Health is re-checked when the vault's folder changes, when a recall reports another status,
# and otherwise every 30 checks' worth of time: 15 s for a small vault, up to 5 min for a huge one.
HEALTH_MIN_SECONDS, HEALTH_MAX_SECONDS, HEALTH_COST_FACTOR = 15.0, 300.0, 30.0
RECALL_MARK_SECONDS = 3.0
# The recalls of the last day are read again at least this often (and after every new event).
RECALLS_SECONDS = 60.0
# Set to a file path, the tray writes its current menu model there as JSON (tests, debugging).
MENU_DUMP_ENV = "VAULT_RECALL_TRAY_MENU_DUMP"


@dataclass(frozen=True)
class Shown:
    """Everything a backend draws: the icon's state, the tooltip and the menu model."""

    status: str  # ok | degraded | unavailable
    recalling: bool  # a client recalled a moment ago (the blue dot)
    tooltip: str
    items: tuple[Item, ...]


class TrayView(Protocol):
    """What a backend (pystray's, or our StatusNotifierItem) does for the tray."""

    def show(self, shown: Shown) -> None:
        """Draw `shown`; called from any thread."""

    def notify(self, message: str) -> bool:
        """Show a notification the backend's own way; False when it has none."""

    def run(self, started: Callable[[], None]) -> None:
        """Show the icon and block until `stop`; call `started` once it is up."""

    def stop(self) -> None:
        """End `run`; called from any thread."""


ViewFactory = Callable[[Callable[[Action], None]], TrayView]


def menu_as_data(items: tuple[Item, ...]) -> list[dict[str, Any]]:
    return [
        {
            "text": i.text,
            "action": list(i.action) if i.action else None,
            "checked": i.checked,
            "enabled": i.enabled,
            "submenu": menu_as_data(i.submenu) if i.submenu is not None else None,
        }
        for i in items
    ]


class TrayApp:
    """Three threads of ours touch it: the watcher (polls and refreshes), the action worker
    (runs actions, then refreshes) and the health check; the backend's thread only queues
    actions.  Gathering state reads files and happens outside the lock; only handing the
    result to the view is locked, so views see refreshes in order."""

    def __init__(self, make_view: ViewFactory) -> None:
        self._lock = threading.Lock()
        self._health: HealthReport | None = None
        self._checking = False
        self._stop = threading.Event()
        self._actions: queue.Queue[Action] = queue.Queue()
        self._last_event = newest_event_id(activity_path()) or 0
        self._recall_until = 0.0
        self._fingerprint: Any = None
        self._config_mtime: int | None = None
        self._next_health = 0.0
        # Notes recalled in the last day, watched for the person's edits (changed_notes.py).
        self._recalls: list[Recall] | None = None
        self._recalls_due = 0.0
        self._marks: dict[NoteRef, FileMark] = {}
        self._stale: list[StaleNote] = []
        self._notices = ChangeNotices()
        self.endpoint = EndpointProcess()  # the HTTP endpoint, when the person starts it here
        self._approvals = read_approvals()  # apps waiting for approval (OAuth), and grants
        self._approval_notices = ApprovalNotices()
        self._approval_notices.poll(self._notify, self._approvals.waiting)
        self.state = self._gather(None)
        self.view = make_view(self.dispatch)
        self.view.show(self._shown(self.state))

    # -- running ------------------------------------------------------------------------------

    def run(self) -> None:
        self.view.run(self._started)

    def _started(self) -> None:
        threading.Thread(target=self._watch, name="tray-watch", daemon=True).start()
        threading.Thread(target=self._work, name="tray-actions", daemon=True).start()

    def _watch(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            try:
                self._poll()
            except Exception:  # the thread's entry point: keep watching whatever happened
                log.exception("tray refresh failed")

    def _work(self) -> None:
        while not self._stop.is_set():
            action = self._actions.get()
            if action == ("quit",):
                self.endpoint.stop()
                return
            try:
                if not endpoint_action(action, self.endpoint, self._notify) and not approval_action(
                    action, self._notify
                ):
                    perform(action, ActionContext(self.state, self._notify, self.dispatch))
            except (ConfigError, InstallError, EndpointError, OSError) as exc:
                self._notify(str(exc))
                log.warning("%s: %s", action[0], exc)
            except Exception:  # the thread's entry point: the next click must still work
                log.exception("tray action %s failed", action[0])
            if not self._stop.is_set():
                self.refresh()

    def _poll(self) -> None:
        changed = False
        newest = newest_event_id(activity_path())
        recalled = False
        if newest is not None and newest != self._last_event:  # None: the store is busy, not empty
            self._on_recalls(newest)
            changed = recalled = True
        if self._watch_recalled_notes(recalled):
            changed = True
        try:
            mtime: int | None = config_path().stat().st_mtime_ns
        except OSError:
            mtime = None
        if mtime != self._config_mtime:
            self._config_mtime = mtime
            self._next_health = 0.0  # the active vault may have changed:
            self.refresh()  # read it now, so the health check below is for the right one
        vault = tray_state.active_vault_path(self.state.config)
        fingerprint = tray_state.vault_fingerprint(vault)
        if fingerprint != self._fingerprint:
            self._fingerprint = fingerprint
            self._next_health = 0.0
        if time.monotonic() >= self._next_health and not self._checking:
            self._start_health_check(vault)
        approvals = read_approvals()
        if self._approval_notices.poll(self._notify, approvals.waiting) or approvals != self._approvals:
            self._approvals = approvals
            changed = True
        if self._recall_until and time.monotonic() > self._recall_until:
            self._recall_until = 0.0
            changed = True
        if changed:
            self.refresh()

    def _on_recalls(self, newest: int) -> None:
        after = self._last_event if newest > self._last_event else 0  # a recreated store starts over
        events = recent_events(activity_path(), limit=50, after_id=after)
        self._last_event = newest
        if self._health is not None and any(e.status not in (None, "error", self._health.status) for e in events):
            self._next_health = 0.0  # a server just saw the vault differently: look again now
        fresh = [e for e in events if e.returned]
        if not fresh:
            return
        self._recall_until = time.monotonic() + RECALL_MARK_SECONDS
        if self.state.notify_recall:
            latest = fresh[-1]
            self._notify(f"{client_name(latest.client)} recalled {note_name(latest.returned[0])}")

    def _watch_recalled_notes(self, recalled: bool) -> bool:
        """Look at the notes recalled in the last day (their files' times, sizes; read only when
        those change) and tell the person when one changed that clients were given before.
        True when the menu's marks may have changed."""
        now = time.time()
        first = self._recalls is None
        fresh = False
        if recalled or self._recalls is None or time.monotonic() >= self._recalls_due:
            recalls = latest_recalls(activity_path(), since=now - RECALL_WINDOW_SECONDS)
            fresh = recalls != self._recalls
            self._recalls = recalls
            self._recalls_due = time.monotonic() + RECALLS_SECONDS
        folders = vault_folders(self.state.config, self.state.known_vaults)
        refs = [ref for ref in watched_notes(self._recalls or []) if ref[0] in folders]
        marks = {ref: file_mark(folders[ref[0]], ref[1]) for ref in refs}
        touched = marks != self._marks
        if touched or fresh:
            self._marks = marks
            self._stale = stale_notes(self._recalls or [], revisions_now(refs, folders))
            if first:
                self._notices.prime(self._stale)  # changed before the tray watched: not news
        for note in self._notices.due(self._stale, now):
            if self.state.notify_changed:
                self._notify(notice_text(note, now))
        return touched

    def _start_health_check(self, vault: Path | None) -> None:
        self._checking = True
        self._next_health = time.monotonic() + HEALTH_MAX_SECONDS

        def check() -> None:
            try:
                started = time.monotonic()
                report = check_health(vault, "no vault is chosen yet")
                cost = time.monotonic() - started
                if self._next_health:  # 0 means a change asked for another look meanwhile: keep it
                    self._next_health = time.monotonic() + min(
                        HEALTH_MAX_SECONDS, max(HEALTH_MIN_SECONDS, HEALTH_COST_FACTOR * cost)
                    )
                before = self._health
                if vault != tray_state.current_vault_path():
                    self._next_health = 0.0  # the vault changed meanwhile: check the new one
                    return
                self._health = report
                same_vault = before is not None and before.path == report.path
                if same_vault and before.status != report.status and self.state.notify_health:  # type: ignore[union-attr]
                    self._notify(report.summary(self.state.config.active_vault))
                self.refresh()
            except Exception:  # the thread's entry point
                log.exception("health check failed")
            finally:
                self._checking = False

        threading.Thread(target=check, name="tray-health", daemon=True).start()

    def refresh(self) -> None:
        """Rebuild state, menu, icon and tooltip from fresh data."""
        state = self._gather(self._health)
        if state.health is None and self._health is not None:
            self._next_health = 0.0  # the report was about another vault: check this one
        shown = self._shown(state)
        with self._lock:
            self.state = state
            self.view.show(shown)

    def _gather(self, health: HealthReport | None) -> TrayState:
        return dataclasses.replace(tray_state.gather(health), endpoint_url=self.endpoint.url)

    def _shown(self, state: TrayState) -> Shown:
        items = with_approvals(build_menu(state), self._approvals)
        dump = os.environ.get(MENU_DUMP_ENV)
        if dump:
            temp = dump + ".tmp"
            Path(temp).write_text(json.dumps(menu_as_data(items), ensure_ascii=False), encoding="utf-8")
            os.replace(temp, dump)
        return Shown(status_of(state), bool(self._recall_until), tooltip(state), items)

    def _notify(self, message: str) -> None:
        """The desktop's notification service where there is one (Linux), else the backend's."""
        if not notifications.notify(message) and not self.view.notify(message):
            log.info("no way to show a notification here: %s", message)

    # -- actions ------------------------------------------------------------------------------

    def dispatch(self, action: Action) -> None:
        """Called on the backend's thread: hand the action to the worker so no click waits on a
        disk.  Quit ends the tray at once."""
        if action == ("quit",):
            self._stop.set()
            self._actions.put(action)  # wakes the worker so it can end
            self.view.stop()
            return
        self._actions.put(action)
