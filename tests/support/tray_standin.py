"""A tray view that records what the tray shows it, for tests and benchmarks that run the real
`TrayApp` without a panel: every `Shown`, and the moment each came."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from vault_recall.app.tray.views.protocol import Shown


class RecordingView:
    def __init__(self) -> None:
        self.shown: list[tuple[float, Shown]] = []  # (time.perf_counter(), what was shown)
        self.changed = threading.Condition()
        self.stopped = threading.Event()

    def show(self, shown: Shown) -> None:
        with self.changed:
            self.shown.append((time.perf_counter(), shown))
            self.changed.notify_all()

    def notify(self, message: str) -> bool:
        return False

    def run(self, started: Callable[[], None]) -> None:
        started()
        self.stopped.wait()

    def stop(self) -> None:
        self.stopped.set()

    def dot_shown(self, since: float = 0.0) -> bool:
        """Whether the blue dot (a recall just now) was shown at or after `since`."""
        return any(shown.recalling for at, shown in self.shown if at >= since)

    def until_dot(self, since: float, deadline: float) -> bool:
        """Wait (at most until the monotonic `deadline`) for the blue dot shown at or after `since`."""
        with self.changed:
            return self.changed.wait_for(lambda: self.dot_shown(since), max(0.0, deadline - time.monotonic()))
