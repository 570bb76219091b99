"""Opening links and folders (app/desktop/opener.py): an opener that finds no handler is
reported, one that works or keeps running is not."""

from __future__ import annotations

import sys
import threading

import pytest

from vault_recall.app.desktop import opener


def opened_with(monkeypatch: pytest.MonkeyPatch, code: str) -> bool:
    """True when the opener running `code` was reported as failed (bounded wait)."""
    monkeypatch.setenv(opener.OPEN_COMMAND_ENV, f"{sys.executable} -c {code!r}")
    failed, judged = threading.Event(), threading.Event()
    assert opener.open_target("obsidian://open?vault=x", failed.set, judged.set) is True
    assert judged.wait(30.0), "the opener's exit was never judged"
    return failed.is_set()


def test_an_opener_that_exits_with_an_error_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    assert opened_with(monkeypatch, "raise SystemExit(3)") is True  # xdg-open: no handler


def test_an_opener_that_succeeds_is_not_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    assert opened_with(monkeypatch, "raise SystemExit(0)") is False


def test_an_opener_that_cannot_start_is_reported_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(opener.OPEN_COMMAND_ENV, "/nonexistent/opener")
    failed = threading.Event()
    assert opener.open_target("file:///x", failed.set) is False and failed.is_set()
