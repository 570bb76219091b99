"""The config's lock (app/state/file_lock.py) serializes processes: two processes each doing
read-modify-write turns under it lose no turn, and no turn of one starts inside a turn of the
other.  On Linux the real flock; the Windows branch's logic (`_wait_for_range`, trying again
while another process holds the byte) with msvcrt.locking mocked by a POSIX byte-range lock
that fails at once where msvcrt's blocking mode would fail after ten seconds of tries."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO_ROOT

TURNS = 150

# One process's turns: under the lock, note the turn's start, read the counter, write it back
# one higher, note the end.  Without the lock the two processes' turns interleave and lose counts.
TURNS_UNDER_LOCK = """
import os, sys
from pathlib import Path
lock, counter, log, turns, how = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
if how == "windows":
    import contextlib, fcntl
    from vault_recall.app.state import file_lock

    @contextlib.contextmanager
    def held(path):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        # msvcrt.locking(fd, LK_LOCK, 1) stood in for by a byte-range lock that fails at once.
        file_lock._wait_for_range(fd, lambda: fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0))
        try:
            yield
        finally:
            fcntl.lockf(fd, fcntl.LOCK_UN, 1, 0)
            os.close(fd)
else:
    from vault_recall.app.state.file_lock import held
sys.stdout.write("ready\\n")
sys.stdout.flush()
sys.stdin.readline()  # both start together
me = str(os.getpid())
for _ in range(turns):
    with held(lock):
        with open(log, "a") as f:
            f.write(f"in {me}\\n")
        value = int(counter.read_text() or "0")
        counter.write_text(str(value + 1))
        with open(log, "a") as f:
            f.write(f"out {me}\\n")
"""


@pytest.mark.parametrize("how", ["this platform", pytest.param("windows", id="windows-logic")])
def test_two_processes_take_turns_under_the_lock(tmp_path: Path, how: str) -> None:
    if sys.platform == "win32" and how == "windows":
        pytest.skip("the mock is a POSIX byte-range lock; on Windows 'this platform' runs msvcrt itself")
    counter, log = tmp_path / "counter", tmp_path / "turns.log"
    counter.write_text("0")
    args = [str(tmp_path / "config.lock"), str(counter), str(log), str(TURNS), how]
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", TURNS_UNDER_LOCK, *args],
            cwd=REPO_ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for worker in workers:
        assert worker.stdout is not None and worker.stdout.readline() == "ready\n"
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.write("go\n")
        worker.stdin.close()
    for worker in workers:
        assert worker.wait(timeout=120) == 0
        assert worker.stdout is not None
        worker.stdout.close()
    assert counter.read_text() == str(2 * TURNS)  # no turn lost
    lines = log.read_text().splitlines()
    assert len(lines) == 4 * TURNS
    # Every turn's start is followed by its own end: no turn began inside another.
    for start, end in zip(lines[::2], lines[1::2], strict=True):
        assert start.startswith("in ") and end == "out " + start.removeprefix("in ")
