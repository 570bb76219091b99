"""The tray's icon, start-at-login files and backend check."""

from __future__ import annotations

import plistlib
import shutil
import subprocess
from pathlib import Path

import pytest

from vault_recall.app.desktop import autostart
from vault_recall.app.desktop.icon import COLOURS, SIZES, icon_set, render_icon
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


def test_without_pygobject_the_tray_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setattr("vault_recall.app.tray.backend._has_gi_module", lambda name, version: False)
    problem = tray_problem()
    assert problem is not None
    assert "PyGObject" in problem and "apt-get install libgirepository1.0-dev" in problem
    assert "pip install 'vault-recall[gtk]'" in problem


def test_the_cli_shows_the_status_instead_of_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from tests.e2e import vault_recall_command

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
