"""Stopping `vault-recall http` on SIGTERM or SIGINT (Ctrl-C, the tray's Stop), with clients
connected and calls running: within a second, with one line on stderr, never a traceback.

uvicorn's own graceful stop waits for every request to finish — a GET stream never does, and a
tool call reading a vault cannot be interrupted (it runs on a worker thread) — then cancels
them after its timeout, logging a traceback for each, and the process then waits for the worker
threads besides.  Instead: stop listening, give the calls running a moment to finish and be
answered, write the activity still queued, say in one line how the stop went, and end by the
signal itself (its exit status says which), as `serve` does.  Clients see their connections
close, as they would on any stop; a call cut short is answered by nobody and records nothing.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Callable, Sequence

from vault_recall.server.activity.writer import ActivityWriter

# The calls running at a stop get this long to finish and be answered; then they are cut short.
STOP_GRACE_SECONDS = 0.3
# The activity queued is written within this, or lost rather than hold up the stop.
STOP_FLUSH_SECONDS = 0.4
STOP_SIGNALS = ("SIGTERM", "SIGINT", "SIGHUP")

log = logging.getLogger("vault_recall.http")


class Stopper:
    """What a stop needs: the listening servers to close, how many calls are running, the
    activity writer to flush."""

    def __init__(
        self,
        listeners: Callable[[], Sequence[asyncio.AbstractServer]],
        running: Callable[[], int],
        activity: ActivityWriter,
    ) -> None:
        self._listeners = listeners
        self._running = running
        self._activity = activity
        self._stopping = False

    def install(self) -> None:
        """Take SIGTERM, SIGINT and SIGHUP on the running loop (from uvicorn, whose stop waits)."""
        if os.name == "nt":
            return  # no POSIX signals there; uvicorn's own handling stays
        loop = asyncio.get_running_loop()
        for name in STOP_SIGNALS:
            number = getattr(signal, name)
            loop.add_signal_handler(number, self._on_signal, number)

    def _on_signal(self, number: int) -> None:
        if self._stopping:  # a second signal: no more waiting
            self._die(number)
        self._stopping = True
        asyncio.get_running_loop().create_task(self.stop(number))

    async def stop(self, number: int) -> None:
        for listener in self._listeners():
            listener.close()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + STOP_GRACE_SECONDS
        while self._running() and loop.time() < deadline:
            await asyncio.sleep(0.02)
        cut = self._running()
        # The answers just given leave their events in the queue: written here, in a thread of
        # the writer's own, for a bounded time.
        await loop.run_in_executor(None, lambda: self._activity.close(timeout=STOP_FLUSH_SECONDS))
        name = signal.Signals(number).name
        if cut:
            log.warning("stopped by %s; %d call%s still running were cut short", name, cut, "" if cut == 1 else "s")
        else:
            log.warning("stopped by %s", name)
        self._die(number)

    @staticmethod
    def _die(number: int) -> None:
        for handler in logging.getLogger().handlers:
            handler.flush()
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)  # the exit status says which signal ended the endpoint
