"""README's run command on a machine with nothing to compile with: a copy of the project
installed into a new venv by exactly `python3 -m venv .venv && .venv/bin/pip install -q -e .`,
with no compiler, no pkg-config and no -dev headers reachable (PATH holds an empty folder),
then `.venv/bin/vault-recall` started in a Wayland-only session (no X display at all) shows its
tray to the panel the protocol test plays.  Any dependency that needed building from C would
fail the install; PyGObject must not be in the new venv at all."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.parts import need, need_linux
from tests.support.paths import REPO_ROOT
from tests.support.sni_host import find_node, panel, start_session_bus

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]
NOT_COPIED = (".venv", ".git", "build", "dist", "__pycache__", "*.egg-info", ".*_cache", ".hypothesis")


async def test_a_fresh_venv_without_a_compiler_installs_the_tray_and_it_shows_on_a_wayland_panel(
    tmp_path: Path,
) -> None:
    need_linux("the StatusNotifierItem tray")
    need("dbus-daemon")
    project = tmp_path / "vault-recall"
    shutil.copytree(REPO_ROOT, project, ignore=shutil.ignore_patterns(*NOT_COPIED))
    nothing = tmp_path / "empty-bin"
    nothing.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    env.update(PATH=str(nothing), CC="no-compiler-here", CXX="no-compiler-here")
    python = getattr(sys, "_base_executable", sys.executable)  # the interpreter `python3` names

    subprocess.run([python, "-m", "venv", ".venv"], cwd=project, env=env, check=True, timeout=300)
    install = subprocess.run(
        [str(project / ".venv/bin/pip"), "install", "-q", "-e", "."],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    installed = subprocess.run(
        [str(project / ".venv/bin/python"), "-m", "pip", "list", "--format=freeze"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    ).stdout.lower()
    assert "dbus-fast==" in installed
    assert "pygobject" not in installed and "pycairo" not in installed

    bus = start_session_bus()
    run_env = {k: v for k, v in env.items() if k not in ("DISPLAY", "PYSTRAY_BACKEND", "VAULT_RECALL_TRAY")}
    run_env.update(
        DBUS_SESSION_BUS_ADDRESS=bus.address,
        WAYLAND_DISPLAY="wayland-vault-recall-test",  # a Wayland session: SNI needs no X server
        VAULT_RECALL_HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
    )
    log = (tmp_path / "tray.log").open("wb")
    try:
        async with panel(bus.address) as host:
            tray = subprocess.Popen(
                [str(project / ".venv/bin/vault-recall")], env=run_env, stdout=log, stderr=subprocess.STDOUT
            )
            try:
                _, service = await host.until(lambda: host.registrations and host.registrations[-1], "registration")
                props = await host.item_properties(service)
                assert props["Id"] == "vault-recall" and props["IconPixmap"]
                # The first run uses the bundled sample vault, from the new environment.
                first = await host.eventually(
                    lambda: host.layout(service),
                    lambda layout: layout[1]["children"][0]["label"].startswith("Sample vault — "),
                    "the sample vault's health line",
                )
                await host.click(service, find_node(first[1], "Quit Vault Recall")["id"])
                assert tray.wait(timeout=30) == 0
            finally:
                if tray.poll() is None:
                    tray.terminate()
                    tray.wait(timeout=30)
    finally:
        log.close()
        bus.stop()
    assert "Traceback" not in (tmp_path / "tray.log").read_text(encoding="utf-8", errors="replace")
