"""The real tray's notices, as a person gets them, on a private session bus under the played
panel and notification service (tests/support/sni_host.py): a vault that disappears after real
clients recalled from it is one notification naming how many recalled notes went with it, never
one per note; the person's correction of a recalled note says what happens next."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.e2e import call, copy_sample_vault, serving
from tests.support.headless import Desktop, tray
from tests.support.sni_host import Panel, find_node, panel
from vault_recall.app.state.config_store import save_config
from vault_recall.server.config.config_file import ClientEntry, Config, VaultEntry

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


async def registered(host: Panel) -> str:
    sender, service = await host.until(lambda: host.registrations and host.registrations[-1], "registration")
    await host.listen_to(sender)
    return str(service)


async def recalled_by_two_clients(host: Panel, service: str) -> set[str]:
    """Cursor and Claude Code recall through real servers; the notes they were given."""
    given: set[str] = set()
    for client in ("cursor", "claude-code"):
        async with serving(client, None) as session:
            answer = await call(session, "recall_context", {"subject": "build-system", "query": "bazel"})
        given |= {record["path"] for record in answer["records"]}
    await host.eventually(
        lambda: host.layout(service),
        lambda layout: (
            len([c for c in find_node(layout[1], "Recent recalls")["children"] if " · " in c.get("label", "")]) == 2
        ),
        "both recalls in the menu",
    )
    return given


async def test_a_vault_that_disappears_is_one_notice_naming_the_recalled_notes_it_took(desktop: Desktop) -> None:
    work = copy_sample_vault(desktop.root / "Work")
    clients = (ClientEntry("cursor"), ClientEntry("claude-code"))
    save_config(Config(vaults=(VaultEntry("Work", str(work)),), active_vault="Work", clients=clients))
    async with panel(desktop.bus_address) as host, asyncio.timeout(300):
        with tray(desktop) as running:
            service = await registered(host)
            await host.eventually(
                lambda: host.layout(service),
                lambda layout: layout[1]["children"][0]["label"].startswith("Work — 10 notes"),
                "the first health check",
            )
            given = await recalled_by_two_clients(host, service)
            assert len(given) >= 2  # more than one note went with the vault
            count = len(host.notifications)

            moved = work.with_name("Work (unplugged)")
            work.rename(moved)  # as a disk unplugged, or the folder moved away
            # The tray looks at the recalled notes before its health check starts: any notice
            # of theirs would come before the vault's.
            await host.until(
                lambda: any(n[3] == "Work cannot be read" for n in host.notifications[count:]), "the vault's notice"
            )
            moved.rename(work)
            await host.until(
                lambda: any(n[3] == "Work can be read again" for n in host.notifications[count:]), "the vault back"
            )
            told = [(n[3], n[4]) for n in host.notifications[count:]]
            assert [summary for summary, _ in told] == ["Work cannot be read", "Work can be read again"]
            body = told[0][1]
            assert body.startswith(f"Vault folder {work} does not exist.")
            assert f"It took with it the {len(given)} notes clients recalled in the last day." in body
            assert body.endswith("Put the folder back (or plug its disk in), or choose another vault under Vault.")
            _, root = await host.layout(service)
            await host.click(service, find_node(root, "Quit Vault Recall")["id"])
            assert await asyncio.to_thread(running.wait, 60) == 0
    assert "Traceback" not in desktop.log("tray")


async def test_a_corrected_note_says_who_read_the_old_version_and_what_happens_next(desktop: Desktop) -> None:
    work = copy_sample_vault(desktop.root / "Work")
    clients = (ClientEntry("cursor"), ClientEntry("claude-code"))
    save_config(Config(vaults=(VaultEntry("Work", str(work)),), active_vault="Work", clients=clients))
    note = work / "Projects/Build/Build decision.md"
    async with panel(desktop.bus_address) as host, asyncio.timeout(300):
        with tray(desktop) as running:
            service = await registered(host)
            await recalled_by_two_clients(host, service)
            count = len(host.notifications)
            note.write_text(note.read_text(encoding="utf-8") + "\nCorrection: docs build with Make.\n", "utf-8")
            await host.until(lambda: len(host.notifications) > count, "the notice")
            assert (host.notifications[count][3], host.notifications[count][4]) == (
                "Claude Code and Cursor recalled the old 'Build decision' today",
                "Claude Code and Cursor are told on their next call that it changed, and asked to read it again; "
                "a new conversation gets the new version anyway. Nothing for you to do.",
            )
            _, root = await host.layout(service)
            await host.click(service, find_node(root, "Quit Vault Recall")["id"])
            assert await asyncio.to_thread(running.wait, 60) == 0
    assert "Traceback" not in desktop.log("tray")
