"""The tray at rest and on a recall: its CPU while nothing happens, and the time from a recall
written to the activity store to the blue dot on its icon.

In this process, with its own `VAULT_RECALL_HOME` (a copy of the sample vault as the active
vault, a store holding a few hundred events): the real `TrayApp` with a view that records what
it is shown (tests/support/tray_standin.py), its threads as the tray runs them.  First it is
left alone for `--idle` seconds: the process's CPU time over that, as a share of one core, how
often its threads woke (context switches, /proc/self/task/*/status) and how often it read the
OAuth store (which it holds, as when an app authorized).
Then `--recalls` times: an event with a recalled note appended to the store (as a server's
writer does), and the time until the view shows the blue dot; between two, the dot is let go
out (it lasts 3 s) and a random part of a second passes, so a poll's phase is sampled.
Nothing is asserted.

    .venv/bin/python -m bench.tray_wakeup [--idle 30] [--recalls 20] [--watch kernel|poll]

`--watch poll` takes the kernel's word away (inotify), as on macOS and Windows, where the tray
looks at the store once a second: the two ways' figures are what docs/benchmarks.md compares.

To measure another version of the tray, put a folder holding `vault_recall/app` and
`vault_recall/server` (links to its folders) first on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.tools import percentile


def _no_kernel() -> None:
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--idle", type=float, default=30.0, help="seconds left alone (default 30)")
    parser.add_argument("--recalls", type=int, default=20, help="recalls timed to the blue dot (default 20)")
    parser.add_argument(
        "--watch", choices=("kernel", "poll"), default="kernel", help="inotify, or the poll of macOS and Windows"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="vault-recall-tray-wakeup-") as folder:
        os.environ["VAULT_RECALL_HOME"] = str(Path(folder) / "home")
        if args.watch == "poll":
            from vault_recall.app.desktop import store_watch, tree_watch

            # No inotify, as where there is none: both watchers fall back to their polls.
            for module in (store_watch, tree_watch):
                setattr(module, "kernel", _no_kernel)  # noqa: B010 - store_watch does not export it
        print(f"watching by: {args.watch}")
        return measure(Path(folder), args.idle, args.recalls)


def wakeups() -> int:
    """Context switches of every thread of this process so far: each is a wake-up (or a preemption)."""
    total = 0
    for status in Path("/proc/self/task").glob("*/status"):
        try:
            text = status.read_text(encoding="ascii")
        except OSError:
            continue  # a thread that ended meanwhile
        total += sum(int(line.split()[1]) for line in text.splitlines() if "ctxt_switches:" in line)
    return total


def measure(folder: Path, idle: float, recalls: int) -> int:
    # Imported once VAULT_RECALL_HOME is set, from whichever version PYTHONPATH gives.
    from tests.support.activity_events import event
    from tests.support.e2e import copy_sample_vault
    from tests.support.tray_standin import RecordingView
    from vault_recall.app.state.config_store import save_config
    from vault_recall.app.tray.running import tray_app
    from vault_recall.server.activity.writer import ActivityWriter
    from vault_recall.server.config.config_file import Config, VaultEntry, activity_path
    from vault_recall.server.oauth import store as oauth_store

    with oauth_store.connect():
        pass  # an OAuth store, as on a computer where an app authorized
    reads = [0]
    from vault_recall.app.tray.endpoint import app_grants
    from vault_recall.app.tray.endpoint.app_grants import read_approvals

    def counted() -> Any:
        reads[0] += 1
        return read_approvals()

    setattr(app_grants, "read_approvals", counted)  # noqa: B010 (not an attribute mypy knows it exports)
    vault = copy_sample_vault(folder / "Work")
    save_config(Config(vaults=(VaultEntry(name="Work", path=str(vault)),), active_vault="Work"))
    writer = ActivityWriter()
    for n in range(300):
        writer.append(activity_path(), event(vault="Work", returned=((f"Old {n}.md", "r1"),), ts=time.time() - 3600))
    view = RecordingView()
    app = tray_app.TrayApp(lambda backend, dispatch: view, "sni")
    runner = threading.Thread(target=app.run, name="tray", daemon=True)
    runner.start()
    print(f"tray code: {Path(tray_app.__file__).parent.parent}")
    time.sleep(5.0)  # the first health check and refreshes settle
    wall, cpu, woke, read = time.monotonic(), time.process_time(), wakeups(), reads[0]
    time.sleep(idle)
    spent = time.monotonic() - wall
    share = (time.process_time() - cpu) / spent
    print(f"idle for {idle:g} s: {100 * share:.3f} % of a core")
    woken, looked = (wakeups() - woke) / spent, (reads[0] - read) / spent
    print(f"idle wake-ups: {woken:.2f} a second; OAuth store reads: {looked:.2f} a second")
    latencies: list[float] = []
    for n in range(recalls):
        time.sleep(tray_app.RECALL_MARK_SECONDS + 0.5 + random.random())  # the dot is out again
        since = time.perf_counter()
        writer.append(activity_path(), event(vault="Work", returned=((f"New {n}.md", "r1"),)))
        if view.until_dot(since, time.monotonic() + 30):
            latencies.append(next(at for at, shown in view.shown if at >= since and shown.recalling) - since)
    app.dispatch(("quit",))
    runner.join(30)
    writer.close()
    ms = [1000 * s for s in latencies]
    if ms:
        print(
            f"recall to blue dot, {len(ms)}/{recalls}: median {statistics.median(ms):.0f} ms, "
            f"p95 {percentile(ms, 0.95):.0f} ms, max {max(ms):.0f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
