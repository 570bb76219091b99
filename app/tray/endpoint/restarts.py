"""What the tray makes of its HTTP endpoint ending by itself: the reason in the process's own
words (its last line on stderr, of that process and no other), or how it ended when it said
nothing (a signal, an exit code); and how long to wait before starting it again — doubling from
one second up to a minute while it keeps failing, from one second again once it has run well.

Plain functions and a small class, no processes: process.py runs them.
"""

from __future__ import annotations

import signal
from collections.abc import Iterable

FIRST_SECONDS = 1.0
MAX_SECONDS = 60.0
# A process that served this long before it ended counts as having run well: the next crash is
# a new one, told again, and waited for from FIRST_SECONDS.
HEALTHY_SECONDS = 60.0
PREFIX = "vault-recall http: "


def last_words(lines: Iterable[str], returncode: int | None) -> str:
    """Why a process ended, as a clause: its own last line when it ended by an error, how it
    ended otherwise.  A process killed by a signal is told by the signal: its last line then
    was about something else (an app waiting for approval, say)."""
    said = [line.strip() for line in lines if line.strip()]
    if returncode is not None and returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"it was stopped by {name}"
    if said and returncode:
        last = said[-1].removeprefix(PREFIX)
        return f"{last} (exit code {returncode})"
    if returncode:
        return f"it ended with exit code {returncode} without a word"
    return "it ended by itself"


class Backoff:
    """How long to wait before the next start: FIRST_SECONDS, doubling to MAX_SECONDS; back to
    FIRST_SECONDS after a process that ran HEALTHY_SECONDS."""

    def __init__(self) -> None:
        self._next = FIRST_SECONDS

    def after(self, ran_seconds: float) -> float:
        """The wait before starting again, after a process that ran `ran_seconds`."""
        if ran_seconds >= HEALTHY_SECONDS:
            self._next = FIRST_SECONDS
        return self.again()

    def again(self) -> float:
        """The wait before the next try, after a try that failed."""
        wait = self._next
        self._next = min(MAX_SECONDS, self._next * 2)
        return wait
