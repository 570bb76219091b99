"""`vault-recall tray` (and `vault-recall` alone), `quit`, `pause` and `resume`.

One tray per person (app/tray/running/instance.py): a second start finds the running one, asks it to
show where it is, and says so instead of starting a twin whose notifications would all come
twice.  Pause and resume are a config flag every server reads on every call, so they work
whether or not a tray runs.
"""

from __future__ import annotations

import argparse
import sys

from vault_recall.app.tray.running import instance

QUIT_SECONDS = 20.0


def tray(args: argparse.Namespace) -> int:
    from vault_recall.app.cli import report_commands
    from vault_recall.app.tray.running.backend_choice import choose_backend, run_tray

    pid = instance.send("show")
    if pid is not None:
        print(_running(pid), file=sys.stderr)
        return 0
    choice = choose_backend()
    if choice.problem is not None:
        print(f"vault-recall: cannot show the tray: {choice.problem}\n", file=sys.stderr)
        print("Here is the status instead (vault-recall --help lists every command):\n", file=sys.stderr)
        report_commands.status(args)
        return 1
    lock = instance.acquire()
    if lock is None:  # another tray started in the meantime
        print(_running(instance.running_pid() or 0), file=sys.stderr)
        return 0
    # Held until the process ends, not released here: `vault-recall quit` waits for the lock,
    # so when it returns the tray and its HTTP endpoint are gone.
    from vault_recall.app.tray.menu.snapshot import ensure_a_vault

    ensure_a_vault()
    run_tray(choice)
    return 0


def _running(pid: int) -> str:
    which = f" (process {pid})" if pid else ""
    return f"Vault Recall's tray is already running{which}: look for its icon in the panel; `vault-recall quit` ends it"


def quit_tray(args: argparse.Namespace) -> int:
    pid = instance.send("quit")
    if pid is None:
        print("Vault Recall's tray is not running; nothing to quit")
        return 0
    if not instance.wait_until_ended(QUIT_SECONDS):
        which = f"process {pid}" if pid else "the process holding its lock"
        print(f"vault-recall: the tray did not quit within {QUIT_SECONDS:.0f} s; end {which}", file=sys.stderr)
        return 1
    print("Vault Recall's tray has quit (clients still start their own servers: `vault-recall pause` stops recall)")
    return 0


def pause(args: argparse.Namespace) -> int:
    from vault_recall.app.state.pause import set_paused

    changed = set_paused(True)
    print(
        ("Recall is paused" if changed else "Recall was paused already")
        + ": every client's calls answer `unavailable` (paused by the person) until `vault-recall resume`"
    )
    return 0


def resume(args: argparse.Namespace) -> int:
    from vault_recall.app.state.pause import set_paused

    if set_paused(False):
        print("Recall resumed: every client's next call reads the vault again")
    else:
        print("Recall was not paused; nothing changed")
    return 0
