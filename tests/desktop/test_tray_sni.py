"""The StatusNotifierItem tray, protocol by protocol, on a real `dbus-daemon`.

The test plays the panel (tests/support/sni_host.py): the StatusNotifierWatcher the item registers
with, the host that reads its properties and icon, walks its dbusmenu with GetLayout and clicks
with Event, a notification service and the portal's folder dialog.  The tray is the real
`vault-recall tray` process, choosing its backend by itself; a real `serve` process recalls.
Xvfb is there only for the clipboard (xclip).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.e2e import call, copy_sample_vault, serving
from tests.support.headless import opener_recorder, tray_running, x_and_session_bus
from tests.support.sni_host import CallError, SessionBus, as_model, find_node, panel
from tests.support.tray_clicks import popup_open
from tests.support.vaults import record, write_vault
from vault_recall.app.state.config_store import save_config
from vault_recall.server.config.config_file import ClientEntry, Config, VaultEntry, load_config

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

# A private session bus, and an X server for the clipboard (xclip), found ready by xdotool.
PARTS = ("dbus-daemon", "xvfb", "xclip", "xdotool", "python3-gi", "gtk")
GREEN = (46, 158, 91)


@pytest.fixture
def session(tmp_path: Path) -> Iterator[tuple[SessionBus, dict[str, str]]]:
    """A private session bus and an X server (for the clipboard), and the tray's environment."""
    with x_and_session_bus(tmp_path, *PARTS) as running:
        yield running


