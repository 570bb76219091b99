"""The tray's HTTP endpoint: `vault-recall http` run as a child process, and the menu's actions
for it (start, stop, copy its address).  Whether it runs is remembered (the tray's `endpoint`
setting), so a tray started again starts it again.

A child process, not a thread: the endpoint keeps its own event loop and worker threads, a
crash there never takes the tray down, and stopping it is one signal.  The tray calls
`endpoint_action` first for every menu action; it answers False for the ones it does not own.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections import deque
from collections.abc import Callable

from vault_recall.app.clients.launch import launcher
from vault_recall.app.desktop import clipboard
from vault_recall.server.mcp.http_address import DEFAULT_LISTEN

START_SECONDS = 20.0
# Where the tray's endpoint listens, if not at the default address (tests: any free port).
LISTEN_ENV = "VAULT_RECALL_TRAY_HTTP_LISTEN"


class EndpointError(Exception):
    """The endpoint could not start; the message is its own one sentence (port in use, …)."""


class EndpointProcess:
    """One `vault-recall http` child, started and stopped from the menu."""

    def __init__(self, listen: str | None = None, command: list[str] | None = None) -> None:
        self.listen = listen or os.environ.get(LISTEN_ENV) or DEFAULT_LISTEN
        self.command = command
        self._process: subprocess.Popen[str] | None = None
        self._url: str | None = None
        self._errors: deque[str] = deque(maxlen=20)
        self._lock = threading.Lock()

    @property
    def url(self) -> str | None:
        """The address clients use, while the endpoint runs."""
        with self._lock:
            alive = self._process is not None and self._process.poll() is None
            return self._url if alive else None

    def start(self) -> str:
        """Start it (or keep the running one); returns its URL or raises EndpointError."""
        with self._lock:
            if self._process is not None and self._process.poll() is None and self._url:
                return self._url
            command = [*(self.command or launcher()), "http", "--listen", self.listen]
            process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            self._process, self._url = process, None
        found = threading.Event()
        address: list[str] = []

        def read_stdout() -> None:
            assert process.stdout is not None
            for line in process.stdout:
                if not address and line.startswith("Vault Recall endpoint: "):
                    address.append(line.split(": ", 1)[1].split()[0])
                    found.set()
            found.set()  # it ended without an address

        def read_stderr() -> None:
            assert process.stderr is not None
            for line in process.stderr:
                self._errors.append(line.rstrip("\n"))

        threading.Thread(target=read_stdout, name="endpoint-stdout", daemon=True).start()
        threading.Thread(target=read_stderr, name="endpoint-stderr", daemon=True).start()
        found.wait(START_SECONDS)
        if not address:
            self.stop()
            why = self._errors[-1] if self._errors else "it did not say where it listens"
            raise EndpointError(f"the HTTP endpoint did not start: {why}")
        with self._lock:
            self._url = address[0]
        return address[0]

    def stop(self) -> None:
        """Stop it (SIGTERM: it stores the last calls' activity first)."""
        with self._lock:
            process, self._process, self._url = self._process, None, None
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def endpoint_action(
    action: tuple[str, ...],
    endpoint: EndpointProcess,
    notify: Callable[[str, str], None],
    copy: Callable[[str], bool] = clipboard.copy_text,
    remember: Callable[[bool], None] | None = None,
) -> bool:
    """Run a menu action of the endpoint's; False when the action is not one of them.
    `remember(running)` keeps whether the endpoint runs, for the next time the tray starts."""
    name, *args = action
    if name == "endpoint" and args in (["start"], ["again"]):
        url = endpoint.start()
        if remember is not None:
            remember(True)
        again = " again, as when the tray last stopped" if args == ["again"] else ""
        notify(f"Vault Recall is serving clients at {url}", f"The HTTP endpoint started{again}.")
    elif name == "endpoint" and args == ["stop"]:
        endpoint.stop()
        if remember is not None:
            remember(False)
        notify("The HTTP endpoint is stopped", "Clients that connect by URL get no answer until it starts again.")
    elif name == "copy_text":
        if copy(args[0]):
            notify("Copied", args[0])
    else:
        return False
    return True
