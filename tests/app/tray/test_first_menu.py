"""The first menu for a person new to the tray: their own vault one click from the icon, the
sample vault saying what it is, a client connected in one click (those found on this computer
first), problems in plain words, and apps connected with OAuth by their names."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.menu_walk import find, first_lines, texts
from vault_recall.app.clients.catalogue import CLIENTS, client_spec
from vault_recall.app.state.health import HealthReport
from vault_recall.app.state.obsidian_vaults import KnownVault, last_opened
from vault_recall.app.tray.installed import Installed
from vault_recall.app.tray.menu.items import TrayState
from vault_recall.app.tray.menu.tree import build_menu
from vault_recall.server.activity.event_rows import ClientSummary, EventRow
from vault_recall.server.config.config_file import ClientEntry, Config, VaultEntry

NOW = 1_800_000_000.0
SAMPLE = Path("/repo/assets/sample-vault")
ON_SAMPLE = Config(vaults=(VaultEntry("Sample vault", str(SAMPLE), sample=True),), active_vault="Sample vault")
WORK = Config(vaults=(VaultEntry("Work", "/v/work"),), active_vault="Work")
OBSIDIAN = (
    KnownVault("Diary", Path("/o/Diary"), 1_700_000_900_000, False, Path("/x")),
    KnownVault("Work", Path("/o/Work"), 1_700_000_000_000, True, Path("/x")),
    KnownVault("Old", Path("/o/Old"), None, False, Path("/x")),
)


def report(records: int = 7, **kw: object) -> HealthReport:
    fields: dict[str, object] = {"status": "ok", "vault": "v", "path": "/v", "notes": 10, "records": records} | kw
    return HealthReport(**fields)  # type: ignore[arg-type]


def state(**kw: object) -> TrayState:
    fields: dict[str, object] = {"config": ON_SAMPLE, "health": report(), "now": NOW, "sample_vault": SAMPLE} | kw
    return TrayState(**fields)  # type: ignore[arg-type]


def test_on_the_sample_vault_the_first_menu_offers_the_vault_obsidian_has_open_in_one_click() -> None:
    menu = build_menu(state(known_vaults=OBSIDIAN))
    assert first_lines(menu)[1:] == ["This is the sample vault: example notes, not yours", "Use your vault 'Work'"]
    assert not menu[1].enabled  # it says what the sample is; no help page to read first
    assert menu[2].action == ("use_path", "/o/Work", "Work")
    assert all(item.action != ("help", "vault") for item in menu)


def test_the_vault_obsidian_last_opened_is_the_one_it_has_open_else_the_newest() -> None:
    assert last_opened(OBSIDIAN) == OBSIDIAN[1]  # open, though Diary was opened later
    closed = tuple(KnownVault(v.name, v.path, v.last_opened_ms, False, v.source) for v in OBSIDIAN)
    assert last_opened(closed) == closed[0]
    assert last_opened(()) is None
    menu = build_menu(state(known_vaults=closed))
    assert "Use your vault 'Diary'" in first_lines(menu)


def test_with_no_vault_obsidian_knows_the_first_menu_opens_the_folder_dialog_or_copies_the_command() -> None:
    assert first_lines(build_menu(state()))[2:] == ["Choose your vault's folder…"]
    assert find(build_menu(state()), "Choose your vault's folder…").action == ("choose_folder",)
    no_dialog = build_menu(state(config=Config(), health=None, can_pick_folder=False))
    assert first_lines(no_dialog) == ["No vault yet", "Add your vault: vault-recall vault add PATH (copy)"]
    assert no_dialog[1].action == ("copy_add_vault",)


def test_once_the_persons_own_vault_is_in_use_the_first_menu_says_nothing_of_vaults() -> None:
    menu = build_menu(state(config=WORK, known_vaults=OBSIDIAN))
    assert first_lines(menu) == ["Work — 10 notes, 7 records, no problems"]


def test_first_steps_come_in_order_pause_then_the_vault_then_something_to_recall() -> None:
    paused = Config(vaults=ON_SAMPLE.vaults, active_vault="Sample vault", paused=True)
    menu = build_menu(state(config=paused, known_vaults=OBSIDIAN, health=report(records=0)))
    assert first_lines(menu)[1:] == [
        "Recall is paused: clients get 'unavailable' — click to resume",
        "This is the sample vault: example notes, not yours",
        "Use your vault 'Work'",
        "No memory records yet: what is a record?",
    ]


def test_connect_lists_the_clients_found_on_this_computer_first_and_checks_those_connected() -> None:
    installed = {"cursor": Installed(Path("/h/.cursor/mcp.json"), by_url=False)}
    connect = (
        find(
            build_menu(state(found_clients=frozenset({"cursor", "claude-code"}), installed=installed)),
            "Connect a client",
        ).submenu
        or ()
    )
    assert texts(connect)[:4] == ["Found on this computer", "Claude Code", "Cursor", "-"]
    assert texts(connect)[4] == "Not found here" and len(connect) == len(CLIENTS) + 3
    assert not connect[0].enabled and not connect[4].enabled
    assert find(connect, "Claude Code").action == ("connect", "claude-code")
    assert (find(connect, "Cursor").checked, find(connect, "Claude Code").checked) == (True, False)
    # Nothing found: the catalogue's order, no headings.
    plain = find(build_menu(state()), "Connect a client").submenu or ()
    assert texts(plain) == [spec.name for spec in CLIENTS]


def test_a_client_kept_in_settings_only_is_connected_by_copying_so_not_without_a_clipboard() -> None:
    jetbrains = client_spec("jetbrains")
    assert jetbrains is not None and jetbrains.paste_only
    assert find(build_menu(state()), "Connect a client", jetbrains.name).enabled
    assert not find(build_menu(state(can_copy=False)), "Connect a client", jetbrains.name).enabled


def test_a_folder_that_cannot_be_read_is_named_by_its_path_and_opens_nothing() -> None:
    problems = (
        {"path": "Private/", "reason": "folder Private/ cannot be read (permission denied), so its notes are missing"},
        {
            "path": "Ops/Deploy.md",
            "reason": "Ops/Deploy.md, line 3: property 'tags' is not valid YAML: its '[' is never closed with ']'",
        },
    )
    menu = build_menu(state(config=WORK, health=report(status="degraded", problems=problems)))
    folder, note = find(menu, "Problems (2)").submenu or ()
    assert folder.text == "Folder Private/ cannot be read (its notes are missing)"
    assert folder.action is None and not folder.enabled
    assert note.text.startswith("Deploy — line 3: property 'tags' is not valid YAML")
    assert note.action == ("open_note", "Ops/Deploy.md")


def test_apps_connected_with_oauth_go_by_their_names_wherever_clients_are_listed() -> None:
    recall = EventRow(
        id=1,
        ts=NOW - 60,
        client="mcp-inspector",
        client_name="inspector",
        tool="recall_context",
        vault="v",
        subject="build",
        query=None,
        status="ok",
        omitted=0,
        duration_ms=1.0,
        error=None,
        returned=("B.md",),
        revisions=("r",),
    )
    menu = build_menu(
        state(
            config=Config(vaults=WORK.vaults, active_vault="Work", clients=(ClientEntry("mcp-inspector"),)),
            recent=(recall,),
            clients=(ClientSummary("mcp-inspector", 1, NOW - 60),),
            app_names={"mcp-inspector": "MCP Inspector"},
        )
    )
    assert texts(find(menu, "Clients").submenu or ()) == ["MCP Inspector"]
    assert texts(find(menu, "Recent recalls").submenu or ())[0].startswith("MCP Inspector · B · 1 min ago")
    # A catalogue client keeps the catalogue's name; an id nobody named stays as it is.
    assert TrayState(config=WORK, app_names={"cursor": "cursor-agent"}).name_of("cursor") == "Cursor"
    assert TrayState(config=WORK).name_of("my-agent") == "my-agent"


@pytest.mark.parametrize("clients", [(), (ClientEntry("cursor"),)])
def test_the_clients_menu_points_to_connect_when_there_is_none(clients: tuple[ClientEntry, ...]) -> None:
    listed = texts(find(build_menu(state(config=Config(vaults=WORK.vaults, clients=clients))), "Clients").submenu or ())
    assert listed == (["Cursor"] if clients else ["No clients yet: Connect a client connects one"])
