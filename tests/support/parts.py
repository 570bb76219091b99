"""The parts of a machine some tests need beyond Python and the test extra, and the one way to
ask for them.

`need("xvfb", "xdotool")` skips the test when any part is missing, naming each missing part
and what installs it ("Xvfb is not installed (Debian: xvfb)"); where `CI` is set it fails
instead, since `.ci/run` installs them all.  Each part is looked for itself, so a test asks for
exactly what it runs: python3-gi without GTK's introspection data (gir1.2-gtk-3.0) is no GTK,
and Xvfb says nothing about xdotool.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.npm_tools import CONFORMANCE, INSPECTOR, MCPB, NODE
from tests.support.real_clients import BIN as CLIENT_BIN

DICTIONARIES = Path("/usr/share/dict")


@dataclass(frozen=True)
class Part:
    name: str  # what the skip calls it
    source: str  # where it comes from
    present: Callable[[], bool]
    # Whether .ci/run's install serves this interpreter: Debian builds python3-gi for its own
    # Python only, so a venv of pyenv's 3.12 has no PyGObject even under CI.
    installed_here: Callable[[], bool] = lambda: True

    def missing(self) -> str:
        verb = "are" if " and " in self.name else "is"
        return f"{self.name} {verb} not installed ({self.source})"


def program(name: str) -> Callable[[], bool]:
    return lambda: shutil.which(name) is not None


def programs(*names: str) -> Callable[[], bool]:
    return lambda: all(shutil.which(name) is not None for name in names)


def files(*paths: Path) -> Callable[[], bool]:
    return lambda: all(path.is_file() for path in paths)


def importable(module: str) -> Callable[[], bool]:
    def check() -> bool:
        try:
            __import__(module)
        except ImportError:
            return False
        return True

    return check


# Asked of a new interpreter, so that loading GTK changes nothing in this one: does `gi` load
# (this environment's own, or the system's the way the tray loads it), and GTK 3 through it?
GTK_PROBE = """
import sys
from vault_recall.app.tray.running.backend_choice import has_gtk
gtk = has_gtk()
print("gi" if "gi" in sys.modules else "no-gi", "gtk" if gtk else "no-gtk")
"""


@functools.cache
def gtk_probe(python: str = sys.executable) -> tuple[bool, bool]:
    """(PyGObject loads, GTK 3 loads through it) for `python`."""
    done = subprocess.run([python, "-c", GTK_PROBE], capture_output=True, text=True, timeout=120, check=False)
    words = done.stdout.split()
    return "gi" in words, "gtk" in words


@functools.cache
def is_system_python_version() -> bool:
    """Whether this interpreter is the version of the system's python3, the one Debian's
    python3-gi is built for."""
    system = shutil.which("python3", path="/usr/bin")
    if system is None:
        return False
    done = subprocess.run(
        [system, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() == str(sys.version_info[:2])


def beside_python(name: str) -> Path | None:
    """A program the test extra installs into this environment (or found on PATH)."""
    here = Path(sys.executable).with_name(name + (".exe" if sys.platform == "win32" else ""))
    if here.exists():
        return here
    found = shutil.which(name)
    return Path(found) if found else None


def client(executable: str) -> Callable[[], bool]:
    return files(CLIENT_BIN / executable, CLIENT_BIN / "node")


NPM_STEP = ".ci/run's npm step"
PARTS: dict[str, Part] = {
    # A desktop without a screen: X, a session bus, panels, a notification daemon, input and
    # screenshots, the clipboard, the desktop-entry checker.
    "xvfb": Part("Xvfb", "Debian: xvfb", program("Xvfb")),
    "dbus-daemon": Part("dbus-daemon", "Debian: dbus-daemon", program("dbus-daemon")),
    "dbus-send": Part("dbus-send", "Debian: dbus-bin", program("dbus-send")),
    "sni-panel": Part(
        "gtk-sni-tray-standalone", "Debian: haskell-gtk-sni-tray-utils", program("gtk-sni-tray-standalone")
    ),
    "trayer": Part("trayer", "Debian: trayer", program("trayer")),
    "xfce4-panel": Part("XFCE's panel", "Debian: xfce4-panel", program("xfce4-panel")),
    "lxqt-panel": Part("LXQt's panel", "Debian: lxqt-panel", program("lxqt-panel")),
    "dunst": Part("dunst", "Debian: dunst", program("dunst")),
    "xdotool": Part("xdotool", "Debian: xdotool", program("xdotool")),
    "xclip": Part("xclip", "Debian: xclip", program("xclip")),
    "imagemagick": Part("ImageMagick's import", "Debian: imagemagick", program("import")),
    "desktop-file-validate": Part(
        "desktop-file-validate", "Debian: desktop-file-utils", program("desktop-file-validate")
    ),
    "python3-gi": Part("PyGObject", "Debian: python3-gi", lambda: gtk_probe()[0], is_system_python_version),
    "gtk": Part(
        "GTK 3's introspection data", "Debian: gir1.2-gtk-3.0", lambda: gtk_probe()[1], is_system_python_version
    ),
    # Tools some tests run besides.
    "setpriv": Part("setpriv", "Debian: util-linux", program("setpriv")),
    "ripgrep": Part("ripgrep (rg)", "Debian: ripgrep", program("rg")),
    "pyinstaller": Part("PyInstaller", "the test extra: pip install -e '.[test]'", importable("PyInstaller")),
    "actionlint": Part(
        "actionlint", "the test extra on Linux: pip install -e '.[test]'", lambda: bool(beside_python("actionlint"))
    ),
    "binutils": Part("objdump and strip (PyInstaller runs them)", "Debian: binutils", programs("objdump", "strip")),
    "uv": Part("uv", "the test extra: pip install -e '.[test]'", lambda: bool(beside_python("uv"))),
    # npm tools, which .ci/run installs beside the checkout.
    "inspector": Part("The MCP Inspector CLI", f"{NPM_STEP}, into .ci/npm", files(NODE, INSPECTOR)),
    "conformance": Part("The MCP conformance suite", f"{NPM_STEP}, into .ci/npm", files(NODE, CONFORMANCE)),
    "mcpb": Part("The MCP Bundle CLI (mcpb)", f"{NPM_STEP}, into .ci/npm", files(NODE, MCPB)),
    "claude": Part("Claude Code", f"{NPM_STEP}, into .real-clients", client("claude")),
    "codex": Part("Codex CLI", f"{NPM_STEP}, into .real-clients", client("codex")),
    "gemini": Part("Gemini CLI", f"{NPM_STEP}, into .real-clients", client("gemini")),
    "opencode": Part("opencode", f"{NPM_STEP}, into .real-clients", client("opencode")),
    # Word lists the stemmed-word scans are checked against.
    **{
        f"words-{name}": Part(str(DICTIONARIES / name), f"Debian: {package}", files(DICTIONARIES / name))
        for name, package in (
            ("american-english-large", "wamerican-large"),
            ("ngerman", "wngerman"),
            ("french", "wfrench"),
            ("spanish", "wspanish"),
            ("italian", "witalian"),
            ("portuguese", "wportuguese"),
        )
    },
}


def missing(*names: str) -> list[str]:
    """What is missing of the parts named, each said as a sentence."""
    unknown = [name for name in names if name not in PARTS]
    assert not unknown, f"no such part: {unknown}"
    return [PARTS[name].missing() for name in names if not PARTS[name].present()]


def need(*names: str, context: str = "") -> None:
    """Skip the test unless every part named is here (fail instead under CI); `context` says
    why the test needs them where the parts alone do not."""
    absent = missing(*names)
    if not absent:
        return
    reason = "; ".join(absent) + (f": {context}" if context else "")
    ci_installs = all(PARTS[name].installed_here() for name in names if not PARTS[name].present())
    if not ci_installs:
        reason += f" (the system's packages serve the system's Python, not {sys.version.split()[0]})"
    if os.environ.get("CI") and ci_installs:
        pytest.fail(f"CI must run this test, but {reason} (.ci/run installs it)")
    pytest.skip(reason)


def need_linux(what: str) -> None:
    """Skip where the test's subject is Linux's own (the StatusNotifierItem tray, X11)."""
    if not sys.platform.startswith("linux"):
        pytest.skip(f"{what} is Linux's")


def as_nobody_if_root() -> list[str]:
    """What to put before a command so that it runs as 'nobody' when this is root (who is
    denied nothing), else nothing; skips when root has no setpriv to drop to 'nobody' with."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return []
    need("setpriv", context="running as root, nothing can be denied without it")
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    cannot = _nobody_cannot_run_python(tuple(prefix))
    if cannot:
        pytest.skip(f"this Python cannot run as 'nobody' ({cannot}); an interpreter under /root, as pyenv's")
    return prefix


@functools.cache
def _nobody_cannot_run_python(prefix: tuple[str, ...]) -> str:
    """Why this interpreter fails to start as 'nobody' (a shared libpython in a folder only root
    may enter), or '' when it starts."""
    done = subprocess.run([*prefix, sys.executable, "-c", ""], capture_output=True, text=True, check=False)
    return "" if done.returncode == 0 else (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
