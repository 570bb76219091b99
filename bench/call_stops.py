"""How many of our modules one call of each tool runs code in, and how many stops it makes.

    .venv/bin/python -m bench.call_stops [--tool recall_context] [--modules]

Each tool is called twice on the sample vault, in a fresh process of its own, through
`RecallServer.call_tool` as a client's call goes (the MCP layer, the scope, the tool's logic, the
changes told, the activity row), both calls under `sys.setprofile` — on this thread and on the
worker threads a call starts.  Every function entry whose code lies in `server/` or `app/` is
one stop.  A module's own top-level code, and the functions it calls while it is imported
(tables built once), are not the call's: they are left out of the stops, and the modules only
they ran are counted apart (`+imports`).  Printed per tool: the modules the call's code ran in
and its stops, for the first call of the process (what `serve` does once: word lists read,
patterns compiled) and for the second (what every later call does).
With `--modules`, each module's stops in the second call.  A reader following a call meets each
module as one more file to open, each stop as one more place to look.

tests/project/test_call_stops.py holds recall_context under a recorded ceiling.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import anyio
from mcp_types import CallToolResult

from tests.support.paths import REPO_ROOT, SAMPLE_VAULT

HOME_ENV = "VAULT_RECALL_HOME"
# One call of each tool, with arguments that make it do its usual work on the sample vault.
CALLS: dict[str, dict[str, Any]] = {
    "recall_context": {"subject": "build-system", "query": "why bazel"},
    "list_subjects": {},
    "recall_activity": {"subject": "build-system"},
    "read_note": {"note": "Projects/Build/Build decision.md"},
    "search_notes": {"query": "cache"},
    "get_backlinks": {"note": "Build decision"},
}
OUR_FOLDERS = tuple(str(REPO_ROOT / folder) + os.sep for folder in ("server", "app"))


@dataclass(frozen=True)
class Stops:
    tool: str
    per_module: Counter[str]  # module path (relative to the repository) -> function entries
    # Modules whose functions ran only while a module was being imported (tables built once).
    importing: frozenset[str] = frozenset()

    @property
    def modules(self) -> int:
        """Modules the call's own code ran in, imports aside."""
        return len(self.per_module)

    @property
    def with_imports(self) -> int:
        return len(self.per_module) + len(self.importing)

    @property
    def stops(self) -> int:
        return sum(self.per_module.values())


@contextmanager
def counting(per_module: Counter[str], importing: set[str]) -> Iterator[None]:
    """Count every entry into a function of ours, on this thread and every thread started inside:
    in `per_module`, or in `importing` when a module's top-level code is running beneath it."""
    depth = threading.local()  # how many modules are being imported under this frame

    def profile(frame: FrameType, event: str, arg: object) -> None:
        under = getattr(depth, "n", 0)
        if frame.f_code.co_name == "<module>":
            if event == "call":
                depth.n = under + 1
            elif event == "return":
                depth.n = under - 1
            return
        path = frame.f_code.co_filename
        if event == "call" and path.startswith(OUR_FOLDERS):
            if under:
                importing.add(path)
            else:
                per_module[path] += 1

    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        yield
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]  # None turns it off, as for sys


def measure(tool: str, arguments: dict[str, Any]) -> tuple[Stops, Stops]:
    """One tool's first and second call in this process, counted.  Needs VAULT_RECALL_HOME set
    to a folder of its own; the first is a first call only in a process that made none."""
    from vault_recall.server.config.call_scope import ServeOptions
    from vault_recall.server.mcp.tools import build_server

    server = build_server(ServeOptions(client="call-stops", pinned_vault=SAMPLE_VAULT))

    async def call() -> None:
        result = await server.call_tool(tool, arguments)
        if not isinstance(result, CallToolResult):
            raise SystemExit(f"{tool} asked for input instead of answering")
        if result.is_error:
            raise SystemExit(f"{tool} answered an error: {result.content[0]}")

    counted: list[Stops] = []
    try:
        for _ in range(2):
            per_module: Counter[str] = Counter()
            importing: set[str] = set()
            with counting(per_module, importing):
                anyio.run(call)
            relative = Counter({str(Path(path).relative_to(REPO_ROOT)): n for path, n in per_module.items()})
            imported = frozenset(str(Path(path).relative_to(REPO_ROOT)) for path in importing) - set(relative)
            counted.append(Stops(tool, relative, imported))
    finally:
        server.activity.close()
    return counted[0], counted[1]


def measure_in_fresh_home(tool: str) -> tuple[Stops, Stops]:
    with tempfile.TemporaryDirectory() as home:
        before = os.environ.get(HOME_ENV)
        os.environ[HOME_ENV] = home
        try:
            return measure(tool, CALLS[tool])
        finally:
            if before is None:
                del os.environ[HOME_ENV]
            else:
                os.environ[HOME_ENV] = before


def in_fresh_process(tool: str) -> tuple[Stops, Stops]:
    """Both calls of one tool in a new interpreter, so its first call is a process's first."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.call_stops", "--one", tool],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO_ROOT,
    )
    (first, first_importing), (second, second_importing) = json.loads(done.stdout)
    return (
        Stops(tool, Counter(first), frozenset(first_importing)),
        Stops(tool, Counter(second), frozenset(second_importing)),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.call_stops", description=__doc__.split("\n")[0])
    parser.add_argument("--tool", choices=sorted(CALLS), action="append", help="only this tool (repeatable)")
    parser.add_argument("--modules", action="store_true", help="each module's stops in the second call too")
    parser.add_argument("--one", choices=sorted(CALLS), help=argparse.SUPPRESS)  # the child's part
    options = parser.parse_args(argv)
    if options.one:
        counted = measure_in_fresh_home(options.one)
        print(json.dumps([[dict(found.per_module), sorted(found.importing)] for found in counted]))
        return 0
    print(f"{'tool':<16} {'first call':>29} {'second call':>18}")
    print(f"{'':<16} {'modules':>8} {'+imports':>9} {'stops':>10} {'modules':>8} {'stops':>9}")
    for tool in options.tool or list(CALLS):
        first, second = in_fresh_process(tool)
        print(
            f"{tool:<16} {first.modules:>8} {first.with_imports:>9} {first.stops:>10}"
            f" {second.modules:>8} {second.stops:>9}"
        )
        if options.modules:
            for path, n in sorted(second.per_module.items(), key=lambda item: (-item[1], item[0])):
                print(f"    {n:>5}  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
