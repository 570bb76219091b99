"""The tray's menu for a person new to it and in control of it: one vault menu, the sample vault
said to be the sample, what a record is when there are none, pause, per-client installed state
with Uninstall, URL snippets that say what they do to tokens, recalls that say what was asked,
and help, doctor and the version at hand."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.support.menu_walk import find, texts
from vault_recall.app.state.health import HealthReport
from vault_recall.app.state.obsidian_vaults import KnownVault
from vault_recall.app.tray.installed import Installed
from vault_recall.app.tray.menu.items import TrayState
from vault_recall.app.tray.menu.tree import Item, build_menu, status_of, tooltip
from vault_recall.server.activity.event_rows import EventRow
from vault_recall.server.config.bearer_tokens import token_hash
from vault_recall.server.config.config_file import ClientEntry, Config, VaultEntry
from vault_recall.server.recall.results import Status

NOW = 1_800_000_000.0
WORK = Config(vaults=(VaultEntry("Work", "/v/work"),), active_vault="Work", clients=(ClientEntry("cursor"),))


def report(records: int = 87, status: Status = "ok") -> HealthReport:
    return HealthReport(status=status, vault="work", path="/v/work", notes=1204, records=records)


def state(**kw: object) -> TrayState:
    fields: dict[str, object] = {"config": WORK, "health": report(), "now": NOW, "version": "9.9.9"} | kw
    return TrayState(**fields)  # type: ignore[arg-type]


def test_pause_is_a_check_item_and_a_paused_tray_says_so_in_its_menu_icon_and_tooltip() -> None:
    running = build_menu(state())
    assert find(running, "Pause recall").checked is False and find(running, "Pause recall").action == (
        "toggle",
        "paused",
    )
    paused = state(config=Config(vaults=WORK.vaults, active_vault="Work", paused=True))
    menu = build_menu(paused)
    assert find(menu, "Pause recall").checked is True
    # The banner says what clicking it does.
    assert menu[1].text == "Recall is paused: clients get 'unavailable' — click to resume"
    assert menu[1].action == ("toggle", "paused")
    assert status_of(paused) == "paused" and tooltip(paused) == "Vault Recall — Work: recall is paused"


def test_a_vault_without_records_is_amber_and_says_what_a_record_is() -> None:
    empty = state(health=report(records=0))
    menu = build_menu(empty)
    assert menu[0].text == "Work — 1,204 notes, 0 records, no problems"
    assert menu[1].text == "No memory records yet: what is a record?" and menu[1].action == ("help", "records")
    assert status_of(empty) == "empty" and "no memory records yet" in tooltip(empty)
    assert status_of(state()) == "ok"


def test_a_vault_without_records_is_amber_though_some_notes_are_broken() -> None:
    # The vault a person already has: no records, and a few broken notes (listed beneath).
    broken = state(health=report(records=0, status="degraded"))
    menu = build_menu(broken)
    assert menu[1].text == "No memory records yet: what is a record?" and menu[1].action == ("help", "records")
    assert status_of(broken) == "empty" and "no memory records yet" in tooltip(broken)
    assert status_of(state(health=report(status="degraded"))) == "degraded"
    assert status_of(state(health=report(records=0, status="unavailable"))) == "unavailable"
    # A record that is broken is no "no records yet": its problem is what to fix.
    mistyped = replace(report(records=0, status="degraded"), broken_records=1)
    assert status_of(state(health=mistyped)) == "degraded"
    assert "No memory records yet: what is a record?" not in [i.text for i in build_menu(state(health=mistyped))]


def test_help_holds_what_a_record_is_activity_doctor_and_the_version() -> None:
    help_menu = find(build_menu(state()), "Help").submenu or ()
    assert [(i.text, i.action) for i in help_menu if i.action] == [
        ("What is a memory record?", ("help", "records")),
        ("Getting started", ("help", "")),
        ("Show all activity", ("show_activity",)),
        ("Run doctor", ("doctor",)),
    ]
    assert help_menu[-1].text == "Vault Recall 9.9.9" and not help_menu[-1].enabled


def test_without_a_folder_dialog_the_vault_menu_offers_the_command_instead() -> None:
    vaults = find(build_menu(state(can_pick_folder=False)), "Vault").submenu or ()
    item = find(vaults, "Add a folder: vault-recall vault add PATH (copy)")
    assert item.enabled and item.action == ("copy_add_vault",)
    assert "Choose folder…" not in texts(vaults)


def test_two_vaults_of_one_name_are_told_apart_by_where_they_are() -> None:
    home = Path.home()
    known = (
        KnownVault("Notes", home / "work/Notes", 2, True, Path("/x")),
        KnownVault("Notes", Path("/srv/shared/Notes"), 1, False, Path("/x")),
        KnownVault("Diary", home / "Diary", 0, False, Path("/x")),
    )
    vaults = find(build_menu(state(known_vaults=known)), "Vault").submenu or ()
    assert texts(vaults)[:4] == ["Obsidian's vaults", "Notes (~/work)", "Notes (/srv/shared)", "Diary"]


def recall(tool: str, query: str | None, subject: str | None, returned: tuple[str, ...]) -> EventRow:
    return EventRow(
        id=1,
        ts=NOW - 120,
        client="cursor",
        client_name=None,
        tool=tool,
        vault="work",
        subject=subject,
        query=query,
        status="ok",
        omitted=0,
        duration_ms=1.0,
        error=None,
        returned=returned,
        revisions=tuple("r" for _ in returned),
    )


def test_recent_recalls_say_which_tool_and_what_was_asked() -> None:
    recent = (
        recall("read_note", None, None, ("Team/Review.md",)),
        recall("search_notes", "deploy window", None, ("A.md", "B.md", "C.md")),
        recall("recall_context", None, "build-system", ("Build decision.md",)),
        recall("recall_context", "why did we choose bazel over make for the monorepo", "build-system", ("B.md",)),
    )
    labels = texts(find(build_menu(state(recent=recent)), "Recent recalls").submenu or ())
    assert labels[:4] == [
        "Cursor · B · 2 min ago · recall “why did we choose bazel over…”",
        "Cursor · Build decision · 2 min ago · recall build-system",
        "Cursor · A · 2 min ago · search “deploy window”",
        "Cursor · Review · 2 min ago · read",
    ]
    assert labels[-1] == "Show all activity"


TOKEN = "vrt_" + "a" * 43


def client_menu(**kw: object) -> tuple[Item, ...]:
    return find(build_menu(state(**kw)), "Clients", "Cursor").submenu or ()


def test_each_client_says_whether_and_where_it_is_installed_and_offers_uninstall() -> None:
    home = Path.home()
    assert texts(client_menu())[1] == "Not installed" and "Uninstall from Cursor" not in texts(client_menu())
    by_file = {"cursor": Installed(home / ".cursor/mcp.json", by_url=False)}
    items = client_menu(installed=by_file)
    assert texts(items)[1] == "Installed in ~/.cursor/mcp.json"
    assert find(items, "Uninstall from Cursor").action == ("uninstall", "cursor")
    by_url = {
        "cursor": Installed(home / ".cursor/mcp.json", True, "http://127.0.0.1:27183/mcp", token_hash(TOKEN), TOKEN)
    }
    assert texts(client_menu(installed=by_url))[1] == "Installed by URL in ~/.cursor/mcp.json"


def test_a_client_installed_but_never_registered_is_listed_too() -> None:
    installed = {"zed": Installed(Path("/h/.config/zed/settings.json"), by_url=False)}
    menu = build_menu(state(installed=installed))
    assert "Zed" in texts(find(menu, "Clients").submenu or ())
    assert find(menu, "Connect a client", "Zed").checked is True  # connected already


def url_item(items: tuple[Item, ...]) -> str:
    return next(i.text for i in items if i.action == ("copy_http_snippet", "cursor"))


def test_the_url_snippet_item_says_whether_it_makes_a_token_and_what_that_breaks() -> None:
    path = Path.home() / ".cursor/mcp.json"
    with_token = Config(
        vaults=WORK.vaults, active_vault="Work", clients=(ClientEntry("cursor", token_sha256=token_hash(TOKEN)),)
    )
    installed = {"cursor": Installed(path, True, "http://127.0.0.1:27183/mcp", token_hash(TOKEN), TOKEN)}
    # The installed entry sends the token the config knows: the snippet reuses it.
    assert url_item(client_menu(config=with_token, installed=installed)) == "Copy URL snippet (its installed token)"
    # An installed URL entry whose token is not the config's (or not in its file, as Codex's): a
    # new token, and the item says the installed one stops working.
    assert url_item(client_menu(installed=installed)) == "Copy URL snippet (new token; the installed one stops working)"
    # A token made before, for an entry pasted by hand somewhere: said too.
    assert url_item(client_menu(config=with_token)) == "Copy URL snippet (new token; its old one stops working)"
    assert url_item(client_menu()) == "Copy URL snippet (new token)"
