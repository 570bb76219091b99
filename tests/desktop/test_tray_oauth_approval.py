"""The real tray approving an app that authorizes with OAuth on a real `vault-recall http`: on a
private `dbus-daemon`, the test plays the panel and the notification service
(tests/support/sni_host.py) and the person's browser (tests/support/oauth_browser.py).  The app
starts waiting: the tray notifies with its name and code and lists it; a click on Approve sends
the browser back with a code; a click on Revoke ends the grant."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tests.support.e2e import copy_sample_vault
from tests.support.headless import tray_running, x_and_session_bus
from tests.support.http_e2e import running_endpoint
from tests.support.oauth_browser import (
    approved_app,
    authorization_url,
    authorize_params,
    open_authorization,
    pkce,
    query_of,
    redirect_after_decision,
    register,
    reload,
)
from tests.support.sni_host import SessionBus, find_node, panel
from vault_recall.app.state.config_store import save_config
from vault_recall.server.config.config_file import Config, VaultEntry
from vault_recall.server.oauth import tokens as oauth_tokens

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


@pytest.fixture
def bus(tmp_path: Path) -> Iterator[tuple[SessionBus, dict[str, str]]]:
    with x_and_session_bus(tmp_path, "dbus-daemon", "xvfb") as running:
        yield running


def _authorization_url(base: str) -> str:
    _, challenge = pkce()
    params = authorize_params(register(base, "Desk app"), challenge) | {"state": "s"}
    return authorization_url(base, params)


async def test_the_tray_tells_of_a_waiting_app_approves_it_with_a_click_and_revokes_it(
    bus: tuple[SessionBus, dict[str, str]], tmp_path: Path
) -> None:
    session, env = bus
    vault = copy_sample_vault(tmp_path / "Work")
    save_config(Config(vaults=(VaultEntry("Work", str(vault)),), active_vault="Work"))
    with running_endpoint() as endpoint:
        base = f"http://127.0.0.1:{endpoint.port}"
        async with panel(session.address) as host:
            with tray_running(env, tmp_path / "tray.log"):
                _, service = await host.until(lambda: host.registrations and host.registrations[-1], "registration")
                waiting = open_authorization(_authorization_url(base))
                await host.until(
                    lambda: any(waiting.approval_code in str(n[3]) for n in host.notifications), "the notification"
                )
                told = next(n[3] for n in host.notifications if waiting.approval_code in str(n[3]))
                assert told.startswith("“Desk app” asks to recall your notes")
                approve_label = f"Approve “Desk app” as desk-app ({waiting.approval_code})"
                _, root = await host.eventually(
                    lambda: host.layout(service),
                    lambda layout: _has(layout[1], "Apps waiting for approval (1)", approve_label),
                    "the waiting app in the menu",
                )
                await host.click(service, find_node(root, "Apps waiting for approval (1)", approve_label)["id"])
                await host.until(lambda: oauth_tokens.grants(), "the approval")
                assert [g.client for g in oauth_tokens.grants()] == ["desk-app"]
                landed = query_of(redirect_after_decision(waiting))  # the browser goes on, with a code
                assert landed["code"].startswith("vrc_") and landed["state"] == "s"
                assert reload(waiting).status_code == 200  # and only once
                _, root = await host.eventually(
                    lambda: host.layout(service),
                    # The grant is in the store a moment before the client is in the config (the
                    # approval writes one, then the other), so the menu may show one first.
                    lambda layout: (
                        _has(layout[1], "Apps connected with OAuth", "Revoke “Desk app” (desk-app)")
                        and _has(layout[1], "Clients", "Desk app")
                    ),
                    "the grant and its client in the menu",
                )
                # Among the clients, the app goes by its name, as catalogue clients do.
                assert not _has(root, "Clients", "desk-app")
                await host.click(
                    service, find_node(root, "Apps connected with OAuth", "Revoke “Desk app” (desk-app)")["id"]
                )
                await host.until(lambda: oauth_tokens.grants() == [], "the grant to be revoked")
    assert "Traceback" not in (tmp_path / "tray.log").read_text(encoding="utf-8", errors="replace")


def _has(root: dict[str, object], *labels: str) -> bool:
    try:
        find_node(root, *labels)  # type: ignore[arg-type]
    except AssertionError:
        return False
    return True


async def test_the_tray_tells_when_a_replayed_code_revoked_a_grant(
    bus: tuple[SessionBus, dict[str, str]], tmp_path: Path
) -> None:
    session, env = bus
    vault = copy_sample_vault(tmp_path / "Work")
    save_config(Config(vaults=(VaultEntry("Work", str(vault)),), active_vault="Work"))
    with running_endpoint() as endpoint:
        base = f"http://127.0.0.1:{endpoint.port}"
        async with panel(session.address) as host:
            with tray_running(env, tmp_path / "tray.log"):
                _, service = await host.until(lambda: host.registrations and host.registrations[-1], "registration")
                _, form = approved_app(base, "Desk app")
                assert httpx2.post(f"{base}/token", data=form, timeout=30).status_code == 200
                await host.eventually(
                    lambda: host.layout(service),
                    lambda layout: _has(layout[1], "Apps connected with OAuth", "Revoke “Desk app” (desk-app)"),
                    "the grant in the menu",
                )
                assert httpx2.post(f"{base}/token", data=form, timeout=30).status_code == 400  # replayed
                await host.until(
                    lambda: any("lost its access" in str(n[3]) for n in host.notifications), "the notification"
                )
                told = next(n for n in host.notifications if "lost its access" in str(n[3]))
                assert told[3] == "“Desk app” lost its access to your notes"
                assert "presented a second time" in str(told[4]) and "Connect the app again" in str(told[4])
                await host.eventually(
                    lambda: host.layout(service),
                    lambda layout: _has(
                        layout[1], "Apps connected with OAuth", "“Desk app” lost its access: a replay (desk-app)"
                    ),
                    "the replay in the menu",
                )
    assert "Traceback" not in (tmp_path / "tray.log").read_text(encoding="utf-8", errors="replace")
