"""How the tray words its endpoint's end, and how long it waits before starting it again."""

from __future__ import annotations

import signal
import sys

import pytest

from vault_recall.app.tray.endpoint.restarts import FIRST_SECONDS, HEALTHY_SECONDS, MAX_SECONDS, Backoff, last_words

WAITING = "vault-recall http: 'Desk app' asks to recall your notes (code ABCD-EFGH): vault-recall client approve"


def test_an_endpoint_killed_is_told_by_its_signal_never_by_its_last_line() -> None:
    if sys.platform == "win32":
        pytest.skip("Windows reports no signal: a process ends by its exit code there")
    assert last_words([WAITING], -signal.SIGKILL) == "it was stopped by SIGKILL"
    assert last_words([], -signal.SIGTERM) == "it was stopped by SIGTERM"


def test_an_endpoint_ending_by_an_error_is_told_in_its_own_last_line() -> None:
    said = [WAITING, "Traceback (most recent call last):", '  File "x.py"', "OSError: [Errno 28] No space left"]
    assert last_words(said, 1) == "OSError: [Errno 28] No space left (exit code 1)"
    assert last_words(["vault-recall http: cannot listen on 127.0.0.1:1: Permission denied"], 1) == (
        "cannot listen on 127.0.0.1:1: Permission denied (exit code 1)"
    )
    assert last_words([], 3) == "it ended with exit code 3 without a word"
    assert last_words([WAITING], 0) == "it ended by itself"


def test_the_wait_doubles_while_it_keeps_failing_and_starts_over_after_a_good_run() -> None:
    backoff = Backoff()
    waits = [backoff.after(0.5)] + [backoff.again() for _ in range(8)]
    assert waits[:4] == [FIRST_SECONDS, 2 * FIRST_SECONDS, 4 * FIRST_SECONDS, 8 * FIRST_SECONDS]
    assert max(waits) == MAX_SECONDS == waits[-1]
    assert backoff.after(HEALTHY_SECONDS - 1) == MAX_SECONDS  # a short run: still failing
    assert backoff.after(HEALTHY_SECONDS) == FIRST_SECONDS  # it ran well: a new failure
