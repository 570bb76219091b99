"""Catching a real server process in the middle of a call, whatever the machine's speed.

A pass over a vault holds the vault's folder open from its first listing to its last note
(server/vault/listing.py, server/vault/folders.py), so while /proc shows the process holding
that folder, a call over the vault is under way.  `caught_mid_call` waits for that, stops the
process there (SIGSTOP: every thread, so the call cannot finish), and lets it go on (SIGCONT)
when the block ends: what the test does in the block happens while the call is still running,
however fast the search has become.  Linux only (/proc); tests that use it skip elsewhere.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

POLL = 0.001  # how often /proc is looked at: a poll interval, not a bound


def holds_open(pid: int, folder: Path) -> bool:
    """Does process `pid` have `folder` open (a pass over it is under way)?"""
    wanted = os.path.realpath(folder)
    try:
        descriptors = os.listdir(f"/proc/{pid}/fd")
    except OSError:  # the process is gone
        return False
    for fd in descriptors:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == wanted:
                return True
        except OSError:  # closed between the listing and the look
            continue
    return False


def all_stopped(pid: int) -> bool:
    """Has every thread of `pid` stopped (state T or t)?"""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for task in tasks:
        try:
            stat = Path(f"/proc/{pid}/task/{task}/stat").read_text(encoding="utf-8")
        except OSError:
            continue  # a thread that ended
        if stat.rsplit(")", 1)[1].split()[0] not in ("T", "t"):
            return False
    return True


async def seen_mid_call(pid: int, vault: Path, *, bound: float = 60.0) -> None:
    """Wait (at most `bound` seconds) until process `pid` is seen in a pass over `vault`, and
    let it go on: what follows lands while the call runs unless the rest of the pass is
    quicker than the next step of the test (a test that cannot allow that uses
    `caught_mid_call`)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("seeing a process mid-call reads /proc, which is Linux's")
    try:
        with anyio.fail_after(bound):
            while not holds_open(pid, vault):
                await anyio.sleep(POLL)
    except TimeoutError:
        raise AssertionError(f"process {pid} was never seen in a pass over {vault} in {bound:.0f} s") from None


async def no_pass_over(pid: int, vault: Path, *, bound: float = 60.0) -> None:
    """Wait (at most `bound` seconds) until process `pid` is in no pass over `vault`: a call
    given up may leave its pass running on a worker thread, which `caught_mid_call` would take
    for the next call's."""
    with anyio.fail_after(bound):
        while holds_open(pid, vault):
            await anyio.sleep(POLL)


@asynccontextmanager
async def caught_mid_call(pid: int, vault: Path, *, bound: float = 60.0) -> AsyncIterator[None]:
    """Wait (at most `bound` seconds) until process `pid` is in a pass over `vault`, and keep
    it stopped there for the block."""
    if not sys.platform.startswith("linux"):
        pytest.skip("catching a process mid-call reads /proc, which is Linux's")
    caught = False
    try:
        with anyio.fail_after(bound):
            while not caught:
                while not holds_open(pid, vault):
                    await anyio.sleep(POLL)
                os.kill(pid, signal.SIGSTOP)
                while not all_stopped(pid):
                    await anyio.sleep(POLL)
                caught = holds_open(pid, vault)
                if not caught:  # the pass ended between the look and the stop: look again
                    os.kill(pid, signal.SIGCONT)
    except TimeoutError:
        raise AssertionError(f"process {pid} was never seen in a pass over {vault} in {bound:.0f} s") from None
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)
