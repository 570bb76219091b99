"""Slow preparations started when the run begins, on threads of their own.

In one process (`-n 0`) the full suite keeps about one of two cores busy, a test at a time.
A few preparations take most of a minute each and mostly wait or use a core of their own —
building the bundle with PyInstaller, resolving every dependency's wheels from PyPI for other
platforms — so they start as soon as the tests are collected (when a test that needs them was
selected) and their tests, which run near the end, find them done or nearly so.

A test module registers its preparation at import (`register`); `tests/conftest.py` starts the
ones whose module has a selected test (`begin`); the module's fixture asks for the result
(`result`), which starts the preparation there if nothing started it (a single test run by
hand) and re-raises what it raised — a skip included.

Under pytest-xdist (the default) no preparation starts early: each worker collects every
test, and only the one that runs a module's tests may prepare for them.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

# A preparation gets a folder of its own (removed when the run ends) and the environment as it
# was when the run began: tests change os.environ while it works, and it must not see that.
Preparation = Callable[[Path, Mapping[str, str]], Any]

_registered: dict[str, tuple[str, Preparation]] = {}  # name → (module, preparation)
_started: dict[str, Future[Any]] = {}
_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="head-start")


def register(module: str, name: str, preparation: Preparation) -> None:
    _registered[name] = (module, preparation)


def begin(modules: Iterable[str], environment: Mapping[str, str]) -> None:
    """Start every preparation registered by one of `modules`."""
    wanted = set(modules)
    for name, (module, _) in _registered.items():
        if module in wanted:
            _start(name, dict(environment))


def result(name: str, environment: Mapping[str, str]) -> Any:
    """The preparation's result, waiting for it; started now if it was not."""
    return _start(name, dict(environment)).result()


def _start(name: str, environment: dict[str, str]) -> Future[Any]:
    if name not in _started:
        _, preparation = _registered[name]
        folder = Path(tempfile.mkdtemp(prefix=f"vault-recall-{name}-"))
        atexit.register(shutil.rmtree, folder, True)
        _started[name] = _pool.submit(preparation, folder, environment)
    return _started[name]
