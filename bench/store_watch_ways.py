"""Ways to hear a server write the activity store, side by side: idle CPU and wake-up time.

The tray waits for the store's folder to change (app/desktop/store_watch.py): by inotify on
Linux, and where there is none (macOS, Windows) by looking once a second.  Here each way runs
alone in this process on one store: first left alone for `--idle` seconds (the process's CPU
time over that, as a share of one core), then `--writes` events appended as a server's writer
does, each timed to the watcher's wake-up (between two, a random part of a second passes, so a
poll's phase is sampled).  The ways:

- `inotify`: StoreWatch as the tray runs it on Linux;
- `poll`: StoreWatch without the kernel's word, as on macOS and Windows;
- `watchfiles` (if importable: it is not a dependency; `pip install --target DIR watchfiles` and
  put DIR on PYTHONPATH): its `watch()` on the folder, with its default grouping (`step` 50 ms)
  and with `step` 10 ms.  inotify underneath on Linux, FSEvents on macOS, ReadDirectoryChangesW
  on Windows.

    .venv/bin/python -m bench.store_watch_ways [--idle 20] [--writes 20]

Nothing is asserted.  docs/benchmarks.md keeps the figures and the choice they made.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import queue
import random
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from bench.tools import percentile
from tests.support.activity_events import event
from vault_recall.app.desktop import store_watch, tree_watch
from vault_recall.server.activity.writer import ActivityWriter

KERNEL = "kernel"  # the name store_watch looks inotify up by (imported from tree_watch)


def _no_kernel() -> None:
    return None


# A way: started on the store, it calls `heard` on each wake-up until the stop event is set.
Way = Callable[[Path, Callable[[], None], threading.Event], None]


def by_store_watch(kernel: bool) -> Way:
    def run(store: Path, heard: Callable[[], None], stop: threading.Event) -> None:
        with contextlib.ExitStack() as undo:
            if not kernel:
                undo.callback(setattr, store_watch, KERNEL, tree_watch.kernel)
                setattr(store_watch, KERNEL, _no_kernel)
            watch = store_watch.StoreWatch(store)

        def stop_when_told() -> None:
            stop.wait()
            watch.stop()

        threading.Thread(target=stop_when_told, daemon=True).start()
        while not stop.is_set():
            if watch.wait(60.0):
                heard()
        watch.close()

    return run


def by_watchfiles(step: int) -> Way | None:
    try:
        watchfiles = importlib.import_module("watchfiles")
    except ImportError:
        return None

    def run(store: Path, heard: Callable[[], None], stop: threading.Event) -> None:
        for _ in watchfiles.watch(store.parent, stop_event=stop, step=step):
            heard()

    return run


def measure(name: str, way: Way, folder: Path, idle: float, writes: int) -> str:
    store = folder / "activity.sqlite3"
    store.parent.mkdir(parents=True)
    woken: queue.Queue[float] = queue.Queue()
    stop = threading.Event()
    with ActivityWriter() as writer:
        writer.append(store, event(returned=(("Before.md", "r"),)))
        watcher = threading.Thread(target=way, args=(store, lambda: woken.put(time.perf_counter()), stop), daemon=True)
        watcher.start()
        time.sleep(2.0)  # started, and what the first write stirred has settled
        _drain(woken)
        wall, cpu = time.monotonic(), time.process_time()
        time.sleep(idle)
        share = (time.process_time() - cpu) / (time.monotonic() - wall)
        latencies: list[float] = []
        for n in range(writes):
            time.sleep(0.3 + random.random())
            _drain(woken)
            since = time.perf_counter()
            writer.append(store, event(returned=((f"New {n}.md", "r"),)))
            with contextlib.suppress(queue.Empty):
                latencies.extend(at - since for at in _after(woken, since))
    stop.set()
    watcher.join(10)
    ms = [1000 * s for s in latencies]
    return (
        f"{name:<18} idle {100 * share:6.3f} % of a core   wake-up {len(ms)}/{writes}: "
        f"median {statistics.median(ms):4.0f} ms, p95 {percentile(ms, 0.95):4.0f} ms, max {max(ms):4.0f} ms"
    )


def _drain(woken: queue.Queue[float]) -> None:
    with contextlib.suppress(queue.Empty):
        while True:
            woken.get_nowait()


def _after(woken: queue.Queue[float], since: float) -> Iterator[float]:
    """The first wake-up after `since` (waiting at most 5 s)."""
    while (at := woken.get(timeout=5.0)) < since:
        pass
    yield at


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--idle", type=float, default=20.0, help="seconds left alone (default 20)")
    parser.add_argument("--writes", type=int, default=20, help="writes timed to the wake-up (default 20)")
    args = parser.parse_args(argv)
    ways: dict[str, Way | None] = {
        "inotify": by_store_watch(kernel=True) if tree_watch.kernel() is not None else None,
        "poll (1 s)": by_store_watch(kernel=False),
        "watchfiles": by_watchfiles(step=50),
        "watchfiles step=10": by_watchfiles(step=10),
    }
    with tempfile.TemporaryDirectory(prefix="vault-recall-watch-ways-") as folder:
        for number, (name, way) in enumerate(ways.items()):
            if way is None:
                print(f"{name:<18} not here")
                continue
            print(measure(name, way, Path(folder) / str(number), args.idle, args.writes), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
