"""When the tray checks the vault's health (app/tray/running/health_schedule.py), written by three threads:
every change holds its one lock, whichever thread makes it, and an ask made while a check runs
survives the check's end; a recall whose status differs from the last report asks for one."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from vault_recall.app.state.health import check_health
from vault_recall.app.tray.running.health_schedule import HEALTH_MIN_SECONDS, HealthSchedule, saw_otherwise
from vault_recall.server.activity.event_rows import OtherStatus
from vault_recall.server.activity.events import EventStatus
from vault_recall.server.recall.results import Status


class OwnedLock:
    """A lock that knows which thread holds it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.owner: int | None = None

    def __enter__(self) -> None:
        self._lock.acquire()
        self.owner = threading.get_ident()

    def __exit__(self, *exc: object) -> None:
        self.owner = None
        self._lock.release()


class Checked(HealthSchedule):
    """Fails any write of the schedule's state made without holding its lock (once built)."""

    armed = False

    def __setattr__(self, name: str, value: object) -> None:
        if self.armed:
            lock = self.__dict__["_lock"]
            assert lock.owner == threading.get_ident(), f"{name} written without the lock"
        super().__setattr__(name, value)


def checked() -> Checked:
    schedule = Checked()
    schedule._lock = OwnedLock()  # type: ignore[assignment]
    schedule.armed = True
    return schedule


def test_every_change_of_the_health_state_holds_the_lock_from_any_thread() -> None:
    schedule = checked()
    report = check_health(None)
    steps: list[Callable[[], object]] = [
        lambda: schedule.begin(0.0),
        schedule.ask,
        lambda: schedule.finish(report, cost=0.0, now=1.0),
        lambda: schedule.begin(400.0),
        schedule.abandon,
        lambda: schedule.begin(800.0),
        lambda: schedule.ask(suggest=True),
        schedule.take_suggest,
        lambda: schedule.spent(0.5),
        lambda: schedule.finish(None, cost=0.0, now=801.0),
    ]
    for n, step in enumerate(steps):  # the watcher, the worker and the check's thread, in turn
        errors: list[BaseException] = []
        thread = threading.Thread(target=_catching, args=(step, errors), name=f"step {n}")
        thread.start()
        thread.join()
        assert errors == []
    assert schedule.report == report


def _catching(step: Callable[[], object], errors: list[BaseException]) -> None:
    try:
        step()
    except BaseException as exc:
        errors.append(exc)


def test_an_ask_made_during_a_check_is_kept_when_it_ends() -> None:
    report = check_health(None)
    schedule = HealthSchedule()
    assert schedule.begin(0.0) and not schedule.begin(0.0)  # one at a time
    schedule.ask()  # the vault changed while it was checked
    assert schedule.finish(report, cost=0.01, now=1.0) is None and schedule.report == report
    assert not schedule.begin(1.09) and schedule.begin(1.1)  # once the spacing (10 times its cost) is over
    schedule.finish(report, cost=0.01, now=2.0)
    assert not schedule.begin(2.0 + HEALTH_MIN_SECONDS - 1) and schedule.begin(2.0 + HEALTH_MIN_SECONDS)


def test_a_report_about_a_vault_no_longer_active_is_dropped_and_asks_again() -> None:
    schedule = HealthSchedule()
    assert schedule.begin(0.0)
    schedule.finish(None, cost=0.0, now=0.0)
    assert schedule.report is None and schedule.begin(0.0)
    schedule.abandon()  # a check that failed: the next when it was due anyway
    assert not schedule.begin(1.0)


def test_subjects_are_looked_for_once_per_change_of_the_vault_or_its_rules() -> None:
    report = check_health(None)
    schedule = HealthSchedule()
    assert schedule.take_suggest() and not schedule.take_suggest()  # the first check looks
    schedule.ask()  # a recall saw another status: health again, suggestions not
    assert not schedule.take_suggest()
    schedule.ask(suggest=True)  # a folder or the config changed
    assert schedule.take_suggest() and not schedule.take_suggest()
    assert schedule.begin(0.0)
    schedule.finish(None, cost=0.0, now=0.0)  # the check was about another vault: look again, fully
    assert schedule.take_suggest()
    assert schedule.begin(0.0)
    schedule.finish(report, cost=0.01, now=1.0)
    schedule.spent(0.1)  # the suggestions' own cost spaces the checks too (10 times it)
    schedule.ask()
    assert not schedule.begin(1.2) and not schedule.begin(2.0) and schedule.begin(2.2)


@pytest.mark.parametrize(
    ("status", "health", "news"),
    [
        ("ok", "ok", False),
        ("degraded", "ok", True),  # a server found a broken note the last check did not
        ("unavailable", "degraded", True),
        ("ok", "unavailable", True),
        ("unavailable", "unavailable", False),
        ("error", "ok", False),  # the call read no vault: nothing said of it
        (None, "degraded", False),
        (OtherStatus("paused"), "ok", True),  # another version's word: looked again, as before
    ],
)
def test_a_call_that_saw_the_vault_otherwise_asks_for_a_check(
    status: EventStatus | OtherStatus | None, health: Status, news: bool
) -> None:
    assert saw_otherwise(status, health) is news
