"""The running tray's lock and the requests left for it (app/tray/running/instance.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from vault_recall.app.tray.running import instance


def test_one_lock_at_a_time_and_its_holder_is_found_by_its_process_id(tmp_path: Path) -> None:
    assert instance.running_pid(tmp_path) is None
    lock = instance.acquire(tmp_path)
    assert lock is not None
    assert instance.acquire(tmp_path) is None  # a second tray
    assert instance.running_pid(tmp_path) == os.getpid()
    lock.release()
    assert instance.running_pid(tmp_path) is None
    again = instance.acquire(tmp_path)
    assert again is not None
    again.release()


def test_a_request_reaches_the_running_tray_once_and_none_is_left_when_no_tray_runs(tmp_path: Path) -> None:
    assert instance.send("show", tmp_path) is None  # nobody to ask
    assert instance.take_request(tmp_path) is None
    lock = instance.acquire(tmp_path)
    assert lock is not None
    assert instance.send("quit", tmp_path) == os.getpid()
    assert instance.take_request(tmp_path) == "quit"
    assert instance.take_request(tmp_path) is None
    with pytest.raises(ValueError):
        instance.send("format the disk", tmp_path)
    (tmp_path / instance.REQUEST_FILE).write_text("something else", encoding="ascii")
    assert instance.take_request(tmp_path) is None  # not a request: dropped
    lock.release()


def test_a_request_left_for_a_tray_that_ended_is_not_taken_by_the_next_one(tmp_path: Path) -> None:
    (tmp_path / instance.REQUEST_FILE).write_text("quit", encoding="ascii")
    lock = instance.acquire(tmp_path)
    assert lock is not None
    assert instance.take_request(tmp_path) is None
    lock.release()


def test_a_tray_killed_outright_leaves_no_stale_lock(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from vault_recall.app.tray.running import instance; "
            "lock = instance.acquire(Path(sys.argv[1])); print('held', flush=True); time.sleep(600)",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    assert instance.running_pid(tmp_path) == holder.pid
    holder.kill()  # SIGKILL; TerminateProcess on Windows
    holder.wait(timeout=30)
    holder.stdout.close()
    assert instance.running_pid(tmp_path) is None
    assert instance.wait_until_ended(0.0, tmp_path)
