"""The tray's life, whichever backend draws it: state, the action worker, the watcher, health,
and the view itself, which changes when the panels do.

A background thread, the watcher, sleeps until a store it reads or the vault is written, or
something of its own is due (wakeups.py); a recall is what is new in the activity store, in
one query.  Health is re-checked on a thread of its own when the vault changes and otherwise
now and then (health_schedule.py), so neither a slow disk nor a big vault ever blocks the
menu.  Clicks only queue actions; the worker runs them.  Every change ends in `refresh`,
which rebuilds the menu model and hands it to the backend's `TrayView`.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import queue
import sys
import threading
import time
from pathlib import Path

from vault_recall.app.app_errors import EndpointError, InstallError, RuleChangeError
from vault_recall.app.clients.catalogue import CLIENTS
from vault_recall.app.desktop import notifications
from vault_recall.app.desktop.store_watch import LookAgain
from vault_recall.app.desktop.tray_hosts import Hosts, HostWatch
from vault_recall.app.state.health import HealthReport, check_health
from vault_recall.app.state.note_revisions import (
    within_reach,
)
from vault_recall.app.tray.actions.perform import ActionContext, perform
from vault_recall.app.tray.endpoint.app_grants import ApprovalsWatch, approval_action, with_approvals
from vault_recall.app.tray.endpoint.process import EndpointProcess, endpoint_action
from vault_recall.app.tray.endpoint.status_items import with_endpoint
from vault_recall.app.tray.installed import InstalledClients
from vault_recall.app.tray.menu import snapshot as tray_state
from vault_recall.app.tray.menu.items import TrayState
from vault_recall.app.tray.menu.tree import Action, build_menu, recall_notice, status_of, tooltip
from vault_recall.app.tray.news.recalled_watch import RecalledNotesWatch
from vault_recall.app.tray.news.vault_health import health_news, switched_news
from vault_recall.app.tray.notices import as_sentence, failure_summary
from vault_recall.app.tray.running import instance
from vault_recall.app.tray.running.health_schedule import HealthSchedule, saw_otherwise
from vault_recall.app.tray.running.wakeups import VaultWatch, Wakeups, seconds_until
from vault_recall.app.tray.views.panels import Backend, HostFollower, gtk_available
from vault_recall.app.tray.views.protocol import Shown, ViewFactory, dump_menu
from vault_recall.server.activity.event_rows import EventRow
from vault_recall.server.activity.queries import newest_event_id, news_after
from vault_recall.server.config.config_file import activity_path, config_path
from vault_recall.server.errors import ConfigError
from vault_recall.server.oauth.store import store_path as oauth_store_path
from vault_recall.server.vault.listing import vault_name

log = logging.getLogger(__name__)

POLL_SECONDS = 1.0  # how often a watch looks where the kernel cannot tell it (no inotify)
# The recalled notes' files are looked at when the vault's folders change, on a recall, and this
# often besides (notes recalled from a vault other than the active one).
RECALLED_SECONDS = 30.0
EVERYTHING = frozenset({"activity", "oauth", "config", "request", "tree"})  # the first look's
NEWS_LIMIT = 50  # the events one look reads at most (notifications name the latest)
RECALL_MARK_SECONDS = 3.0
# Set to a file path, the tray writes its current menu model there as JSON (tests, debugging).
MENU_DUMP_ENV = "VAULT_RECALL_TRAY_MENU_DUMP"


class TrayApp:
    """Three threads of ours touch it: the watcher (polls and refreshes), the action worker
    (runs actions, then refreshes) and the health check; the backend's thread only queues
    actions.  Refreshes run one at a time (`_refreshing`), so the menu last shown is the one
    gathered last; gathering reads files outside `_lock`, which only guards the view and the
    state handed to it."""

    def __init__(self, make_view: ViewFactory, backend: Backend, *, follow: bool = False) -> None:
        self._lock = threading.Lock()
        self._refreshing = threading.Lock()  # held over a whole refresh, gathering included
        self._make_view = make_view
        # Following the panels (Linux, backend chosen by us): which hosts there are, from
        # HostWatch's thread, and the backend to move to once the view has stopped.
        self._follower = HostFollower(backend, gtk_available) if follow else None
        self._hosts = HostWatch(self._on_hosts) if follow else None
        self._backend = backend
        self._next_backend: Backend | None = None
        self._view_up = False  # the view running now has shown the icon
        self._threads_started = False
        self._health = HealthSchedule()
        self._suggested: tray_state.Suggested | None = None
        self._stop = threading.Event()
        self._actions: queue.Queue[Action] = queue.Queue()
        # The newest event already there: what came before the tray is no news.  None when the
        # store is busy right now: the first look then takes as news only what came since this.
        self._last_event: int | None = newest_event_id(activity_path())
        self._since = time.time()
        self._wake = Wakeups()
        self._recalled_due = 0.0  # monotonic time of the next look at the recalled notes' files
        self._recall_until = 0.0
        self._vault = VaultWatch()  # the config file and the active vault's folders
        self._installed = InstalledClients()
        self._recalled = RecalledNotesWatch()  # the notes recalled in the last day
        # The HTTP endpoint, when the person starts it here; told and started again if it ends.
        self.endpoint = EndpointProcess(notify=self._notify, on_change=self.refresh)
        self._approvals = ApprovalsWatch(self._notify)  # apps waiting for approval (OAuth), and grants
        self.state = self._gather(None)
        self.view = make_view(backend, self.dispatch)
        self.view.show(self._shown(self.state))

    # -- running ------------------------------------------------------------------------------

    def run(self) -> None:
        """Run the view until Quit; when the panels call for another backend, the view stops
        and the next one takes over, in this process (the endpoint, the health and the
        notices carry on).  A backend that cannot run here after all sends the tray back to
        the one it left, for good."""
        untried_from: Backend | None = None  # the backend left, while the one moved to is untried
        error = self._run_view()
        while True:
            if error is not None:
                if untried_from is None or self._follower is None:
                    raise error
                log.error(
                    "the tray could not use the %s backend (%s); it stays with %s", self._backend, error, untried_from
                )
                self._follower.gtk = lambda: False
                self._follower.moved(untried_from)
                self._next_backend, untried_from = untried_from, None
            backend, self._next_backend = self._next_backend, None
            if backend is None or self._stop.is_set():
                break
            if error is None:
                untried_from = self._backend
            self._backend = backend
            error = self._open(backend) or self._run_view()
        if self._hosts is not None:
            self._hosts.stop()

    def _open(self, backend: Backend) -> Exception | None:
        try:
            view = self._make_view(backend, self.dispatch)
        except Exception as exc:  # pystray's GTK backend without PyGObject, say
            return exc
        with self._lock:
            self.view = view
            view.show(self._shown(self.state))
        log.info("the tray moved to the %s backend for the panels here now", backend)
        return None

    def _run_view(self) -> Exception | None:
        """Run the view until it stops; what kept it from showing the icon, if anything."""
        self._view_up = False
        try:
            self.view.run(self._started)
        except Exception as exc:
            if not (self._view_up and self._next_backend is not None):
                return exc
            # It ran, and failed only as it stopped for a move (pystray's GTK backend closes
            # its last notification then): the move goes on.
            log.warning("the %s view did not stop cleanly", self._backend, exc_info=True)
        return None

    def _started(self) -> None:
        self._view_up = True
        if self._threads_started:
            return
        self._threads_started = True
        threading.Thread(target=self._watch, name="tray-watch", daemon=True).start()
        threading.Thread(target=self._work, name="tray-actions", daemon=True).start()
        if self._hosts is not None:
            self._hosts.start()
        self.dispatch(("endpoint", "start_with_tray"))  # if the person left it running (endpoint/process.py)

    def _on_hosts(self, hosts: Hosts) -> None:
        """On HostWatch's thread: the panels changed (the watcher decides what to do)."""
        if self._follower is not None:
            with self._lock:
                self._follower.seen(hosts, time.monotonic())
            self._wake.wake("hosts")

    def _follow_panels(self) -> None:
        """Move to the backend the panels call for, or say that none shows the icon."""
        if self._follower is None or self._next_backend is not None:
            return
        now = time.monotonic()
        with self._lock:
            backend = self._follower.switch_to(now)
            missing = self._follower.missing(now)
            if backend is not None:
                self._follower.moved(backend)
                self._next_backend = backend
        if backend is not None:
            self.view.stop()
        if missing is not None:
            print(f"vault-recall: {missing}", file=sys.stderr, flush=True)
            self._notify("Vault Recall's icon has no panel to show in", as_sentence(missing))

    def _watch(self) -> None:
        """Sleep until a store the tray reads is written, the vault's folders change, or
        something is due; then look at what woke it."""
        watched = {"activity": activity_path(), "oauth": oauth_store_path(), "config": config_path()}
        for name, path in (watched | {"request": instance.request_path()}).items():
            self._wake.watch(name, path, POLL_SECONDS)
        again = LookAgain(POLL_SECONDS)
        woken = EVERYTHING
        try:
            while not self._stop.is_set():
                try:
                    if "activity" in woken or again.due():
                        again.looked("activity" in woken, self._hear())
                    self._poll(woken)
                except Exception:  # the thread's entry point: keep watching whatever happened
                    log.exception("tray refresh failed")
                woken, folders = self._wake.wait(self._until_due(again), self._vault.fileno())
                woken |= {"tree"} if folders else set()
        finally:
            self._wake.close()

    def _until_due(self, again: LookAgain) -> float:
        """Seconds until the next thing of the tray's own is due."""
        now, follower = time.monotonic(), self._follower if self._next_backend is None else None
        times = (
            self._recalled_due,
            self._approvals.due_at(),
            again.at,
            self._health.due_at(),
            self._recall_until or None,
        )
        return seconds_until((*times, follower.due_at() if follower else None, self._vault.due_at(now)), now)

    def _hear(self) -> bool | None:
        """A server wrote the store: what is new, in one query, then the menu.  True when there
        was news, False when there was none (yet), None when the store was busy."""
        news = news_after(activity_path(), self._last_event or 0, limit=NEWS_LIMIT)
        if news is None:
            return None
        if news.newest == self._last_event:
            return False
        events = news.events
        if self._last_event is None:  # busy as the tray started: only what came since is news
            events = [e for e in events if e.ts >= self._since]
        self._last_event = news.newest
        self._on_recalls(events)
        self._recalled.look(self.state, True, self._notify, self._health_tells)
        self.refresh()
        return True

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
            except (ConfigError, InstallError, EndpointError, RuleChangeError, OSError) as exc:
                self._notify(failure_summary(action[0]), as_sentence(str(exc)))
                log.warning("%s: %s", action[0], exc)
            except Exception:  # the thread's entry point: the next click must still work
                log.exception("tray action %s failed", action[0])
            if not self._stop.is_set():
                self.refresh()

    def _poll(self, woken: frozenset[str]) -> None:
        """Look at what woke the watcher (`woken`: the watches' names), and at what is due."""
        now = time.monotonic()
        self._follow_panels()
        request = instance.take_request() if "request" in woken else None
        if request == "quit":  # `vault-recall quit`
            self.dispatch(("quit",))
            return
        if request == "show":  # a second `vault-recall` started: say where this one is
            self._notify("Vault Recall is already running", "Its icon is in the panel; click it for the menu.")
        changed = False
        if "tree" in woken or now >= self._recalled_due:
            self._recalled_due = now + RECALLED_SECONDS
            changed = self._recalled.look(self.state, False, self._notify, self._health_tells)
        if "config" in woken and self._vault.config_changed():
            self._health.ask(suggest=True)  # the active vault may have changed:
            self.refresh()  # read it now, so the health check below is for the right one
        vault = tray_state.active_vault_path(self.state.config)
        if self._vault.vault_changed(vault, "tree" in woken):
            self._health.ask(suggest=True)  # another vault, or a note or a folder changed in it
        if self._health.begin(time.monotonic()):
            self._start_health_check(vault)
        changed = self._approvals.look("oauth" in woken, now) or changed
        if self._recall_until and time.monotonic() > self._recall_until:
            self._recall_until = 0.0
            changed = True
        if changed:
            self.refresh()

    def _on_recalls(self, events: list[EventRow]) -> None:
        health = self._health.report
        if health is not None and any(saw_otherwise(e.status, health.status) for e in events):
            self._health.ask()  # a server just saw the vault differently: look again now
        fresh = [e for e in events if e.returned]
        if not fresh:
            return
        self._recall_until = time.monotonic() + RECALL_MARK_SECONDS
        if self.state.notify_recall:
            self._notify(*recall_notice(fresh[-1], self.state.name_of))

    def _health_tells(self, vault: str) -> bool:
        """Whether the health check tells the person that `vault` cannot be read."""
        active = tray_state.active_vault_path(self.state.config)
        return self.state.notify_health and active is not None and vault_name(active) == vault

    def _start_health_check(self, vault: Path | None) -> None:
        """On a thread of its own; `self._health.begin` said it may start."""

        suggest = self._health.take_suggest()

        def check() -> None:
            try:
                started = time.monotonic()
                report: HealthReport | None = check_health(vault, "no vault is chosen yet")
                ended = time.monotonic()
                if vault != tray_state.current_vault_path():
                    report = None  # the vault changed meanwhile: check the new one
                before = self._health.finish(report, ended - started, ended)
                if report is None:
                    return
                name = self.state.config.active_vault or report.vault or "The vault"
                if before is not None and before.path != report.path:
                    self._notify(*switched_news(report, name))  # the person chose another vault
                elif before is not None and self.state.notify_health:
                    gone = self._recalled.recalled_from(vault) if vault is not None and not within_reach(vault) else 0
                    news = health_news(before, report, name, gone)
                    if news is not None:
                        self._notify(*news)
                self.refresh()
                if suggest:
                    self._look_for_suggestions(vault, report)
            except Exception:  # the thread's entry point
                self._health.abandon()
                log.exception("health check failed")
            finally:
                self._wake.wake("health")  # the watcher sets its deadline for the next one

        threading.Thread(target=check, name="tray-health", daemon=True).start()

    def _look_for_suggestions(self, vault: Path | None, report: HealthReport) -> None:
        """On the health check's thread, after its report is shown: the subjects the vault
        suggests (tray/state.py), then the menu again.  Their cost spaces the checks too."""
        started = time.monotonic()
        suggested = tray_state.look_for_suggestions(vault, report)
        self._health.spent(time.monotonic() - started)
        if suggested != self._suggested:
            self._suggested = suggested
            self.refresh()

    def refresh(self) -> None:
        """Rebuild state, menu, icon and tooltip from fresh data.  Refreshes run one at a time
        (threads of the health check, the actions, the watcher and the endpoint all ask): two at
        once would show the one that gathered first last — a menu older than the disk."""
        with self._refreshing:
            health = self._health.report
            state = self._gather(health)
            if state.health is None and health is not None:
                self._health.ask()  # the report was about another vault: check this one
                self._wake.wake("health")
            with self._lock:
                shown = self._shown(state)
                self.state = state
                self.view.show(shown)

    def _gather(self, health: HealthReport | None) -> TrayState:
        return dataclasses.replace(
            tray_state.gather(health, suggested=self._suggested),
            endpoint_url=self.endpoint.url,
            installed=self._installed.look(CLIENTS),
            app_names={granted.client: granted.name for granted in self._approvals.approvals.granted},
        )

    def _shown(self, state: TrayState) -> Shown:
        items = with_endpoint(with_approvals(build_menu(state), self._approvals.approvals), self.endpoint.shown())
        dump_menu(items, os.environ.get(MENU_DUMP_ENV))
        return Shown(status_of(state), bool(self._recall_until), tooltip(state), items)

    def _notify(self, summary: str, body: str = "") -> None:
        """The desktop's notification service where there is one (Linux), else the backend's."""
        if not notifications.notify(summary, body) and not self.view.notify(f"{summary}\n{body}".strip()):
            log.info("no way to show a notification here: %s %s", summary, body)

    # -- actions ------------------------------------------------------------------------------

    def dispatch(self, action: Action) -> None:
        """Called on the backend's thread: hand the action to the worker so no click waits on a
        disk.  Quit ends the tray at once."""
        if action == ("quit",):
            self._stop.set()
            self._wake.stop()  # the watcher ends now, not at its next deadline
            self._actions.put(action)  # wakes the worker so it can end
            self.view.stop()
            return
        self._actions.put(action)
