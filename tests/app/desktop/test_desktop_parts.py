"""The tray's icon, start-at-login files and backend check."""

from __future__ import annotations

import plistlib
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from dbus_fast import Variant

from vault_recall.app.desktop import autostart, folder_portal, session_bus
from vault_recall.app.desktop.icon import COLOURS, SIZES, icon_set, render_icon
from vault_recall.app.tray import backend
from vault_recall.app.tray.backend import tray_problem


@pytest.mark.parametrize("size", SIZES)
def test_the_icon_comes_in_every_size_with_transparent_corners(size: int) -> None:
    image = render_icon("ok", size=size)
    assert image.size == (size, size) and image.mode == "RGBA"
    assert image.getpixel((0, 0))[3] < 16  # a rounded badge, not a square on the panel


def test_each_state_has_its_own_colour_and_a_recall_adds_a_mark() -> None:
    centres = {status: render_icon(status, size=64).getpixel((12, 40))[:3] for status in COLOURS}
    assert len(set(centres.values())) == 3
    assert centres["ok"] == pytest.approx(COLOURS["ok"], abs=8)
    plain, marked = render_icon("ok", False, 64), render_icon("ok", True, 64)
    assert plain.getpixel((54, 10)) != marked.getpixel((54, 10))
    assert len(icon_set("degraded")) == len(SIZES)


def test_the_icon_reads_on_light_and_dark_panels() -> None:
    image = render_icon("unavailable", size=64)
    rim = [image.getpixel((x, 32))[:3] for x in range(0, 8)]
    assert any(sum(p) < 120 for p in rim) and any(sum(p) > 700 for p in rim)  # a dark and a light edge


def test_start_at_login_on_linux_writes_a_valid_desktop_entry_and_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setattr("sys.platform", "linux")
    assert not autostart.is_enabled(tmp_path)
    path = autostart.enable(tmp_path)
    assert path == tmp_path / "config/autostart/vault-recall.desktop"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("[Desktop Entry]\n") and "\nExec=" in text and " tray\n" in text
    assert autostart.is_enabled(tmp_path)
    if shutil.which("desktop-file-validate"):
        done = subprocess.run(["desktop-file-validate", str(path)], capture_output=True, text=True, check=False)
        assert done.returncode == 0 and done.stdout == "", done.stdout
    autostart.disable(tmp_path)
    assert not path.exists() and not autostart.is_enabled(tmp_path)


def test_exec_lines_quote_what_the_desktop_spec_reserves() -> None:
    entry = autostart.autostart_content("linux", ["/opt/Vault Recall/bin/vault-recall"]).decode()
    assert 'Exec="/opt/Vault Recall/bin/vault-recall" tray\n' in entry
    odd = autostart.autostart_content("linux", ['/o/$x"y%/vr']).decode()
    assert 'Exec="/o/\\\\$x\\\\"y%%/vr" tray' in odd


def test_start_at_login_on_macos_is_a_launch_agent() -> None:
    agent = plistlib.loads(autostart.autostart_content("darwin", ["/Applications/Vault Recall.app/vr"]))
    assert agent["ProgramArguments"] == ["/Applications/Vault Recall.app/vr", "tray"] and agent["RunAtLoad"]


def test_start_at_login_on_windows_is_a_startup_script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APPDATA", str(tmp_path))
    assert autostart.autostart_file(tmp_path, "win32").parent.name == "Startup"
    assert autostart.autostart_content("win32", ["C:\\VR\\vr.exe"]) == b'@start "" "C:\\VR\\vr.exe" "tray"\r\n'


def test_without_a_graphical_session_the_tray_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    problem = tray_problem()
    assert problem is not None and "no graphical session" in problem


