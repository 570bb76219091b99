"""The real tray on a real X server, under two real panels: Xvfb, a D-Bus session, a
notification daemon (dunst), and either a StatusNotifierItem host (gtk-sni-tray-standalone,
which draws the item's pixmaps and its dbusmenu with libdbusmenu-gtk, as many panels do) or an
XEmbed tray (trayer) for pystray's GTK backend.  Clicks and keys go through xdotool; what the
menu shows is read back from screenshots (kept under the test's temp dir) and from what its
items do: the note they open, the clipboard they fill, the config they change.

Needs Linux with Xvfb, gtk-sni-tray-standalone, trayer, dbus-daemon, dbus-send, dunst,
xdotool, xclip, ImageMagick's `import`, and PyGObject with GTK 3 for the XEmbed panel (the
system's python3-gi and gir1.2-gtk-3.0 do); `.ci/run` installs them.  Each panel skips naming
what it lacks, but never in CI (tests/support/parts.py).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.support.e2e import call, copy_sample_vault, serving, vault_recall_command
from tests.support.headless import TRAYER, opener_recorder, start_xvfb
from tests.support.parts import need, need_linux
from tests.support.tray_clicks import MENU_AREA, find_icon, icon_shown, keys_to, menu_drawn, watcher_running
from tests.support.vaults import record, write_vault
from vault_recall.app.state.config_store import save_config
from vault_recall.server.config.config_file import ClientEntry, Config, VaultEntry, load_config

pytestmark = [pytest.mark.e2e]

# Every session: X, a bus (and dbus-send to ask it), notifications, input, the clipboard,
# screenshots.  Each panel: its own program, and for the XEmbed tray pystray's GTK backend.
PARTS = ("xvfb", "dbus-daemon", "dbus-send", "dunst", "xdotool", "xclip", "imagemagick")
PANEL_PARTS = {"sni": ("sni-panel",), "xembed": ("trayer", "python3-gi", "gtk")}
ICON_GREEN = (46, 158, 91)
SNI_HOST = "gtk-sni-tray-standalone"


def wait_until(check: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


class Desktop:
    """A headless desktop session the tray can live in."""

    def __init__(self, root: Path, panel: str) -> None:
        self.root = root
        self.panel = panel
        self.shots = root / "screenshots"
        self.shots.mkdir(parents=True)
        self.processes: list[subprocess.Popen[bytes]] = []
        self.env = dict(os.environ)
        self.shot_count = 0

    def start(self, command: list[str], **kw: Any) -> subprocess.Popen[bytes]:
        log = open(self.root / f"{Path(command[0]).name}-{len(self.processes)}.log", "wb")  # noqa: SIM115
        process = subprocess.Popen(command, env=self.env, stdout=log, stderr=subprocess.STDOUT, **kw)
        log.close()
        self.processes.append(process)
        return process

    def run(self, *command: str) -> str:
        return subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=30, check=True).stdout

    def screenshot(self, name: str) -> Path:
        self.shot_count += 1
        path = self.shots / f"{self.shot_count:02}-{name}.png"
        self.run("import", "-window", "root", str(path))
        return path

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=10)


@pytest.fixture(params=["sni", "xembed"])
def desktop(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Desktop]:
    """A headless desktop whose panel shows StatusNotifierItems, or an XEmbed tray."""
    need_linux("the X11 tray")
    panel = request.param
    need(*PARTS, *PANEL_PARTS[panel])
    session = Desktop(tmp_path / "desktop", panel)
    session.env.pop("WAYLAND_DISPLAY", None)
    try:
        with open(session.root / "Xvfb.log", "wb") as log:
            xvfb, number = start_xvfb("1024x768x24", stdout=log, stderr=subprocess.STDOUT)
        session.processes.append(xvfb)
        session.env["DISPLAY"] = f":{number}"
        bus = subprocess.run(
            ["dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=1"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout.split()
        session.env["DBUS_SESSION_BUS_ADDRESS"] = bus[0]
        dbus_pid = int(bus[1])
        session.start(["dunst"])
        if panel == "sni":
            # The panel also runs the StatusNotifierWatcher; the tray must find it up.
            session.start([SNI_HOST, "--top", "--end", "--size", "32", "--watcher"])
            wait_until(lambda: watcher_running(session.env), "the StatusNotifierWatcher")
        else:
            session.start(list(TRAYER.command))
        yield session
    finally:
        session.stop()
        if "DBUS_SESSION_BUS_ADDRESS" in session.env:
            os.kill(dbus_pid, signal.SIGTERM)


def choose(desktop: Desktop, dump: Path, *labels: str) -> None:
    """Open the tray menu with a right click and activate the item at `labels`."""
    menu = json.loads(dump.read_text(encoding="utf-8"))
    wait_until(lambda: icon_shown(desktop, [ICON_GREEN]), "the tray icon on the panel")
    x, y = find_icon(desktop.screenshot("before-" + slug(labels[-1])), [ICON_GREEN])
    desktop.run("xdotool", "mousemove", str(x), str(y), "click", "3")
    wait_until(lambda: menu_open(desktop), "the menu to open")
    keys = keys_to(menu, *labels)
    for key in keys[:-1]:
        desktop.run("xdotool", "key", "--delay", "60", key)
    desktop.screenshot("menu-" + "-".join(slug(label) for label in labels))
    desktop.run("xdotool", "key", keys[-1])


def slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text)[:40]


def menu_open(desktop: Desktop) -> bool:
    shot = desktop.root / "probe.png"
    desktop.run("import", "-window", "root", "-crop", MENU_AREA, str(shot))
    return menu_drawn(shot)


def stable(path: Path, quiet: float = 1.5) -> bool:
    """True once `path` exists and has not changed for `quiet` seconds (the menu is settled)."""
    try:
        return time.time() - path.stat().st_mtime > quiet
    except FileNotFoundError:
        return False


def test_the_tray_shows_recalls_copies_snippets_switches_vaults_and_quits(desktop: Desktop, tmp_path: Path) -> None:
    home = tmp_path / "home"
    desktop.env["VAULT_RECALL_HOME"] = str(home)
    os.environ["VAULT_RECALL_HOME"] = str(home)  # for the serve process and our own config reads
    work = copy_sample_vault(tmp_path / "Work folder")  # named "Work" in the config
    other = write_vault(tmp_path / "Other", {"Other.md": record("other", "another vault")})
    save_config(
        Config(
            vaults=(VaultEntry("Work", str(work)), VaultEntry("Other", str(other))),
            active_vault="Work",
            clients=(ClientEntry("cursor"),),
        )
    )
    opener, opened = opener_recorder(tmp_path)
    dump = tmp_path / "menu.json"
    # No backend is named: the tray must choose the StatusNotifierItem where the panel hosts
    # one, and GTK's XEmbed icon under trayer (which runs no StatusNotifierWatcher).
    desktop.env.update(
        VAULT_RECALL_TRAY_MENU_DUMP=str(dump),
        **opener,
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
    )
    tray = desktop.start([*vault_recall_command(), "tray"])
    wait_until(lambda: stable(dump), "the tray's first menu")

    # A real client recalls a note through a real server.
    async def recall() -> None:
        async with serving("cursor", None) as session:
            result = await call(session, "recall_context", {"subject": "build-system", "query": "bazel"})
            assert result["vault"] == "Work folder" and result["records"]

    anyio.run(recall)

    def recalled_under_cursor() -> bool:
        menu = json.loads(dump.read_text(encoding="utf-8"))
        clients = next(i for i in menu if i["text"] == "Clients")["submenu"]
        cursor = next((i for i in clients if i["text"] == "Cursor"), None)
        return cursor is not None and any(i["text"] == "Recalled: Build decision" for i in cursor["submenu"])

    wait_until(recalled_under_cursor, "the recall in the menu")
    wait_until(lambda: stable(dump, quiet=4.0), "the recall mark to fade", timeout=60)

    # The recall is in the real menu, under the right client: its item opens that note.
    choose(desktop, dump, "Clients", "Cursor", "Recalled: Build decision")
    # Obsidian knows a vault by its folder's name, whatever we call it.
    expected = "obsidian://open?vault=Work%20folder&file=Projects%2FBuild%2FBuild%20decision"
    wait_until(lambda: opened.exists() and expected in opened.read_text(encoding="utf-8"), "the note to open")

    # Copy config snippet puts Cursor's entry on the clipboard.
    choose(desktop, dump, "Clients", "Cursor", "Copy config snippet")

    def clipboard() -> dict[str, Any] | None:
        done = subprocess.run(
            ["xclip", "-selection", "clipboard", "-o"], env=desktop.env, capture_output=True, text=True, check=False
        )
        try:
            return json.loads(done.stdout) if done.returncode == 0 else None
        except json.JSONDecodeError:
            return None

    snippet = wait_until(clipboard, "the snippet on the clipboard")
    assert snippet["mcpServers"]["vault-recall"]["args"][:3] == ["serve", "--client", "cursor"]

    # Picking another vault changes the config every server reads.
    wait_until(lambda: stable(dump), "the menu to settle")
    choose(desktop, dump, "Vault", "Other")
    wait_until(lambda: load_config().active_vault == "Other", "the active vault to change")
    wait_until(
        lambda: json.loads(dump.read_text(encoding="utf-8"))[0]["text"] == "Other — 1 note, 1 record, no problems",
        "the menu to show the new vault",
    )
    wait_until(lambda: stable(dump), "the menu to settle")
    desktop.screenshot("after-switch")

    # A note broken and repaired, and the vault's folder gone and back: the tray follows alone.
    def first_line() -> str:
        return str(json.loads(dump.read_text(encoding="utf-8"))[0]["text"])

    (other / "Broken.md").write_text("---\nsubject: other\nsubject: other\n---\n", encoding="utf-8")
    wait_until(lambda: first_line() == "Other — 2 notes, 1 record, 1 problem", "the broken note to show")
    desktop.screenshot("degraded")
    fixed = other / "Broken.md.saving"
    fixed.write_text("---\nsubject: other\n---\nfixed\n", encoding="utf-8")
    os.replace(fixed, other / "Broken.md")  # saved the way editors save
    wait_until(lambda: first_line() == "Other — 2 notes, 2 records, no problems", "the repair to show")
    moved = other.with_name("Other moved")
    other.rename(moved)
    wait_until(lambda: first_line().startswith("Other — unavailable: vault folder"), "the missing vault to show")
    desktop.screenshot("unavailable")
    moved.rename(other)
    wait_until(lambda: first_line() == "Other — 2 notes, 2 records, no problems", "the vault to come back")
    wait_until(lambda: stable(dump), "the menu to settle")

    # Quit ends the tray cleanly.
    choose(desktop, dump, "Quit Vault Recall")
    assert tray.wait(timeout=30) == 0
    assert len(list(desktop.shots.iterdir())) >= 10


def test_a_left_click_shows_the_same_menu_as_a_right_click_under_either_panel(desktop: Desktop, tmp_path: Path) -> None:
    home = tmp_path / "home"
    desktop.env["VAULT_RECALL_HOME"] = str(home)
    os.environ["VAULT_RECALL_HOME"] = str(home)
    work = copy_sample_vault(tmp_path / "Work")
    save_config(Config(vaults=(VaultEntry("Work", str(work)),), active_vault="Work"))
    opener, opened = opener_recorder(tmp_path)
    dump = tmp_path / "menu.json"
    desktop.env.update(
        VAULT_RECALL_TRAY_MENU_DUMP=str(dump),
        **opener,
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
    )
    tray = desktop.start([*vault_recall_command(), "tray"])
    wait_until(
        lambda: stable(dump) and json.loads(dump.read_text(encoding="utf-8"))[0]["text"].startswith("Work — 10 notes"),
        "the tray's menu on the vault",
    )
    wait_until(lambda: icon_shown(desktop, [ICON_GREEN]), "the tray icon on the panel")
    x, y = find_icon(desktop.screenshot("before-left-click"), [ICON_GREEN])
    desktop.run("xdotool", "mousemove", str(x), str(y), "click", "1")
    wait_until(lambda: menu_open(desktop), "the menu to open on a left click")
    desktop.screenshot("menu-on-left-click")
    # The menu it shows is the tray's own: its items work from there.
    keys = keys_to(json.loads(dump.read_text(encoding="utf-8")), "Help", "Show all activity")
    for key in keys:
        desktop.run("xdotool", "key", "--delay", "60", key)
    wait_until(lambda: opened.exists() and "activity.html" in opened.read_text(encoding="utf-8"), "the activity page")
    # The left click itself opened nothing (Obsidian, say): the actions run in order, and the
    # page is the first thing opened.
    assert opened.read_text(encoding="utf-8").splitlines()[0].endswith("activity.html")
    wait_until(lambda: not menu_open(desktop), "the menu to close")
    desktop.run(*vault_recall_command(), "quit")
    assert tray.wait(timeout=30) == 0
