"""The tray's HTTP endpoint: `vault-recall http` run as a child process, and the menu's actions
for it (start, stop, copy its address, open its log).

A child process, not a thread: the endpoint keeps its own event loop and worker threads, a
crash there never takes the tray down, and stopping it is one signal.  Everything it writes
goes to its log file (log_file.py).  When it ends without being stopped, the person is told
why in that process's own words, and it is started again after a wait that grows while it keeps
failing (restarts.py); the menu says so meanwhile (status_items.py).  The tray calls
`endpoint_action` first for every menu action; it answers False for the ones it does not own.

The tray remembers whether the person left the endpoint running (the `start_endpoint` tray
setting: the address it served at, or nothing): a tray started at login starts it again, so
clients that start early find it — Claude Code gives a URL server it cannot reach at its own
start a few seconds and then leaves it failed (docs/http.md, "Restarts").
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import assert_never

from vault_recall.app.app_errors import EndpointError
from vault_recall.app.clients.launch import launcher
from vault_recall.app.desktop import clipboard, opener
from vault_recall.app.desktop.notifications import Notify
from vault_recall.app.state.config_store import update_config
from vault_recall.app.tray.endpoint.log_file import EndpointLog
from vault_recall.app.tray.endpoint.restarts import HEALTHY_SECONDS, Backoff, last_words
from vault_recall.app.tray.endpoint.status_items import EndpointShown
from vault_recall.app.tray.menu.items import Action, is_endpoint_action
from vault_recall.app.tray.menu.snapshot import TRAY_KEY
from vault_recall.app.tray.menu.url_snippet import shown_path
from vault_recall.app.tray.notices import as_sentence
from vault_recall.server.config.config_file import Config, load_config
from vault_recall.server.errors import ListenError
from vault_recall.server.http.address import DEFAULT_LISTEN, parse_listen

START_SECONDS = 20.0
# Where the tray's endpoint listens, if not at the default address (tests: any free port).
LISTEN_ENV = "VAULT_RECALL_TRAY_HTTP_LISTEN"


@dataclass(frozen=True)
class Crash:
    """The endpoint ended by itself and is being started again."""

    why: str  # in the process's own words, or how it ended
    retry_at: float  # time.monotonic() of the next start


class EndpointProcess:
    """One `vault-recall http` child, started and stopped from the menu; started again, later
    and later, when it ends by itself (the person is told why, and when it is back)."""

    def __init__(
        self,
        listen: str | None = None,
        command: list[str] | None = None,
        notify: Notify | None = None,
        on_change: Callable[[], None] | None = None,
        log: EndpointLog | None = None,
    ) -> None:
        self.listen = listen or os.environ.get(LISTEN_ENV) or DEFAULT_LISTEN
        self.command = command
        self.log = log or EndpointLog()
        self._notify: Notify = notify or (lambda summary, body: None)
        self._on_change = on_change or (lambda: None)
        self._process: subprocess.Popen[str] | None = None
        self._url: str | None = None
        self._lock = threading.Lock()
        self._wanted = False  # the person wants it running (started, not stopped)
        self._wake = threading.Event()  # ends a wait before a restart: stopped, or started by hand
        self._crash: Crash | None = None
        self._backoff = Backoff()
        self._told = ""  # the last reason told, so a process failing the same way is told once

    @property
    def url(self) -> str | None:
        """The address clients use, while the endpoint runs."""
        with self._lock:
            alive = self._process is not None and self._process.poll() is None
            return self._url if alive else None

    @property
    def crash(self) -> Crash | None:
        """Why it ended by itself, while it waits to start again (None: it did not)."""
        with self._lock:
            return self._crash

    def shown(self) -> EndpointShown:
        """What the menu says of it besides start and stop (status_items.py)."""
        crash = self.crash
        return EndpointShown(crash.why if crash else None, self.log.path if self.log.path.exists() else None)

    def start(self) -> str:
        """Start it (or keep the running one); returns its URL or raises EndpointError."""
        with self._lock:
            self._wanted = True
            self._crash = None
        self._wake.set()
        return self._launch()

    def _launch(self) -> str:
        with self._lock:
            if self._process is not None and self._process.poll() is None and self._url:
                return self._url
            command = [*(self.command or launcher()), "http", "--listen", self.listen]
            process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            self._process, self._url = process, None
        self.log.mark(f"started vault-recall http --listen {self.listen} (process {process.pid})")
        # This process's own lines, and no other's: what it ends with is told in its words.
        said: deque[str] = deque(maxlen=20)
        found = threading.Event()
        address: list[str] = []

        def read_stdout() -> None:
            assert process.stdout is not None
            # A stop closes the pipes while this thread may still be reading: what was left
            # unread is not needed then, so a closed pipe ends the reading like its end does.
            with contextlib.suppress(ValueError, OSError):
                for line in process.stdout:
                    self.log.write(line)
                    if not address and line.startswith("Vault Recall endpoint: "):
                        address.append(line.split(": ", 1)[1].split()[0])
                        found.set()
            found.set()  # it ended without an address

        def read_stderr() -> None:
            assert process.stderr is not None
            with contextlib.suppress(ValueError, OSError):
                for line in process.stderr:
                    said.append(line.rstrip("\n"))
                    self.log.write(line)

        threading.Thread(target=read_stdout, name="endpoint-stdout", daemon=True).start()
        errors = threading.Thread(target=read_stderr, name="endpoint-stderr", daemon=True)
        errors.start()
        started = time.monotonic()
        found.wait(START_SECONDS)
        if not address:
            self._halt(process, errors)
            why = last_words(said, process.returncode) if said or process.returncode else ""
            self.log.mark(f"did not start: {why or 'it did not say where it listens'}")
            raise EndpointError(f"the HTTP endpoint did not start: {why or 'it did not say where it listens'}")
        with self._lock:
            self._url = address[0]
        watch = threading.Thread(target=self._watch, args=(process, said, errors, started), daemon=True)
        watch.name = "endpoint-watch"
        watch.start()
        return address[0]

    def _watch(
        self, process: subprocess.Popen[str], said: deque[str], errors: threading.Thread, started: float
    ) -> None:
        """Wait for the process to end; if nobody stopped it, say why and start it again."""
        returncode = process.wait()
        errors.join(5)  # its last words are read before they are told
        with self._lock:
            if self._process is not process or not self._wanted:
                return  # stopped, or replaced, on purpose
            self._process, self._url = None, None
        why = last_words(said, returncode)
        self.log.mark(f"ended: {why}")
        wait = self._backoff.after(time.monotonic() - started)
        self._close(process)
        self._restart(why, wait, ran_well=time.monotonic() - started >= HEALTHY_SECONDS)

    def _restart(self, why: str, wait: float, ran_well: bool) -> None:
        where = shown_path(self.log.path)
        # A process that keeps ending the same way is told once, and its coming back with it.
        told = ran_well or why != self._told
        if told:
            self._told = why
            self._notify(
                "The HTTP endpoint stopped unexpectedly",
                as_sentence(f"{why}; Vault Recall starts it again in {wait:.0f} s (its log: {where})"),
            )
        while True:
            with self._lock:
                if not self._wanted:
                    return
                self._crash = Crash(why, time.monotonic() + wait)
                self._wake.clear()
            self._on_change()
            self._wake.wait(wait)
            with self._lock:
                if not self._wanted or self._process is not None:
                    return  # stopped, or started by hand meanwhile
            try:
                url = self._launch()
            except EndpointError as exc:
                with self._lock:
                    if not self._wanted:
                        return  # stopped while it started: its SIGTERM is no failure to tell
                why = str(exc).removeprefix("the HTTP endpoint did not start: ")
                wait = self._backoff.again()
                if why != self._told:
                    self._told, told = why, True
                    self._notify(
                        "The HTTP endpoint still does not start",
                        as_sentence(f"{why}; it is tried again, less and less often (its log: {where})"),
                    )
                continue
            with self._lock:
                self._crash = None
            if told:
                self._notify("The HTTP endpoint is back", f"Vault Recall serves clients at {url} again.")
            self._on_change()
            return

    def stop(self) -> None:
        """Stop it (SIGTERM: it stores the last calls' activity first), and start it no more."""
        with self._lock:
            process, self._process, self._url = self._process, None, None
            self._wanted, self._crash = False, None
        self._wake.set()
        self._told = ""
        self._backoff = Backoff()
        if process is not None:
            self._halt(process)
            self.log.mark("stopped")

    def _halt(self, process: subprocess.Popen[str], errors: threading.Thread | None = None) -> None:
        """End the process; `errors`, its stderr reader, is given its last words before the pipes close."""
        with self._lock:
            if self._process is process:
                self._process, self._url = None, None
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        if errors is not None:
            errors.join(5)
        self._close(process)

    @staticmethod
    def _close(process: subprocess.Popen[str]) -> None:
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
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
    action: Action,
    endpoint: EndpointProcess,
    notify: Callable[[str, str], None],
    copy: Callable[[str], bool] = clipboard.copy_text,
) -> bool:
    """Run a menu action of the endpoint's; False when the action is not one of them."""
    name, *args = action
    if not is_endpoint_action(name):
        return False
    match name:
        case "endpoint":
            _command(args, endpoint, notify)
        case "copy_text":
            if copy(args[0]):
                notify("Copied", args[0])
        case _:
            assert_never(name)
    return True


def _command(args: list[str], endpoint: EndpointProcess, notify: Callable[[str, str], None]) -> None:
    match args:
        case ["start"]:
            url = endpoint.start()
            _remember(endpoint.listen)
            notify(f"Vault Recall is serving clients at {url}", "It starts again with the tray until you stop it.")
        case ["stop"]:
            endpoint.stop()
            _remember(None)
            notify("The HTTP endpoint is stopped", "Clients that connect by URL get no answer until it starts again.")
        case ["start_with_tray"]:
            # Quietly, at every tray start (a login, often): a notification only when it fails.
            listen = endpoint_to_start(load_config())
            if listen is not None:
                endpoint.listen = listen
                endpoint.start()
        case ["open_log"]:
            where = endpoint.log.path
            opener.open_target(str(where), lambda: notify("Nothing here opens the endpoint's log", f"It is {where}"))
        case _:
            # Every menu item names one of the above: another is a mistake of ours, not a click.
            raise ValueError(f"the endpoint has no command {args!r}")
