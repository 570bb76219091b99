"""A headless desktop for the tray tests and benchmarks: an X server (Xvfb), a private D-Bus
session bus and the environment a tray started in it gets; the tray as a real process; real
panels — Debian's StatusNotifierItem hosts (XFCE's panel with its systray plugin, LXQt's panel
with its statusnotifier plugin, gtk-sni-tray-standalone) and an XEmbed tray (trayer) — each
with a config of its own, stopped and started again as a person's panel restarts; and what a
test reads on the bus: who owns the StatusNotifierWatcher name and which items it lists
(`BusLook`, one connection of its own).
"""

from __future__ import annotations

import asyncio
import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dbus_fast import Message, MessageType
from dbus_fast.aio import MessageBus

from tests.support.e2e import vault_recall_command
from tests.support.parts import need, need_linux
from tests.support.sni_host import PROPERTIES, WATCHER, CallError, SessionBus, call, start_session_bus

WAIT = 30.0


def start_xvfb(screen: str, **kw: Any) -> tuple[subprocess.Popen[bytes], int]:
    """Xvfb on a display it picks itself (`-displayfd`: the number is written once the server
    answers), and that number.  Picking the first number without a socket in /tmp/.X11-unix
    raced: two tests started side by side (pytest -n, or another checkout's suite) chose the
    same one, and the second Xvfb failed while its test talked to the first one's display."""
    read, write = os.pipe()
    try:
        kw.setdefault("stdout", subprocess.DEVNULL)
        kw.setdefault("stderr", subprocess.DEVNULL)
        xvfb = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write), "-screen", "0", screen, "-nolisten", "tcp"], pass_fds=(write,), **kw
        )
        os.close(write)
        write = -1
        said = b""
        while not said.endswith(b"\n"):
            if not select.select([read], [], [], WAIT)[0]:
                break
            chunk = os.read(read, 16)
            if not chunk:
                break  # it exited: its stderr says why
            said += chunk
    finally:
        os.close(read)
        if write != -1:
            os.close(write)
    if not said.strip().isdigit():
        xvfb.kill()
        xvfb.wait(timeout=WAIT)
        raise RuntimeError(f"Xvfb gave no display number within {WAIT:.0f} s (exit status {xvfb.poll()})")
    return xvfb, int(said)


def opener_recorder(folder: Path) -> tuple[dict[str, str], Path]:
    """An opener that writes down what the tray asks it to open, one target a line, instead of
    opening it: (the environment that makes the tray use it, the file it writes to)."""
    opened = folder / "opened.txt"
    script = folder / "record-open.py"
    script.write_text(f"import sys\nopen({str(opened)!r}, 'a').write(sys.argv[-1] + '\\n')\n", encoding="utf-8")
    return {"VAULT_RECALL_OPEN_COMMAND": f"{sys.executable} {script}"}, opened


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


@contextmanager
def headless_desktop(tmp_path: Path, vault_recall_home: Path) -> Iterator[Desktop]:
    """Xvfb and a private session bus (never the machine's), nothing else running yet."""
    need_linux("the tray on a Linux desktop")
    need("xvfb", "dbus-daemon", "xdotool", "imagemagick")
    xvfb, number = start_xvfb("1024x768x24")
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


BUS = "org.freedesktop.DBus"
BUS_PATH = "/org/freedesktop/DBus"

XFCE_PANEL = """<?xml version="1.0" encoding="UTF-8"?>
<channel name="xfce4-panel" version="1.0">
  <property name="configver" type="int" value="2"/>
  <property name="panels" type="array">
    <value type="int" value="1"/>
    <property name="panel-1" type="empty">
      <property name="position" type="string" value="p=6;x=0;y=0"/>
      <property name="length" type="uint" value="100"/>
      <property name="position-locked" type="bool" value="true"/>
      <property name="size" type="uint" value="32"/>
      <property name="plugin-ids" type="array">
        <value type="int" value="1"/>
        <value type="int" value="2"/>
      </property>
    </property>
  </property>
  <property name="plugins" type="empty">
    <property name="plugin-1" type="string" value="separator">
      <property name="expand" type="bool" value="true"/>
    </property>
    <property name="plugin-2" type="string" value="systray">
      <property name="square-icons" type="bool" value="true"/>
    </property>
  </property>
</channel>
"""

LXQT_PANEL = """[General]
__userfile__=true

[panel1]
alignment=-1
animation-duration=0
desktop=0
hidable=false
iconSize=22
lineCount=1
panelSize=32
position=Top
plugins=statusnotifier
width=100
width-percent=true

[statusnotifier]
alignment=Right
type=statusnotifier
"""


