"""Functions a test hands to the pool's worker processes (finding/pool.py): importable by
name, as a spawned worker must find them."""

from __future__ import annotations

import gc
import os
import sys


def held_text(marker: str) -> list[str]:
    """What in this process holds `marker` (in a str or bytes): the type of each object
    holding it, everything reachable from the collector's objects and the modules searched
    (containers the collector stops tracking, such as a dict of strings, included)."""
    wanted = marker.encode()
    seen: set[int] = set()
    found: list[str] = []
    todo: list[object] = [*gc.get_objects(), *sys.modules.values()]
    probe = sys._getframe()  # its own locals hold the marker
    while todo:
        item = todo.pop()
        if id(item) in seen or item is probe or item is todo or item is seen or item is found:
            continue
        seen.add(id(item))
        if isinstance(item, str):
            if marker in item and item is not marker:
                found.append("str")
            continue
        if isinstance(item, (bytes, bytearray, memoryview)):
            if wanted in bytes(item) and item is not wanted:
                found.append(type(item).__name__)
            continue
        todo.extend(gc.get_referents(item))
    return found


def pid(_: object) -> int:
    return os.getpid()


def doubled(value: int) -> int:
    return value * 2


def fail_here(task: tuple[int, int]) -> int:
    """Raises in the process that asked (task: (that process's id, value)); a worker doubles."""
    asker, value = task
    if os.getpid() == asker:
        raise KeyboardInterrupt  # as a call stopped mid-pass
    return value * 2


def die_in_worker(task: tuple[int, int]) -> int:
    """A worker dies on it; the process that asked (task: (its id, value)) doubles."""
    asker, value = task
    if os.getpid() != asker:
        os._exit(3)
    return value * 2
