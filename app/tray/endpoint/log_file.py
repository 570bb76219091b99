"""The log of the HTTP endpoint the tray runs: every line the `vault-recall http` child writes
to stderr (it never writes a token), with a mark where each process starts and how it ended,
in `logs/endpoint.log` of the state folder — readable by the person only (the file 0600, its
folder 0700), rotated at MAX_BYTES with KEEP older files beside it.  Writing it never fails the
endpoint: a log that cannot be written costs one warning in the tray's own log.

May import `server` (the state folder) and the standard library only.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from pathlib import Path

from vault_recall.server.config.config_file import state_dir

log = logging.getLogger(__name__)

MAX_BYTES = 1024 * 1024
KEEP = 3
LOG_FOLDER = "logs"
LOG_FILE = "endpoint.log"


def log_path() -> Path:
    return state_dir() / LOG_FOLDER / LOG_FILE


class EndpointLog:
    """One log file, rotated, shared by the endpoint's stdout and stderr readers.  Opened for
    each line and closed after it: the endpoint writes a few lines an hour, and a file left open
    would outlive the process it logs."""

    def __init__(self, path: Path | None = None, max_bytes: int = MAX_BYTES, keep: int = KEEP) -> None:
        self.path = path or log_path()
        self.max_bytes = max_bytes
        self.keep = keep
        self._lock = threading.Lock()
        self._warned = False

    def write(self, line: str) -> None:
        data = (line.rstrip("\n") + "\n").encode("utf-8", "replace")
        with self._lock:
            try:
                self._append(data)
            except OSError as exc:
                if not self._warned:
                    self._warned = True
                    log.warning("the endpoint's log %s cannot be written: %s", self.path, exc)

    def mark(self, text: str) -> None:
        """A line of the tray's own: when a process started, how it ended."""
        self.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} {text} ---")

    def _append(self, data: bytes) -> None:
        folder = self.path.parent
        # Each level made readable by the person only: the state folder may not exist yet either.
        folder.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        folder.mkdir(exist_ok=True, mode=0o700)
        with contextlib.suppress(FileNotFoundError):
            size = self.path.stat().st_size
            if size and size + len(data) > self.max_bytes:
                self._rotate()
        descriptor = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            # A file left wider by hand is narrowed: it is ours.  By name, as Windows has no
            # os.fchmod before Python 3.13 (there, 0600 only keeps it writable).
            os.chmod(self.path, 0o600)
            os.write(descriptor, data)
        finally:
            os.close(descriptor)

    def _rotate(self) -> None:
        for number in range(self.keep - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{number}")
            if older.exists():
                os.replace(older, self.path.with_name(f"{self.path.name}.{number + 1}"))
        if self.keep > 0:
            os.replace(self.path, self.path.with_name(f"{self.path.name}.1"))
        else:
            self.path.unlink(missing_ok=True)
