"""The tray's HTTP endpoint: `vault-recall http` run as a child process, and the menu's actions
for it (start, stop, copy its address).

A child process, not a thread: the endpoint keeps its own event loop and worker threads, a
crash there never takes the tray down, and stopping it is one signal.  The tray calls
`endpoint_action` first for every menu action; it answers False for the ones it does not own.

The tray remembers whether the person left the endpoint running (the `start_endpoint` tray
setting: the address it served at, or nothing): a tray started at login starts it again, so
clients that start early find it — Claude Code gives a URL server it cannot reach at its own
start a few seconds and then leaves it failed (docs/http.md, "Restarts").
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import threading
from collections import deque
from collections.abc import Callable

from vault_recall.app.clients.launch import launcher
from vault_recall.app.desktop import clipboard
from vault_recall.app.state.config_store import update_config
from vault_recall.app.tray.state import TRAY_KEY
from vault_recall.server.config.config_file import Config, load_config
from vault_recall.server.mcp.http_address import DEFAULT_LISTEN, ListenError, parse_listen

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


# The tray setting that says where to start the endpoint when the tray starts ("HOST:PORT"), if at all.
START_SETTING = "start_endpoint"


def endpoint_to_start(config: Config) -> str | None:
    """The address the tray starts the endpoint at when it starts, or None (a value that is not
    HOST:PORT counts as none: the person's hand-edit must not keep the tray from starting)."""
    stored = dict(config.extra).get(TRAY_KEY)
    listen = stored.get(START_SETTING) if isinstance(stored, dict) else None
    if not isinstance(listen, str):
        return None
    try:
        parse_listen(listen)
    except ListenError:
        return None
    return listen


def _remember(listen: str | None) -> None:
    """Keep in the tray's settings where the endpoint runs (None: it was stopped)."""

    def change(config: Config) -> Config:
        extra = dict(config.extra)
        stored = dict(extra[TRAY_KEY]) if isinstance(extra.get(TRAY_KEY), dict) else {}
        if listen is None:
            stored.pop(START_SETTING, None)
        else:
            stored[START_SETTING] = listen
        extra[TRAY_KEY] = stored
        return dataclasses.replace(config, extra=tuple(extra.items()))

    update_config(change)


def endpoint_action(
    action: tuple[str, ...],
    endpoint: EndpointProcess,
    notify: Callable[[str, str], None],
    copy: Callable[[str], bool] = clipboard.copy_text,
) -> bool:
    """Run a menu action of the endpoint's; False when the action is not one of them."""
    name, *args = action
    if name == "endpoint" and args == ["start"]:
        url = endpoint.start()
        _remember(endpoint.listen)
        notify(f"Vault Recall is serving clients at {url}", "It starts again with the tray until you stop it.")
    elif name == "endpoint" and args == ["stop"]:
        endpoint.stop()
        _remember(None)
        notify("The HTTP endpoint is stopped", "Clients that connect by URL get no answer until it starts again.")
    elif name == "endpoint" and args == ["start_with_tray"]:
        # Quietly, at every tray start (a login, often): a notification only when it fails.
        listen = endpoint_to_start(load_config())
        if listen is not None:
            endpoint.listen = listen
            endpoint.start()
    elif name == "copy_text":
        if copy(args[0]):
            notify("Copied", args[0])
    else:
        return False
    return True
