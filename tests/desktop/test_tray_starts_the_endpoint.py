"""The real tray (`vault-recall tray`, on a private D-Bus session and Xvfb, with the played
StatusNotifierItem panel) starts the HTTP endpoint the person left running whenever it starts —
at login, when *Start at login* is on — so clients that start early find it; it stops it when
it ends, and remembers it for next time."""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.e2e import copy_sample_vault
from tests.support.headless import tray_running, x_and_session_bus
from tests.support.http_e2e import INITIALIZE, JSON_HEADERS, post
from tests.support.posix import assert_mode, kill_signal
from tests.support.sni_host import SessionBus, find_node, panel
from vault_recall.app.state.config_store import save_config
from vault_recall.app.tray.endpoint.log_file import log_path
from vault_recall.app.tray.endpoint.process import endpoint_to_start
from vault_recall.server.config.config_file import Config, VaultEntry, load_config

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

# A private session bus, and an X server found ready by xdotool.
PARTS = ("dbus-daemon", "xvfb", "xdotool")


@pytest.fixture
def session(tmp_path: Path) -> Iterator[tuple[SessionBus, dict[str, str]]]:
    """A private session bus and X server, and the tray's environment."""
    with x_and_session_bus(tmp_path, *PARTS) as running:
        yield running


def answers(port: int) -> int | None:
    """The status an MCP request without a token gets at `port` (401: our endpoint), or None."""
    try:
        return post(port, INITIALIZE, JSON_HEADERS)[0]
    except OSError:
        return None


def endpoint_left_running(tmp_path: Path) -> tuple[int, str]:
    """A vault, and the config as Start in the tray's menu leaves it: the endpoint to start with
    the tray, on a free port; (that port, the address)."""
    vault = copy_sample_vault(tmp_path / "Notes")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    listen = f"127.0.0.1:{port}"
    save_config(
        Config(
            vaults=(VaultEntry("Notes", str(vault)),),
            active_vault="Notes",
            extra=(("tray", {"start_endpoint": listen}),),
        )
    )
    return port, listen


async def test_the_tray_starts_the_endpoint_left_running_and_stops_it_when_it_ends(
    session: tuple[SessionBus, dict[str, str]], tmp_path: Path
) -> None:
    bus, env = session
    port, listen = endpoint_left_running(tmp_path)
    assert answers(port) is None  # nothing there before the tray

    async with panel(bus.address) as host:
        with tray_running(env, tmp_path / "tray.log") as tray:
            await host.until(lambda: host.registrations, "the tray to register")
            await host.until(lambda: answers(port) == 401, f"the endpoint to answer at {listen}", 60)
            tray.terminate()
            tray.wait(timeout=30)
            await host.until(lambda: answers(port) is None, "the endpoint to end with the tray", 30)
    assert endpoint_to_start(load_config()) == listen  # quitting does not forget it: next login too


def _pids(log: Path) -> list[int]:
    text = log.read_text(encoding="utf-8") if log.exists() else ""
    return [int(found) for found in re.findall(r"started vault-recall http .* \(process (\d+)\)", text)]


def _labels(node: dict[str, Any]) -> list[str]:
    return [str(child.get("label", "")) for child in node["children"]]


async def test_the_trays_endpoint_killed_is_told_with_how_it_ended_and_started_again(
    session: tuple[SessionBus, dict[str, str]], tmp_path: Path
) -> None:
    bus, env = session
    port, listen = endpoint_left_running(tmp_path)
    log = log_path()
    async with panel(bus.address) as host:
        with tray_running(env, tmp_path / "tray.log"):
            _, service = await host.until(lambda: host.registrations and host.registrations[-1], "registration")
            await host.until(lambda: answers(port) == 401, f"the endpoint to answer at {listen}", 60)
            (first,) = _pids(log)
            await host.eventually(
                lambda: host.layout(service),
                lambda layout: f"Open its log ({log})" in _labels(find_node(layout[1], "HTTP endpoint")),
                "the log in the menu",
            )
            os.kill(first, kill_signal())  # as the system's out-of-memory killer would

            def told(summary: str) -> list[Any]:
                return [n for n in host.notifications if n[3] == summary]

            await host.until(lambda: told("The HTTP endpoint stopped unexpectedly"), "the crash to be told")
            body = str(told("The HTTP endpoint stopped unexpectedly")[0][4])
            assert body.startswith("It was stopped by SIGKILL; Vault Recall starts it again in") and str(log) in body
            await host.until(lambda: told("The HTTP endpoint is back"), "the endpoint to be back", 60)
            assert answers(port) == 401 and len(set(_pids(log))) == 2
            await host.eventually(
                lambda: host.layout(service),
                lambda layout: f"Serving at http://{listen}/mcp" in _labels(find_node(layout[1], "HTTP endpoint")),
                "the menu to show it serving again",
            )
    assert_mode(log, 0o600)
    assert_mode(log.parent, 0o700)
    assert "ended: it was stopped by SIGKILL" in log.read_text(encoding="utf-8")
    assert "Traceback" not in (tmp_path / "tray.log").read_text(encoding="utf-8", errors="replace")
