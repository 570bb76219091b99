"""What the tests do differently where POSIX is missing (Windows): named pipes, signals, exact
permission bits and root.  tests/project/test_platform_guards.py keeps every other use of a
POSIX-only name behind a guard; these are the guarded ones the tests share."""

from __future__ import annotations

import os
import signal
import stat
import sys
from pathlib import Path

import pytest

# Root reads every folder whatever its mode; Windows has no root (nor modes that deny reading).
IS_ROOT = sys.platform != "win32" and os.geteuid() == 0

# The folders a test makes unreadable by mode stay readable there.
MODES_DENY = sys.platform != "win32" and not IS_ROOT


# Names only a Linux file system keeps as given: bytes that are not UTF-8 (APFS and NTFS refuse
# them), a backslash (Windows's separator), twins in case or in Unicode normal form (one file on
# macOS and Windows by default).
linux_names = pytest.mark.skipif(
    sys.platform in ("win32", "darwin"), reason="names only a Linux file system keeps apart or at all"
)


def make_fifo(path: Path) -> None:
    """A named pipe at `path`; the test is skipped on Windows, which has none in the file system."""
    if sys.platform == "win32":
        pytest.skip("Windows has no named pipes in the file system")
    os.mkfifo(path)


def kill_signal() -> signal.Signals:
    """SIGKILL, the signal no process can catch; the test is skipped on Windows, which ends a
    process by TerminateProcess and reports no signal."""
    if sys.platform == "win32":
        pytest.skip("Windows has no SIGKILL")
    return signal.SIGKILL


def assert_mode(path: Path, mode: int) -> None:
    """`path`'s permission bits are exactly `mode` on POSIX.  Windows keeps only a read-only bit,
    so there it is checked alone: the file is writable when `mode` lets its owner write."""
    if sys.platform == "win32":
        assert os.access(path, os.W_OK) == bool(mode & stat.S_IWUSR), path
        return
    assert stat.S_IMODE(path.stat().st_mode) == mode, f"{path}: {oct(stat.S_IMODE(path.stat().st_mode))}"


def assert_private(path: Path) -> None:
    """No permission for group or others on `path` (POSIX); Windows decides by ACLs, which
    inherit the folder's: there the file need only exist."""
    if sys.platform == "win32":
        assert path.exists(), path
        return
    assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, f"{path}: {oct(stat.S_IMODE(path.stat().st_mode))}"