def linux_desktop(monkeypatch: pytest.MonkeyPatch, *, bus: bool, watcher: bool, gtk: bool) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("DISPLAY", ":99")
    for name in ("VAULT_RECALL_TRAY", "PYSTRAY_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(session_bus, "address", lambda: "unix:path=/run/user/1000/bus" if bus else None)
    monkeypatch.setattr(session_bus, "has_owner", lambda name: watcher and name == "org.kde.StatusNotifierWatcher")
    monkeypatch.setattr(backend, "has_gtk", lambda: gtk)


@pytest.mark.parametrize(
    ("bus", "watcher", "gtk", "chosen"),
    [
        (True, True, True, "sni"),  # a panel hosts StatusNotifierItems: ours, even where GTK is there
        (True, True, False, "sni"),
        (True, False, True, "gtk"),  # an XEmbed-only panel (trayer, old XFCE): GTK's status icon
        (False, False, True, "gtk"),
    ],
)
def test_the_backend_is_the_statusnotifieritem_where_a_panel_hosts_one_else_gtk(
    monkeypatch: pytest.MonkeyPatch, bus: bool, watcher: bool, gtk: bool, chosen: str
) -> None:
    linux_desktop(monkeypatch, bus=bus, watcher=watcher, gtk=gtk)
    assert backend.choose_backend() == backend.Choice(chosen)


def test_without_a_panel_host_or_pygobject_the_tray_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    linux_desktop(monkeypatch, bus=True, watcher=False, gtk=False)
    problem = tray_problem()
    assert problem is not None and "\n" not in problem
    assert "StatusNotifierWatcher" in problem and "python3-gi gir1.2-gtk-3.0" in problem
    linux_desktop(monkeypatch, bus=False, watcher=False, gtk=False)
    problem = tray_problem()
    assert problem is not None and "no D-Bus session bus" in problem and "python3-gi" in problem


def test_the_environment_overrides_the_choice_and_a_wrong_value_is_one_sentence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    linux_desktop(monkeypatch, bus=True, watcher=True, gtk=True)
    monkeypatch.setenv("VAULT_RECALL_TRAY", "gtk")
    assert backend.choose_backend() == backend.Choice("gtk")
    monkeypatch.setenv("VAULT_RECALL_TRAY", "gtx")
    assert tray_problem() == "VAULT_RECALL_TRAY must be one of sni, gtk, appindicator, xorg; got 'gtx'"
    monkeypatch.delenv("VAULT_RECALL_TRAY")
    monkeypatch.setenv("PYSTRAY_BACKEND", "appindicator")  # as before: pystray's backend by name
    assert backend.choose_backend() == backend.Choice("appindicator")
    linux_desktop(monkeypatch, bus=False, watcher=False, gtk=False)
    monkeypatch.setenv("VAULT_RECALL_TRAY", "sni")
    assert tray_problem() == "VAULT_RECALL_TRAY=sni needs a D-Bus session bus, and DBUS_SESSION_BUS_ADDRESS is not set"


def test_the_system_pygobject_is_found_for_this_python_when_there_is_one() -> None:
    """Debian's python3-gi (what .ci/run installs) serves a venv that has no PyGObject."""
    if not any((Path(site) / "gi").is_dir() for site in backend.SYSTEM_SITE_DIRS):
        pytest.skip("no system PyGObject here")
    code = "from vault_recall.app.tray.backend import has_gtk; works = has_gtk(); import gi; print(works, gi.__file__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    works, where = done.stdout.split()
    assert works == "True"
    # This environment's own PyGObject (the gtk extra) if it has one, else the system's.
    assert where.startswith(sys.prefix) or str(Path(where).parent.parent) in backend.SYSTEM_SITE_DIRS


@pytest.mark.parametrize(
    ("code", "results", "folder"),
    [
        (0, {"uris": Variant("as", ["file:///home/me/My%20Notes"])}, Path("/home/me/My Notes")),
        (1, {}, None),  # cancelled
        (2, {"uris": Variant("as", ["file:///x"])}, None),  # failed
        (0, {"uris": Variant("as", ["https://example.org/x"])}, None),  # not a local folder
    ],
)
def test_the_portals_answer_becomes_a_folder_or_nothing(
    code: int, results: dict[str, Any], folder: Path | None
) -> None:
    assert folder_portal.folder_from(code, results) == folder


def test_the_cli_shows_the_status_instead_of_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from tests.support.e2e import vault_recall_command

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    done = subprocess.run(vault_recall_command(), capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 1
    assert "cannot show the tray: there is no graphical session" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout.startswith("Config:")


@pytest.mark.parametrize(
    "path",
    [
        "/opt/Vault Recall/bin/vr",
        '/o/$x"y%/vr',
        "/o/back\\slash/vr",
        "/o/tab\there/vr",
        "/o/semi;colon '/vr",
        "/home/zoë/~/vr",
    ],
)
def test_odd_launcher_paths_still_make_a_valid_desktop_entry(tmp_path: Path, path: str) -> None:
    if shutil.which("desktop-file-validate") is None:
        pytest.skip("desktop-file-validate (desktop-file-utils) is not installed")
    entry = tmp_path / "vault-recall.desktop"
    entry.write_bytes(autostart.autostart_content("linux", [path]))
    done = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout == "", done.stdout
