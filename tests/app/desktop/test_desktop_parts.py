"""The desktop's parts as data: the tray's icon, the start-at-login files, the portal's answer."""

from __future__ import annotations

import plistlib
import subprocess
from pathlib import Path
from typing import Any

import pytest
from dbus_fast import Variant
from PIL import Image

from tests.support.parts import need
from vault_recall.app.desktop import autostart, folder_portal
from vault_recall.app.desktop.icon import COLOURS, render_icon


def pixel(image: Image.Image, x: int, y: int) -> tuple[int, ...]:
    """The colour at (x, y) of an RGBA image."""
    found = image.getpixel((x, y))
    assert isinstance(found, tuple), found
    return found


# Sizes panels ask for: 16-24 on Windows and GNOME, 22-32 on macOS and KDE, x2 for HiDPI.
SIZES = (16, 20, 22, 24, 32, 44, 48, 64, 128, 256)


@pytest.mark.parametrize("size", SIZES)
def test_the_icon_comes_in_every_size_with_transparent_corners(size: int) -> None:
    image = render_icon("ok", size=size)
    assert image.size == (size, size) and image.mode == "RGBA"
    assert pixel(image, 0, 0)[3] < 16  # a rounded badge, not a square on the panel


def test_each_state_has_its_own_colour_and_a_recall_adds_a_mark() -> None:
    centres = {status: pixel(render_icon(status, size=64), 12, 40)[:3] for status in COLOURS}
    assert len(set(centres.values())) == 3
    assert centres["ok"] == pytest.approx(COLOURS["ok"], abs=8)
    plain, marked = render_icon("ok", False, 64), render_icon("ok", True, 64)
    assert plain.getpixel((54, 10)) != marked.getpixel((54, 10))


def test_the_icon_reads_on_light_and_dark_panels() -> None:
    image = render_icon("unavailable", size=64)
    rim = [pixel(image, x, 32)[:3] for x in range(0, 8)]
    assert any(sum(p) < 120 for p in rim) and any(sum(p) > 700 for p in rim)  # a dark and a light edge


def desktop_file_problems(path: Path) -> str:
    """What desktop-file-validate says of the entry at `path` (nothing: valid)."""
    done = subprocess.run(["desktop-file-validate", str(path)], capture_output=True, text=True, check=False)
    return done.stdout if done.returncode == 0 else done.stdout or f"exit code {done.returncode}"


def test_start_at_login_on_linux_writes_a_desktop_entry_and_removes_it(
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
    autostart.disable(tmp_path)
    assert not path.exists() and not autostart.is_enabled(tmp_path)


def test_the_start_at_login_entry_is_a_valid_desktop_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    need("desktop-file-validate")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setattr("sys.platform", "linux")
    assert desktop_file_problems(autostart.enable(tmp_path)) == ""


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
    need("desktop-file-validate")
    entry = tmp_path / "vault-recall.desktop"
    entry.write_bytes(autostart.autostart_content("linux", [path]))
    assert desktop_file_problems(entry) == ""