def centre_colour(pixmap: list[Any]) -> tuple[int, int, int]:
    width, height, data = pixmap
    offset = ((height // 2) * width + width // 5) * 4  # left of the 'V', inside the badge
    alpha, red, green, blue = data[offset : offset + 4]
    assert alpha == 255
    return red, green, blue


def without_actions(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {k: without_actions(v) if k == "submenu" and v else v for k, v in i.items() if k != "action"} for i in items
    ]


def clipboard(env: dict[str, str]) -> dict[str, Any] | None:
    done = subprocess.run(
        ["xclip", "-selection", "clipboard", "-o"], env=env, capture_output=True, text=True, check=False
    )
    try:
        return json.loads(done.stdout) if done.returncode == 0 else None
    except json.JSONDecodeError:
        return None


async def test_the_tray_is_a_statusnotifieritem_whose_dbusmenu_is_the_menu_model(
    session: tuple[SessionBus, dict[str, str]], tmp_path: Path
) -> None:
    bus, env = session
    work = copy_sample_vault(tmp_path / "Work folder")
    other = write_vault(tmp_path / "Other", {"Other.md": record("other", "another vault")})
    chosen = write_vault(tmp_path / "Chosen_vault", {"Chosen.md": record("chosen", "picked in the portal")})
    save_config(
        Config(
            vaults=(VaultEntry("Work", str(work)), VaultEntry("Other", str(other))),
            active_vault="Work",
            clients=(ClientEntry("cursor"),),
        )
    )
    opener, opened = opener_recorder(tmp_path)
    dump = tmp_path / "menu.json"
    env.update(VAULT_RECALL_TRAY_MENU_DUMP=str(dump), **opener)

    def opened_lines() -> list[str]:
        return opened.read_text(encoding="utf-8").splitlines() if opened.exists() else []

    async with panel(bus.address) as host:
        with tray_running(env, tmp_path / "tray.log") as tray:
            # It registers with the watcher under a name of its own, and answers as an item.
            sender, service = await host.until(lambda: host.registrations and host.registrations[-1], "registration")
            assert service.startswith("org.kde.StatusNotifierItem-")
            await host.listen_to(sender)
            props = await host.item_properties(service)
            assert props["Id"] == "vault-recall" and props["Title"] == "Vault Recall"
            assert props["Status"] == "Active" and props["Category"] == "ApplicationStatus"
            assert props["Menu"] == "/MenuBar" and props["ItemIsMenu"] is True
            sizes = {p[0] for p in props["IconPixmap"]}
            assert {16, 22, 24, 32, 48, 64, 128} <= sizes  # every panel size, HiDPI too
            assert all(p[0] == p[1] and len(p[2]) == p[0] * p[1] * 4 for p in props["IconPixmap"])

            # Health arrives: the icon turns green and the tooltip names the vault's state.
            props = await host.eventually(
                lambda: host.item_properties(service),
                lambda p: p["ToolTip"][3].startswith("Work: healthy"),
                "the tooltip to say the vault is healthy",
            )
            assert props["ToolTip"][2] == "Vault Recall"
            big = next(p for p in props["IconPixmap"] if p[0] == 64)
            assert all(abs(a - b) < 12 for a, b in zip(centre_colour(big), GREEN, strict=True))

            # The dbusmenu is the menu model, item for item: labels, submenus, checks, enabled.
            revision, root = await host.layout(service)
            assert as_model(root) == without_actions(json.loads(dump.read_text(encoding="utf-8")))
            assert root["children"][0]["label"] == "Work — 10 notes, 7 records, no problems"
            assert find_node(root, "Notify on health change")["toggle-type"] == "checkmark"
            assert find_node(root, "Vault", "Work")["toggle-type"] == "radio"
            assert find_node(root, "Vault", "Work")["toggle-state"] == 1
            assert find_node(root, "Vault", "Other")["toggle-state"] == 0
            assert find_node(root, "Recent recalls", "No recalls yet")["enabled"] is False
            # The portal can choose folders here (no zenity or kdialog needed).
            assert find_node(root, "Vault", "Choose folder…")["enabled"] is True
            # A submenu alone, to a depth, and properties by group, as hosts ask.
            vault_menu = find_node(root, "Vault")
            _, only = await host.menu_call(service, "GetLayout", "iias", [vault_menu["id"], 1, ["label"]])
            assert only[0] == vault_menu["id"] and all(set(c.value[1]) <= {"label"} for c in only[2])
            (group,) = await host.menu_call(service, "GetGroupProperties", "aias", [[vault_menu["id"]], ["label"]])
            assert group[0][1]["label"].value == "Vault"
            assert (await host.menu_call(service, "AboutToShow", "i", [vault_menu["id"]]))[0] is False

            # A real client recalls through a real server: the layout updates and the icon blinks.
            host.signals.clear()
            async with serving("cursor", None) as client:
                result = await call(client, "recall_context", {"subject": "build-system", "query": "bazel"})
            assert result["records"]
            await host.until(lambda: any(s[1] == "LayoutUpdated" for s in host.signals), "LayoutUpdated")
            await host.until(lambda: any(s[1] == "NewIcon" for s in host.signals), "NewIcon")
            newer, root = await host.layout(service)
            assert newer > revision
            recalled = find_node(root, "Clients", "Cursor", "Recalled: Build decision")
            assert find_node(root, "Recent recalls")["children"][0]["label"].startswith("Cursor · Build decision · ")

            # Clicks do what the items say: open the note…
            await host.click(service, recalled["id"])
            note = "obsidian://open?vault=Work%20folder&file=Projects%2FBuild%2FBuild%20decision"
            await host.until(lambda: note in opened_lines(), "the note to open")
            # … copy the client's snippet …
            await host.click(service, find_node(root, "Clients", "Cursor", "Copy config snippet")["id"])
            snippet = await host.until(lambda: clipboard(env), "the snippet on the clipboard")
            assert snippet["mcpServers"]["vault-recall"]["args"][:3] == ["serve", "--client", "cursor"]
            await host.until(lambda: host.notifications, "the 'copied' notification")
            assert host.notifications[-1][3] == "Cursor config snippet copied"
            assert host.notifications[-1][0] == "Vault Recall"

            # … and a check item changes the config; only its properties change on the bus.
            toggle = find_node(root, "Notify on recall")
            assert toggle["toggle-state"] == 0
            host.signals.clear()
            await host.click(service, toggle["id"])

            def toggled() -> bool:
                return any(
                    s[1] == "ItemsPropertiesUpdated"
                    and any(
                        u[0] == toggle["id"] and u[1].get("toggle-state") and u[1]["toggle-state"].value == 1
                        for u in s[2][0]
                    )
                    for s in host.signals
                )

            await host.until(toggled, "ItemsPropertiesUpdated for the check mark")
            assert dict(load_config().extra)["tray"]["notify_recall"] is True
            assert not any(s[1] == "LayoutUpdated" for s in host.signals)

            # Notify on recall: the next recall is announced through org.freedesktop.Notifications.
            count = len(host.notifications)
            async with serving("cursor", None) as client:
                await call(client, "recall_context", {"subject": "build-system", "query": "bazel"})
            await host.until(lambda: len(host.notifications) > count, "the recall notification")
            assert host.notifications[-1][3] == "Cursor recalled Build decision"

            # A radio item switches the vault every server reads.
            _, root = await host.layout(service)
            await host.click(service, find_node(root, "Vault", "Other")["id"])
            await host.until(lambda: load_config().active_vault == "Other", "the active vault to change")

            await host.eventually(
                lambda: host.layout(service),
                lambda layout: layout[1]["children"][0]["label"] == "Other — 1 note, 1 record, no problems",
                "the health line of the new vault",
            )

            # Choose folder… asks the portal, which answers with a folder: it becomes the vault.
            host.folder_answer = str(chosen)
            _, root = await host.layout(service)
            await host.click(service, find_node(root, "Vault", "Choose folder…")["id"])
            await host.until(lambda: load_config().active_vault == "Chosen_vault", "the chosen folder to be the vault")
            assert host.folder_requests[-1]["directory"] is True
            assert load_config().vault("Chosen_vault").path == str(chosen)  # type: ignore[union-attr]

            # A left click on hosts that send Activate (LXQt's panel): the same menu, drawn by the
            # tray at the pointer; its first line, chosen with the keyboard, opens the vault.
            await host.until(
                lambda: json.loads(dump.read_text(encoding="utf-8"))[0]["text"].startswith("Chosen_vault"),
                "the new vault",
            )
            await host.item_call(service, "Activate", "ii", [0, 0])
            await host.until(lambda: popup_open(env), "the tray's own menu")
            subprocess.run(["xdotool", "key", "--delay", "80", "Down", "Return"], env=env, check=True, timeout=30)
            await host.until(lambda: "obsidian://open?vault=Chosen_vault" in opened_lines(), "the vault to open")
            await host.until(lambda: not popup_open(env), "the menu to close")

            # A click on an item that is gone is refused, and does nothing.
            with pytest.raises(CallError) as refused:
                await host.click(service, 999_999)
            assert refused.value.name == "org.freedesktop.DBus.Error.InvalidArgs"

            # The panel restarts: the item registers again with the new watcher.
            before = len(host.registrations)
            host.stop_watcher()
            await host.start_watcher()
            await host.until(lambda: len(host.registrations) > before, "registration with the new watcher")
            assert host.registrations[-1][1] == service

            # Quit ends the tray cleanly.
            _, root = await host.layout(service)
            await host.click(service, find_node(root, "Quit Vault Recall")["id"])
            assert tray.wait(timeout=30) == 0
    assert "Traceback" not in (tmp_path / "tray.log").read_text(encoding="utf-8", errors="replace")


def recent_labels(root: dict[str, Any]) -> list[str]:
    recalls = find_node(root, "Recent recalls")["children"]
    return [c["label"].replace("__", "_") for c in recalls if c.get("label") not in (None, "Show all activity")]


async def test_after_the_person_edits_a_recalled_note_the_tray_marks_it_and_names_who_read_the_old_version(
    session: tuple[SessionBus, dict[str, str]], tmp_path: Path
) -> None:
    bus, env = session
    work = copy_sample_vault(tmp_path / "Work")
    save_config(
        Config(
            vaults=(VaultEntry("Work", str(work)),),
            active_vault="Work",
            clients=(ClientEntry("cursor"), ClientEntry("claude-code")),
        )
    )
    note = work / "Projects/Build/Build decision.md"
    async with panel(bus.address) as host:
        with tray_running(env, tmp_path / "tray.log") as tray:
            sender, service = await host.until(lambda: host.registrations and host.registrations[-1], "registration")
            await host.listen_to(sender)
            # Two real clients recall the decision through real servers.
            for client in ("cursor", "claude-code"):
                async with serving(client, None) as session_:
                    await call(session_, "recall_context", {"subject": "build-system", "query": "bazel"})
            _, root = await host.eventually(
                lambda: host.layout(service),
                lambda layout: len(recent_labels(layout[1])) == 2,
                "both recalls in Recent recalls",
            )
            assert not any("since" in label for label in recent_labels(root))
            count = len(host.notifications)

            # The person corrects the note (as Obsidian saves: the file rewritten in place).
            note.write_text(
                note.read_text(encoding="utf-8") + "\nCorrection: docs still build with Make.\n", encoding="utf-8"
            )
            _, root = await host.eventually(
                lambda: host.layout(service),
                lambda layout: all(label.endswith(" · changed since") for label in recent_labels(layout[1])),
                "the 'changed since' marks",
            )
            assert [label.split(" · ")[:2] for label in recent_labels(root)] == [
                ["Claude Code", "Build decision"],
                ["Cursor", "Build decision"],
            ]
            assert find_node(root, "Clients", "Cursor", "Recalled: Build decision · changed since")
            await host.until(lambda: len(host.notifications) > count, "the 'recalled the old version' notification")
            assert host.notifications[-1][3] == "Claude Code and Cursor recalled the old 'Build decision' today"
            assert find_node(root, "Notify when a recalled note changes")["toggle-state"] == 1

            # Cursor recalls the corrected note: its mark goes, Claude Code's stays.
            async with serving("cursor", None) as session_:
                await call(session_, "recall_context", {"subject": "build-system", "query": "bazel"})
            _, root = await host.eventually(
                lambda: host.layout(service),
                lambda layout: len(recent_labels(layout[1])) == 3,
                "the new recall",
            )
            labels = recent_labels(root)
            assert not labels[0].endswith("since") and labels[0].startswith("Cursor · Build decision")
            assert labels[1].startswith("Claude Code") and labels[1].endswith(" · changed since")
            assert find_node(root, "Clients", "Cursor", "Recalled: Build decision")

            # The notification has a toggle of its own.
            await host.click(service, find_node(root, "Notify when a recalled note changes")["id"])
            await host.until(
                lambda: dict(load_config().extra).get("tray", {}).get("notify_changed") is False, "the toggle saved"
            )
            _, root = await host.layout(service)
            await host.click(service, find_node(root, "Quit Vault Recall")["id"])
            assert tray.wait(timeout=30) == 0
    assert "Traceback" not in (tmp_path / "tray.log").read_text(encoding="utf-8", errors="replace")