@contextmanager
def x_and_session_bus(tmp_path: Path, *parts: str) -> Iterator[tuple[SessionBus, dict[str, str]]]:
    """A private session bus and an Xvfb display (start_xvfb: answering once started), and the
    tray's environment on them; skips unless `parts` are here."""
    need_linux("the StatusNotifierItem tray")
    need(*parts)
    xvfb, number = start_xvfb("640x480x24")
    bus = start_session_bus()
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "PYSTRAY_BACKEND", "VAULT_RECALL_TRAY")}
    env.update(DISPLAY=f":{number}", DBUS_SESSION_BUS_ADDRESS=bus.address, XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    try:
        yield bus, env
    finally:
        bus.stop()
        xvfb.terminate()
        xvfb.wait(timeout=30)


@contextmanager
def tray_running(env: dict[str, str], log_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """`vault-recall tray` with its output in `log_path`, stopped at the end; its log is
    printed when the test fails (pytest shows it), since what went wrong is usually there."""
    with log_path.open("wb") as log:
        tray = subprocess.Popen([*vault_recall_command(), "tray"], env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            yield tray
        except BaseException:
            print("tray log:\n" + log_path.read_text(encoding="utf-8", errors="replace"))
            raise
        finally:
            if tray.poll() is None:
                tray.terminate()
                tray.wait(timeout=30)


@dataclass(frozen=True)
class PanelKind:
    name: str
    command: tuple[str, ...]
    sni: bool  # hosts StatusNotifierItems (runs a watcher)
    part: str  # its name in tests/support/parts.py, to ask for it

    @property
    def installed(self) -> bool:
        return shutil.which(self.command[0]) is not None

    def configure(self, config_home: Path) -> None:
        """Its config under `config_home` (XDG_CONFIG_HOME): a top panel with its tray only."""
        if self.name == "xfce4-panel":
            folder = config_home / "xfce4/xfconf/xfce-perchannel-xml"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "xfce4-panel.xml").write_text(XFCE_PANEL, encoding="utf-8")
        elif self.name == "lxqt-panel":
            folder = config_home / "lxqt"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "panel.conf").write_text(LXQT_PANEL, encoding="utf-8")


XFCE = PanelKind("xfce4-panel", ("xfce4-panel", "--disable-wm-check"), sni=True, part="xfce4-panel")
LXQT = PanelKind("lxqt-panel", ("lxqt-panel",), sni=True, part="lxqt-panel")
GTK_SNI_TRAY = PanelKind(
    "gtk-sni-tray",
    ("gtk-sni-tray-standalone", "--top", "--end", "--size", "32", "--watcher"),
    sni=True,
    part="sni-panel",
)
TRAYER = PanelKind(
    "trayer",
    (
        "trayer",
        "--edge",
        "top",
        "--align",
        "right",
        "--widthtype",
        "pixel",
        "--width",
        "240",
        "--heighttype",
        "pixel",
        "--height",
        "32",
        "--SetDockType",
        "true",
        "--transparent",
        "false",
    ),
    sni=False,
    part="trayer",
)
SNI_PANELS = (XFCE, LXQT, GTK_SNI_TRAY)


class BusLook:
    """A connection of the test's own that watches the watcher's name and reads its items."""

    def __init__(self, bus: MessageBus) -> None:
        self.bus = bus
        self.owner: str | None = None
        self.owner_changed = asyncio.Event()
        self.appeared_at = 0.0  # loop time when the watcher's name last got an owner

    @classmethod
    async def connect(cls, address: str) -> BusLook:
        bus = await MessageBus(bus_address=address).connect()
        look = cls(bus)

        def on_message(message: Message) -> None:
            signal = message.message_type == MessageType.SIGNAL and message.member == "NameOwnerChanged"
            if signal and message.body[0] == WATCHER:
                look.owner = message.body[2] or None
                if look.owner:
                    look.appeared_at = asyncio.get_running_loop().time()
                look.owner_changed.set()

        bus.add_message_handler(on_message)
        rule = f"type='signal',sender='{BUS}',member='NameOwnerChanged',arg0='{WATCHER}'"
        await call(bus, BUS, BUS_PATH, BUS, "AddMatch", "s", [rule])
        (has,) = await call(bus, BUS, BUS_PATH, BUS, "NameHasOwner", "s", [WATCHER])
        if has:
            (look.owner,) = await call(bus, BUS, BUS_PATH, BUS, "GetNameOwner", "s", [WATCHER])
        return look

    async def watcher(self) -> str | None:
        """The watcher's unique bus name, or None while no panel owns it."""
        return self.owner

    async def items(self) -> list[str]:
        """What the watcher lists now (services, some with their object path), [] without one."""
        try:
            (value,) = await call(
                self.bus,
                WATCHER,
                "/StatusNotifierWatcher",
                PROPERTIES,
                "Get",
                "ss",
                [WATCHER, "RegisteredStatusNotifierItems"],
            )
        except CallError:
            return []
        return [str(item) for item in value.value]

    def close(self) -> None:
        self.bus.disconnect()


def listed(items: list[str], prefix: str = "org.kde.StatusNotifierItem-") -> list[str]:
    """The item services in a watcher's list, without object paths."""
    return [item.split("/", 1)[0] for item in items if item.startswith(prefix)]


def stop_panel(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)
