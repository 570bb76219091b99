"""No test waits a short, fixed wall-clock time: a call that must still be running when something
happens is made so on purpose (tests/support/mid_call.py), and a wait is for a condition, with
a generous bound.  This scan flags what would assume the machine's speed:

- a sleep for a fixed time outside a loop (inside one it is a poll's interval);
- a bound under SHORT seconds — `move_on_after`, `fail_after`, `wait_for`, `.wait()`, `.join()`,
  `.settimeout()`, or a `timeout=`, `delay=` or `…_after=` argument — outside a `while` loop.

Each exception is in ALLOWED, with the reason it does not depend on the machine's speed."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from tests.support import sources
from tests.support.paths import REPO_ROOT

SHORT = 5.0  # seconds: a bound under it can run out on a busy 2-core machine
BOUNDS = {"move_on_after", "fail_after", "wait", "join", "settimeout"}
KEYWORDS = {"timeout", "delay"}

# (file, function, what) → why it is fine.  Reviewed one by one; add to it only with a reason.
STORE_LOOK = "StoreWatch.wait(0) is a look that never blocks (what has the kernel said so far), not a bound"
ALLOWED: dict[tuple[str, str, str], str] = {
    (
        "tests/app/desktop/test_store_watch.py",
        "test_a_write_to_the_store_ends_the_wait_and_reads_do_not",
        "wait",
    ): STORE_LOOK,
    ("tests/app/desktop/test_store_watch.py", "test_stop_ends_a_wait_at_once", "wait"): STORE_LOOK,
    (
        "tests/app/desktop/test_store_watch.py",
        "test_without_inotify_the_waiter_is_told_to_look_once_per_poll",
        "wait",
    ): STORE_LOOK,
    (
        "tests/app/desktop/test_store_watch.py",
        "test_a_store_whose_folder_comes_later_is_watched_once_it_is_there",
        "wait",
    ): STORE_LOOK,
}


@dataclass(frozen=True)
class Wait:
    path: str
    line: int
    function: str
    what: str
    seconds: float

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.path, self.function, self.what)


def seconds(node: ast.expr) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return float(node.value)
    return None


def called(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


class Finder(ast.NodeVisitor):
    def __init__(self, path: str) -> None:
        self.path = path
        self.functions: list[str] = []
        self.polling = 0  # inside how many `while` loops of the current function
        self.loops = 0  # inside how many loops of any kind
        self.found: list[Wait] = []

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.functions.append(node.name)
        outer = self.polling, self.loops
        self.polling = self.loops = 0
        self.generic_visit(node)
        self.polling, self.loops = outer
        self.functions.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_While(self, node: ast.While) -> None:
        self.polling += 1
        self.loops += 1
        self.generic_visit(node)
        self.loops -= 1
        self.polling -= 1

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.loops += 1
        self.generic_visit(node)
        self.loops -= 1

    visit_AsyncFor = visit_For

    def visit_Call(self, node: ast.Call) -> None:
        name = called(node)
        first = seconds(node.args[0]) if node.args else None
        if name == "sleep" and first and not self.loops:
            self.flag(node, "sleep", first)
        elif not self.polling:
            if name in BOUNDS and first is not None and first < SHORT:
                self.flag(node, name, first)
            elif name == "wait_for" and len(node.args) > 1:
                bound = seconds(node.args[1])
                if bound is not None and bound < SHORT:
                    self.flag(node, name, bound)
            for keyword in node.keywords:
                if keyword.arg and (keyword.arg in KEYWORDS or keyword.arg.endswith("_after")):
                    value = seconds(keyword.value)
                    if value is not None and value < SHORT:
                        self.flag(node, f"{name}({keyword.arg}=)", value)
        self.generic_visit(node)

    def flag(self, node: ast.Call, what: str, value: float) -> None:
        self.found.append(Wait(self.path, node.lineno, ".".join(self.functions) or "<module>", what, value))


def short_waits(root: Path, source: str | None = None) -> list[Wait]:
    """Every short fixed wait in the tests under `root` (or in `source`, as one file)."""
    if source is not None:
        finder = Finder("<source>")
        finder.visit(ast.parse(source))
        return finder.found
    found: list[Wait] = []
    for path in sorted((root / "tests").rglob("*.py")):
        finder = Finder(path.relative_to(root).as_posix())
        finder.visit(sources.tree(path))
        found += finder.found
    return found


def test_no_test_waits_a_short_fixed_time_unless_reviewed() -> None:
    unreviewed = [
        f"{w.path}:{w.line} {w.function}: {w.what} {w.seconds:g} s"
        for w in short_waits(REPO_ROOT)
        if w.key not in ALLOWED
    ]
    assert unreviewed == [], "wait for a condition instead (or review it into ALLOWED):\n" + "\n".join(unreviewed)


def test_every_reviewed_wait_is_still_there_and_says_why() -> None:
    present = {w.key for w in short_waits(REPO_ROOT)}
    assert [key for key in ALLOWED if key not in present] == []
    assert all(len(reason) > 20 for reason in ALLOWED.values())


def test_the_scan_tells_a_fixed_wait_from_a_poll_interval_and_a_generous_bound() -> None:
    source = """
async def gives_up_early(session):
    with anyio.move_on_after(0.1):
        await session.call_tool("search_notes", {})
    time.sleep(0.05)
    await asyncio.wait(calls, timeout=0.3)
    await peer.call("x", {}, cancel_after=0.2)
    thread.join(1)
    for mode in modes:
        with anyio.move_on_after(0.1):
            pass

async def polls():
    with anyio.fail_after(20):
        while not done():
            await anyio.sleep(0.05)
            sock.settimeout(0.3)
    process.wait(30)
    await asyncio.sleep(0)
    for _ in range(100):
        time.sleep(0.01)
"""
    found = [(w.function, w.what, w.seconds) for w in short_waits(REPO_ROOT, source)]
    assert found == [
        ("gives_up_early", "move_on_after", 0.1),
        ("gives_up_early", "sleep", 0.05),
        ("gives_up_early", "wait(timeout=)", 0.3),
        ("gives_up_early", "call(cancel_after=)", 0.2),
        ("gives_up_early", "join", 1.0),
        ("gives_up_early", "move_on_after", 0.1),
    ]
