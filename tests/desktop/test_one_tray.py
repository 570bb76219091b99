"""One tray per person: a second `vault-recall` finds the running tray, which says where it is,
and `vault-recall quit` ends it — real processes on a private session bus, under the played
panel (tests/support/sni_host.py) whose notification service records what the tray shows."""

from __future__ import annotations

import anyio
import pytest

from tests.support.headless import Desktop, tray
from tests.support.sni_host import panel

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


async def test_a_second_tray_does_not_start_it_asks_the_first_to_show_itself_and_quit_ends_it(
    desktop: Desktop,
) -> None:
    async with panel(desktop.bus_address) as host:
        with tray(desktop) as first:
            await host.until(lambda: host.registrations, "the first tray's registration")
            shown = len(host.notifications)

            second = await anyio.to_thread.run_sync(desktop.vault_recall)  # `vault-recall`, no command
            assert second.returncode == 0, second.stderr
            assert f"already running (process {first.pid})" in second.stderr
            assert "vault-recall quit" in second.stderr and "Traceback" not in second.stderr
            # The running tray says where it is; no second icon was registered.
            await host.until(lambda: len(host.notifications) > shown, "the running tray's notification")
            assert host.notifications[-1][3] == "Vault Recall is already running"
            assert "icon is in the panel" in host.notifications[-1][4]
            assert len({service for _, service in host.registrations}) == 1

            done = await anyio.to_thread.run_sync(desktop.vault_recall, "quit")
            assert done.returncode == 0 and done.stdout.startswith("Vault Recall's tray has quit"), done.stderr
            assert first.poll() == 0  # it had ended when `quit` returned
        again = await anyio.to_thread.run_sync(desktop.vault_recall, "quit")
        assert again.returncode == 0 and again.stdout.startswith("Vault Recall's tray is not running")
    assert "Traceback" not in desktop.log("tray")
