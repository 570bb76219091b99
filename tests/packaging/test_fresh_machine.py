"""README's test command on a fresh machine, without what `.ci/run` adds: a copy of the checkout
installed into a new venv (`pip install -e '.[test]'`, no system site packages, so no system
`gi` on its path), then the tests that need a part of the machine run with a PATH that holds
only Python, git and what a bare Debian has — no Xvfb, D-Bus, panels, dunst, xdotool, xclip,
ImageMagick, desktop-file-validate, setpriv, ripgrep, binutils, node or npm — and no npm tools
or AI clients beside the copy.  Nothing may fail, and every test skipped must say which part it
lacks and what installs it.

The tests run are those that ask for a part (tests.support.parts): whole modules where a
fixture asks (the tray on a desktop, the bundle), else the test functions that ask — 45 tests
today, not the whole suite, which takes minutes more and needs no part elsewhere.  python3-gi,
gir1.2-gtk-3.0 and the word lists cannot be hidden this way (the tray loads the system's
PyGObject by its path, the word lists are read by theirs): where this machine has them, their
tests pass here instead of skipping."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest

from tests.support import head_start
from tests.support.paths import REPO_ROOT

pytestmark = [pytest.mark.e2e]

# What a bare Debian has on its PATH that tests or the tools they run may use.
BARE = (
    *("sh", "bash", "env", "true", "false", "echo", "printf", "test", "cat", "cp", "mv", "rm", "ln", "ls"),
    *("mkdir", "rmdir", "chmod", "touch", "head", "tail", "sort", "uniq", "tr", "cut", "wc", "tee"),
    *("dirname", "basename", "readlink", "realpath", "mktemp", "date", "sleep", "uname", "id", "whoami"),
    *("grep", "sed", "find", "xargs", "tar", "gzip", "diff", "ldd", "getent", "hostname", "git"),
)
# Each is what a part's test runs: none may be found on the PATH the tests get.
HIDDEN = (
    *("Xvfb", "dbus-daemon", "dbus-send", "dbus-launch", "gtk-sni-tray-standalone", "trayer", "dunst"),
    *("xfce4-panel", "lxqt-panel"),
    *("xdotool", "xclip", "import", "desktop-file-validate", "setpriv", "rg", "objdump", "strip", "node", "npm"),
)
NOT_COPIED = {".venv", ".git", "build", "dist", ".ci/npm", ".real-clients", ".hypothesis"}
ASKS = {"need", "as_nobody_if_root", "x_and_session_bus"}  # what asks for a part (tests.support.parts, .headless)
SKIPPED = re.compile(r"^SKIPPED \[(\d+)\] \S+: (.+)$", re.M)


def asks_for_a_part(node: ast.AST) -> bool:
    return any(
        isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in ASKS
        for call in ast.walk(node)
    )


def asking_for_parts(root: Path) -> list[str]:
    """Node ids: every test module where a fixture (or anything but a test) asks for a part,
    whole; elsewhere each test function that asks itself."""
    chosen: list[str] = []
    for path in sorted((root / "tests").rglob("test_*.py")):
        if path.name == Path(__file__).name:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        functions = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        module = path.relative_to(root).as_posix()
        if any(asks_for_a_part(f) for f in functions if not f.name.startswith("test_")):
            chosen.append(module)
        else:
            chosen += [f"{module}::{f.name}" for f in functions if f.name.startswith("test_") and asks_for_a_part(f)]
    return chosen


def bare_bin(folder: Path) -> Path:
    folder.mkdir()
    for name in BARE:
        found = shutil.which(name)
        if found:
            (folder / name).symlink_to(found)
    python = getattr(sys, "_base_executable", sys.executable)  # the interpreter `python3` names
    (folder / "python3").symlink_to(python)
    return folder


def copy_of_the_checkout(dest: Path) -> Path:
    def ignored(folder: str, names: list[str]) -> set[str]:
        relative = Path(folder).relative_to(REPO_ROOT)
        return {
            name
            for name in names
            if (relative / name).as_posix() in NOT_COPIED
            or name == "__pycache__"
            or name.endswith(("_cache", ".egg-info"))
        }

    shutil.copytree(REPO_ROOT, dest, ignore=ignored)
    return dest


def test_the_selection_finds_the_tests_of_every_kind_of_part() -> None:
    chosen = asking_for_parts(REPO_ROOT)
    assert "tests/desktop/test_tray_x11.py" in chosen and "tests/packaging/test_bundle.py" in chosen
    assert any(c.startswith("tests/clients/test_real_clients.py::") for c in chosen)
    assert "tests/e2e/test_recall.py::test_an_unreadable_vault_folder_is_unavailable" in chosen
    assert not any(c.startswith("tests/server/recall/answers/test_recall_logic.py") for c in chosen)


def test_ci_run_runs_the_fresh_machine_first_with_every_program_of_a_part_hidden() -> None:
    # .ci/fresh-machine's own list: every program a part's test runs must be in it.
    script = (REPO_ROOT / ".ci" / "fresh-machine").read_text(encoding="utf-8")
    listed = re.search(r"^programs=\(([^)]*)\)", script, re.M)
    assert listed is not None
    assert sorted(set(HIDDEN) - set(listed.group(1).split())) == []
    run = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 0 < run.index("bash .ci/fresh-machine\n") < run.index(".venv/bin/pytest -q")


@dataclass(frozen=True)
class FreshInstall:
    project: Path  # a copy of the checkout, installed into its own .venv
    env: dict[str, str]  # the environment of a machine without .ci/run's extras
    seconds: float  # how long the README's install took


def install_fresh(folder: Path, outer: Mapping[str, str]) -> FreshInstall:
    """The README's install into a copy of the checkout, with a PATH of the bare machine.
    Started as the run begins (tests/support/head_start.py): it is most of a minute of pip."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the bare Debian PATH is Linux's")
    path = bare_bin(folder / "bin")
    assert [name for name in HIDDEN if shutil.which(name, path=str(path))] == []
    project = copy_of_the_checkout(folder / "vault-recall")
    env = {
        k: v
        for k, v in outer.items()
        if k not in ("CI", "DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "PYTHONPATH", "PYTHONHOME")
        and not k.startswith(("VIRTUAL_ENV", "VAULT_RECALL"))
    }
    env.update(PATH=str(path), HYPOTHESIS_PROFILE="dev")
    started = time.monotonic()
    subprocess.run(["python3", "-m", "venv", ".venv"], cwd=project, env=env, check=True, timeout=300)
    install = subprocess.run(
        [".venv/bin/pip", "install", "-q", "-e", ".[test]"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    return FreshInstall(project, env, time.monotonic() - started)


head_start.register(__name__, "fresh-machine", install_fresh)


def test_without_ci_run_s_extras_nothing_fails_and_each_skip_names_its_part() -> None:
    fresh = cast(FreshInstall, head_start.result("fresh-machine", os.environ))
    project, env, installed = fresh.project, fresh.env, fresh.seconds
    chosen = asking_for_parts(project)
    run = subprocess.run(
        [".venv/bin/python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", *chosen],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    summary = run.stdout.strip().splitlines()[-1]
    print(f"\ninstalled in {installed:.0f} s; {len(chosen)} selections; {summary}")
    print("\n".join(line for line in run.stdout.splitlines() if line.startswith("SKIPPED")))
    assert run.returncode == 0 and " failed" not in summary and " error" not in summary, run.stdout[-5000:]
    reasons = {reason: int(count) for count, reason in SKIPPED.findall(run.stdout)}
    assert all(re.search(r" (is|are) not installed \(", reason) for reason in reasons), reasons
    said = " ".join(reasons)
    for part in ("Xvfb", "dbus-daemon", "setpriv", "objdump and strip", "MCP Inspector", "Claude Code"):
        assert f"{part}" in said, f"no test skipped for want of {part}: {reasons}"
