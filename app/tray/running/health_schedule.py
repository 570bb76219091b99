"""When the tray checks the vault's health next, and the last report.

Three threads touch it: the watcher (a change asks for a look, and it starts checks), the
action worker (a refresh that finds the report is about another vault) and the check's own
thread (the report, and when to look again).  So every read and write holds one lock, and each
change is one method: an ask made while a check runs is never lost as the check ends.
"""

from __future__ import annotations

import threading
from typing import assert_never

from vault_recall.app.state.health import HealthReport
from vault_recall.server.activity.event_rows import OtherStatus
from vault_recall.server.activity.events import EventStatus
from vault_recall.server.recall.results import Status

# Health is re-checked when the vault's folder changes, when a recall reports another status,
# and otherwise every 30 checks' worth of time: 15 s for a small vault, up to 5 min for a huge one.
HEALTH_MIN_SECONDS, HEALTH_MAX_SECONDS, HEALTH_COST_FACTOR = 15.0, 300.0, 30.0
# A change in the vault's folders is checked at once, but checks start at most this many times
# their cost apart: a vault whose notes change every second takes at most a tenth of a core.
HEALTH_SPACING_FACTOR = 10.0


class HealthSchedule:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._report: HealthReport | None = None
        self._checking = False
        self._next = 0.0  # monotonic time of the next check; 0: as soon as the spacing allows
        self._quiet_until = 0.0  # no check starts before (HEALTH_SPACING_FACTOR)
        # Subject proposals are looked for again only when the vault or its rules may have
        # changed, not on every periodic check: they cost a pass of their own.
        self._suggest_due = True

    @property
    def report(self) -> HealthReport | None:
        with self._lock:
            return self._report

    def ask(self, *, suggest: bool = False) -> None:
        """Something changed that the health may show: look again as soon as allowed (and look
        for subjects to suggest too when `suggest`: the vault or its rules may have changed)."""
        with self._lock:
            self._next = 0.0
            self._suggest_due = self._suggest_due or suggest

    def take_suggest(self) -> bool:
        """Whether the check starting now looks for subjects to suggest; asked once per check."""
        with self._lock:
            due, self._suggest_due = self._suggest_due, False
            return due

    def spent(self, cost: float) -> None:
        """Work after a check (the suggestions) that took `cost` seconds spaces the checks too."""
        with self._lock:
            self._quiet_until += HEALTH_SPACING_FACTOR * cost

    def due_at(self) -> float | None:
        """When `begin` may next say yes (monotonic; 0: now), None while a check runs."""
        with self._lock:
            return None if self._checking else max(self._next, self._quiet_until)

    def begin(self, now: float) -> bool:
        """True when a check should start now (and it is then counted as running)."""
        with self._lock:
            if self._checking or now < self._next or now < self._quiet_until:
                return False
            self._checking = True
            self._next = now + HEALTH_MAX_SECONDS
            return True

    def finish(self, report: HealthReport | None, cost: float, now: float) -> HealthReport | None:
        """The check that took `cost` seconds ended at `now` with `report` (None: it was about a
        vault no longer the active one, so look again); the report it replaces."""
        with self._lock:
            self._checking = False
            self._quiet_until = now + HEALTH_SPACING_FACTOR * cost
            if report is None:
                self._next, self._suggest_due = 0.0, True
                return self._report
            if self._next:  # 0 means a change asked for another look meanwhile: keep it
                self._next = now + min(HEALTH_MAX_SECONDS, max(HEALTH_MIN_SECONDS, HEALTH_COST_FACTOR * cost))
            before, self._report = self._report, report
            return before

    def abandon(self) -> None:
        """The check failed (logged): the next one starts when it was due anyway."""
        with self._lock:
            self._checking = False


def saw_otherwise(status: EventStatus | OtherStatus | None, health: Status) -> bool:
    """Whether a call that ended with `status` saw the vault otherwise than the last health
    check (`health`): a server's news that the health is to be looked at again now."""
    match status:
        case None | "error":
            return False  # the call read no vault, or said nothing of it
        case "ok" | "degraded" | "unavailable":
            return status != health
        case OtherStatus():
            return True  # another version's word: no status this one's checks give
        case _:
            assert_never(status)
