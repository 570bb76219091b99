"""A headless desktop for the tray tests of this tier: an X server (Xvfb), a private D-Bus
session bus, and the environment a tray started in it gets; and the tray as a real process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e import vault_recall_command
from tests.sni_host import start_session_bus

WAIT = 30.0


def needs(*tools: str) -> None:
    """Skip where a desktop part is missing — but never in CI, which installs them (.ci/run)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the Linux tray runs on Linux")
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the tray tests; missing: {', '.join(missing)} (.ci/run installs them)")
        pytest.skip(f"missing for the tray test: {', '.join(missing)}")


def wait_until(check: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
    """Poll `check` (bounded) until it gives something true, and return that."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.05)


@dataclass
class Desktop:
    root: Path
    env: dict[str, str]
    bus_address: str
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start(self, command: list[str], name: str, **env: str) -> subprocess.Popen[bytes]:
        """A program of this desktop, its output in `<name>.log`; stopped at the end."""
        with (self.root / f"{name}.log").open("ab") as log:
            process = subprocess.Popen(
                command, env={**self.env, **env}, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        self.processes.append(process)
        return process

    def log(self, name: str) -> str:
        path = self.root / f"{name}.log"
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    def run(self, *command: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=timeout, check=False)

    def vault_recall(self, *words: str) -> subprocess.CompletedProcess[str]:
        return self.run(*vault_recall_command(), *words)

    def screenshot(self, name: str) -> Path:
        shots = self.root / "screenshots"
        shots.mkdir(exist_ok=True)
        path = shots / f"{len(list(shots.iterdir())) + 1:02}-{name}.png"
        done = self.run("import", "-window", "root", str(path))
        assert done.returncode == 0, done.stderr
        return path


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


@pytest.fixture
def desktop(tmp_path: Path, vault_recall_home: Path) -> Iterator[Desktop]:
    """Xvfb and a private session bus (never the machine's), nothing else running yet."""
    needs("Xvfb", "dbus-daemon", "xdotool", "import")
    number = next(n for n in range(300, 400) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    xvfb = subprocess.Popen(
        ["Xvfb", f":{number}", "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    home = tmp_path / "person"
    runtime = tmp_path / "run"
    for folder in (home / ".config", runtime):
        folder.mkdir(parents=True)
    runtime.chmod(0o700)
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "PYSTRAY_BACKEND", "VAULT_RECALL_TRAY")}
    env.update(
        DISPLAY=f":{number}",
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_RUNTIME_DIR=str(runtime),
        VAULT_RECALL_HOME=str(vault_recall_home),
    )
    session: Desktop | None = None
    bus = None
    try:
        wait_until(
            lambda: subprocess.run(["xdotool", "getdisplaygeometry"], env=env, capture_output=True).returncode == 0,
            "the X server",
        )
        # The bus gets the desktop's environment: services it starts (xfconfd) read this HOME.
        saved = dict(os.environ)
        os.environ.update(env)
        try:
            bus = start_session_bus()
        finally:
            os.environ.clear()
            os.environ.update(saved)
        env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        session = Desktop(tmp_path, env, bus.address)
        yield session
    finally:
        for process in reversed(session.processes if session else []):
            stop(process)
        if bus is not None:
            bus.stop()
        xvfb.terminate()
        xvfb.wait(timeout=30)


@contextmanager
def tray(desktop: Desktop, name: str = "tray", **env: str) -> Iterator[subprocess.Popen[bytes]]:
    """`vault-recall tray` in `desktop`; its log is printed when the test fails."""
    process = desktop.start([*vault_recall_command(), "tray"], name, **env)
    try:
        yield process
    except BaseException:
        print(f"{name} log:\n{desktop.log(name)}")
        raise
    finally:
        stop(process)
