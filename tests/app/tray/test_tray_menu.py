"""The tray's menu as data, for every state the tray can be in."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.menu_walk import find, texts
from vault_recall.app.clients.catalogue import CLIENTS
from vault_recall.app.state.health import HealthReport
from vault_recall.app.state.obsidian_vaults import KnownVault
from vault_recall.app.tray.menu.items import TrayState
from vault_recall.app.tray.menu.tree import Item, build_menu, status_of, tooltip
from vault_recall.server.activity.event_rows import ClientSummary, EventRow
from vault_recall.server.config.config_file import ClientEntry, Config, VaultEntry

NOW = 1_800_000_000.0
WORK = Config(vaults=(VaultEntry("Work", "/v/work"), VaultEntry("Home", "/v/home")), active_vault="Work")


def healthy(**kw: object) -> HealthReport:
    fields: dict[str, object] = {
        "status": "ok",
        "vault": "work",
        "path": "/v/work",
        "notes": 1204,
        "records": 87,
        "subjects": ({"subject": "build", "active": 3, "archived": 0, "events": 1},),
    } | kw
    return HealthReport(**fields)  # type: ignore[arg-type]


def event(client: str, path: str, seconds_ago: float, n: int = 1, revision: str | None = None) -> EventRow:
    return EventRow(
        id=n,
        ts=NOW - seconds_ago,
        client=client,
        client_name=None,
        tool="recall_context",
        vault="work",
        subject="build",
        query="q",
        status="ok",
        omitted=0,
        duration_ms=1.0,
        error=None,
        returned=(path,),
        revisions=(revision,),
    )


def state(**kw: object) -> TrayState:
    fields: dict[str, object] = {"config": WORK, "health": healthy(), "now": NOW} | kw
    return TrayState(**fields)  # type: ignore[arg-type]


def test_a_healthy_vault_shows_its_counts_and_every_menu() -> None:
    menu = build_menu(state())
    assert menu[0].text == "Work — 1,204 notes, 87 records, no problems" and menu[0].default
    assert texts(menu)[1:] == [
        "-",
        "Vault",
        "Recent recalls",
        "Clients",
        "Connect a client",
        "HTTP endpoint",
        "-",
        "Pause recall",
        "Notify on recall",
        "Notify on health change",
        "Notify when a recalled note changes",
        "Start at login",
        "-",
        "Help",
        "Quit Vault Recall",
    ]
    assert status_of(state()) == "ok"
    assert tooltip(state()) == "Vault Recall — Work: healthy"
    assert find(menu, "Quit Vault Recall").action == ("quit",)


def test_a_degraded_vault_lists_its_problems_opening_each_note() -> None:
    problems = tuple(
        {"path": f"Notes/N{i}.md", "reason": f"Notes/N{i}.md, line 3: property 'x' is defined twice"} for i in range(20)
    )
    report = healthy(
        status="degraded", problems=problems, too_large=({"path": "Big.md", "bytes": 90000, "limit": 65536},)
    )
    menu = build_menu(state(health=report))
    assert menu[0].text == "Work — 1,204 notes, 87 records, 21 problems"
    listed = find(menu, "Problems (21)").submenu or ()
    assert listed[0].text == "N0 — line 3: property 'x' is defined twice"
    assert listed[0].action == ("open_note", "Notes/N0.md")
    assert listed[-1].text == "… and 6 more (vault-recall health)" and not listed[-1].enabled
    assert status_of(state(health=report)) == "degraded"
    assert tooltip(state(health=report)) == "Vault Recall — Work: some notes are broken"


def test_an_unavailable_vault_says_why_and_lists_no_problems() -> None:
    report = HealthReport(
        status="unavailable", vault="work", path="/v/work", reason="vault folder /v/work does not exist"
    )
    menu = build_menu(state(health=report))
    assert menu[0].text == "Work — unavailable: vault folder /v/work does not exist"
    assert "Problems" not in " ".join(texts(menu))
    assert status_of(state(health=report)) == "unavailable"


def test_no_vault_yet_invites_picking_one_obsidians_first() -> None:
    known = (
        KnownVault("Research", Path("/o/Research"), 2, True, Path("/x")),
        KnownVault("Diary", Path("/o/Diary"), 1, False, Path("/x")),
    )
    menu = build_menu(state(config=Config(), health=None, known_vaults=known))
    # The vault Obsidian has open, one click from the icon.
    assert texts(menu)[:2] == ["No vault yet", "Use your vault 'Research'"]
    assert menu[1].action == ("use_path", "/o/Research", "Research")
    assert texts(menu).count("Vault") == 1  # one vault menu, not two
    pick = find(menu, "Vault").submenu or ()
    assert texts(pick)[:3] == ["Obsidian's vaults", "Research", "Diary"]
    assert pick[1].action == ("use_path", "/o/Research", "Research") and pick[1].radio and not pick[1].checked
    assert status_of(state(config=Config(), health=None)) == "unavailable"


def test_the_sample_vault_on_first_run_invites_a_real_one() -> None:
    sample = Path("/repo/assets/sample-vault")
    config = Config(vaults=(VaultEntry("Sample vault", str(sample), sample=True),), active_vault="Sample vault")
    menu = build_menu(state(config=config, sample_vault=sample))
    # It says what it is (no page to read), and the next line picks the person's own folder.
    assert menu[1].text == "This is the sample vault: example notes, not yours" and not menu[1].enabled
    assert menu[2].text == "Choose your vault's folder…" and menu[2].action == ("choose_folder",)
    assert texts(menu).count("Vault") == 1
    vaults = find(menu, "Vault").submenu or ()
    assert texts(vaults)[:2] == ["Bundled with Vault Recall", "Sample vault (examples, not your notes)"]
    assert find(vaults, "Sample vault (examples, not your notes)").checked is True


def test_vault_choices_are_radio_items_with_the_active_one_checked() -> None:
    vaults = find(build_menu(state()), "Vault").submenu or ()
    assert texts(vaults) == [
        "Your vaults",
        "Work",
        "Home",
        "-",
        "Choose folder…",
        "Open in Obsidian",
        "Show folder",
        "Subjects from rules",
    ]
    assert (find(vaults, "Work").checked, find(vaults, "Home").checked) == (True, False)
    assert find(vaults, "Home").action == ("use", "Home")


def test_a_broken_config_says_so_and_offers_only_safe_actions() -> None:
    menu = build_menu(state(config=Config(), config_error="/c/config.json, line 2: is not valid JSON"))
    assert menu[0].text.startswith("Config broken: /c/config.json, line 2") and not menu[0].enabled
    assert [i.action for i in menu if i.action] == [("show_config",), ("quit",)]
    assert status_of(state(config_error="x")) == "unavailable"


def test_recent_recalls_name_the_client_the_note_and_when() -> None:
    recent = (event("cursor", "Projects/Build decision.md", 120, 1), event("zed", "Team/Review.md", 10, 2))
    menu = build_menu(state(recent=recent))
    recalls = find(menu, "Recent recalls").submenu or ()
    assert texts(recalls) == [
        "Zed · Review · just now · recall “q”",
        "Cursor · Build decision · 2 min ago · recall “q”",
        "-",
        "Show all activity",
    ]
    assert recalls[1].action == ("open_note", "Projects/Build decision.md", "work")  # the vault it came from
    assert tooltip(state(recent=recent)) == "Vault Recall — Work: healthy; last recall just now"


def test_hundreds_of_recalls_show_the_ten_newest() -> None:
    recent = tuple(event("cursor", f"N{i}.md", 1000 - i, i) for i in range(500))
    recalls = find(build_menu(state(recent=recent)), "Recent recalls").submenu or ()
    assert len(recalls) == 10 + 2 and recalls[0].text.startswith("Cursor · N499 ·")


def test_each_client_has_its_notes_snippet_install_and_exposure() -> None:
    config = Config(
        vaults=WORK.vaults,
        active_vault="Work",
        clients=(ClientEntry("cursor", exposure=("build",)), ClientEntry("jetbrains")),
    )
    recent = (event("cursor", "A.md", 300, 1), event("cursor", "B.md", 200, 2), event("zed", "C.md", 100, 3))
    clients = (
        ClientSummary("zed", 4, NOW - 100),
        ClientSummary("cursor", 2, NOW - 200),
    )
    menu = build_menu(state(config=config, recent=recent, clients=clients))
    listed = find(menu, "Clients").submenu or ()
    assert texts(listed)[:3] == ["Cursor", "JetBrains AI Assistant", "Zed"]  # registered first, then seen
    cursor = find(listed, "Cursor").submenu or ()
    assert texts(cursor) == [
        "Last seen 3 min ago · 2 calls",
        "Not installed",
        "Recalled: B",
        "Recalled: A",
        "-",
        "Copy config snippet",
        "Install into Cursor",
        "Install by URL",
        "Copy URL snippet (new token)",
        "Sees",
    ]
    assert find(cursor, "Install by URL").action == ("install_http", "cursor")
    assert find(cursor, "Copy URL snippet (new token)").action == ("copy_http_snippet", "cursor")
    assert find(cursor, "Copy config snippet").action == ("copy_snippet", "cursor")
    sees = find(cursor, "Sees").submenu or ()
    assert find(sees, "Memory records of every subject").checked is False
    assert find(sees, "Only build").checked is True and find(sees, "Only build").action == (
        "expose_toggle",
        "cursor",
        "build",
    )
    jetbrains = find(listed, "JetBrains AI Assistant").submenu or ()
    assert "Install into JetBrains AI Assistant" not in texts(jetbrains)  # settings only: no file to install into
    assert "Install by URL" not in texts(jetbrains)
    connect = find(menu, "Connect a client").submenu or ()
    assert [i.action for i in connect if i.action] == [("connect", spec.id) for spec in CLIENTS]


def test_many_clients_long_names_and_unicode_stay_short() -> None:
    long_name = "Ünïcödé vault with a very long name that goes on " * 3
    config = Config(
        vaults=(VaultEntry(long_name, "/v/x"),),
        active_vault=long_name,
        clients=tuple(ClientEntry(f"client-{i}") for i in range(40)),
    )
    menu = build_menu(state(config=config, health=healthy(vault="x")))
    assert all(len(i.text) <= 90 for i in menu)
    assert menu[0].text.endswith("…")
    assert len(find(menu, "Clients").submenu or ()) == 40


@pytest.mark.parametrize(
    ("setting", "text"),
    [
        ("notify_recall", "Notify on recall"),
        ("notify_health", "Notify on health change"),
        ("notify_changed", "Notify when a recalled note changes"),
        ("start_at_login", "Start at login"),
    ],
)
def test_toggles_show_their_state(setting: str, text: str) -> None:
    on = find(build_menu(state(**{setting: True})), text)
    off = find(build_menu(state(**{setting: False})), text)
    assert (on.checked, off.checked, on.action) == (True, False, ("toggle", setting))


def test_health_still_being_checked_is_grey_not_green() -> None:
    menu = build_menu(state(health=None))
    assert menu[0].text == "Work — checking…"
    assert status_of(state(health=None)) == "unavailable"
    long_name = "N" * 300
    config = Config(vaults=(VaultEntry(long_name, "/v/n"),), active_vault=long_name)
    assert len(build_menu(state(config=config, health=None))[0].text) <= 90


def every_label(items: tuple[Item, ...]) -> list[str]:
    return [label for i in items for label in [i.text, *every_label(i.submenu or ())]]


def test_every_label_at_every_depth_stays_short() -> None:
    long_name = "Ünïcödé " * 40
    config = Config(
        vaults=(VaultEntry(long_name, "/v/x"),), active_vault=long_name, clients=(ClientEntry("c-" + "x" * 60),)
    )
    recent = (event("c-" + "x" * 60, "Deep/" + "Long note name " * 20 + ".md", 5),)
    problems = ({"path": "P.md", "reason": "P.md, line 2: " + "why " * 80},)
    report = healthy(
        status="degraded", problems=problems, subjects=({"subject": "s" * 64, "active": 1, "archived": 0, "events": 0},)
    )
    labels = every_label(build_menu(state(config=config, recent=recent, health=report)))
    assert max(len(label) for label in labels) <= 90


def test_a_vault_written_with_a_tilde_is_the_same_as_obsidians() -> None:
    home = Path.home()
    config = Config(vaults=(VaultEntry("Notes", "~/Notes"),), active_vault="Notes")
    known = (KnownVault("Notes", home / "Notes", 1, True, Path("/x")),)
    vaults = find(build_menu(state(config=config, known_vaults=known)), "Vault").submenu or ()
    assert texts(vaults).count("Notes") == 1 and find(vaults, "Notes").checked is True


def test_actions_this_desktop_cannot_do_are_greyed_out() -> None:
    config = Config(vaults=WORK.vaults, active_vault="Work", clients=(ClientEntry("cursor"),))
    menu = build_menu(state(config=config, can_copy=False, can_pick_folder=False))
    no_dialog = find(menu, "Vault", "Add a folder: vault-recall vault add PATH (copy)")
    assert no_dialog.action == ("copy_add_vault",) and no_dialog.enabled is False  # nothing to copy with either
    assert find(menu, "Clients", "Cursor", "Copy config snippet").enabled is False
    menu = build_menu(state(config=config))
    assert (
        find(menu, "Vault", "Choose folder…").enabled and find(menu, "Clients", "Cursor", "Copy config snippet").enabled
    )


def test_the_http_endpoint_menu_starts_it_and_while_it_runs_shows_copies_and_stops_it() -> None:
    stopped = find(build_menu(state()), "HTTP endpoint").submenu or ()
    assert texts(stopped) == ["Not running", "Start at http://127.0.0.1:27183/mcp"]
    assert stopped[0].enabled is False and stopped[1].action == ("endpoint", "start")
    running = find(build_menu(state(endpoint_url="http://127.0.0.1:27183/mcp")), "HTTP endpoint").submenu or ()
    assert texts(running) == ["Serving at http://127.0.0.1:27183/mcp", "Copy address", "Stop"]
    assert running[1].action == ("copy_text", "http://127.0.0.1:27183/mcp") and running[2].action == (
        "endpoint",
        "stop",
    )
    no_clipboard = find(build_menu(state(endpoint_url="http://x/mcp", can_copy=False)), "HTTP endpoint").submenu or ()
    assert find(no_clipboard, "Copy address").enabled is False


def test_only_clients_that_connect_by_url_offer_a_url_snippet() -> None:
    config = Config(vaults=WORK.vaults, active_vault="Work", clients=(ClientEntry("codex"), ClientEntry("cline")))
    listed = find(build_menu(state(config=config)), "Clients").submenu or ()
    assert "Copy URL snippet (new token)" in texts(find(listed, "Codex CLI").submenu or ())
    assert "Copy URL snippet (new token)" not in texts(find(listed, "Cline").submenu or ())


WITH_CLIENTS = Config(
    vaults=WORK.vaults, active_vault="Work", clients=(ClientEntry("cursor"), ClientEntry("claude-code"))
)


def test_recalls_of_a_note_changed_or_gone_since_are_marked_in_recent_recalls_and_per_client() -> None:
    recent = (
        event("cursor", "Projects/Build decision.md", 7200, 1, revision="r1"),
        event("claude-code", "Projects/Build decision.md", 600, 2, revision="r2"),
        event("zed", "Team/Review.md", 300, 3, revision="r1"),
        event("cursor", "Old.md", 200, 4, revision="r1"),
        event("zed", "Unknown vault.md", 100, 5, revision="r1"),
    )
    now = {("work", "Projects/Build decision.md"): "r2", ("work", "Team/Review.md"): "r1", ("work", "Old.md"): None}
    menu = build_menu(state(config=WITH_CLIENTS, recent=recent, revisions_now=now))
    assert texts(find(menu, "Recent recalls").submenu or ())[:5] == [
        "Zed · Unknown vault · 2 min ago · recall “q”",  # its revision now is not known: no mark
        "Cursor · Old · 3 min ago · recall “q” · gone since",
        "Zed · Review · 5 min ago · recall “q”",
        "Claude Code · Build decision · 10 min ago · recall “q”",  # it was given the note as it is now
        "Cursor · Build decision · 2 h ago · recall “q” · changed since",
    ]
    cursor = find(menu, "Clients", "Cursor").submenu or ()
    assert texts(cursor)[2:4] == ["Recalled: Old · gone since", "Recalled: Build decision · changed since"]
    assert find(cursor, "Recalled: Build decision · changed since").action == (
        "open_note",
        "Projects/Build decision.md",
        "work",
    )
    assert "Recalled: Build decision" in texts(find(menu, "Clients", "Claude Code").submenu or ())
    # Without revisions read now (nothing known), nothing is marked.
    assert not any("since" in t for t in texts(find(build_menu(state(recent=recent)), "Recent recalls").submenu or ()))


def test_a_client_recalling_the_new_version_is_no_longer_marked() -> None:
    recent = (
        event("cursor", "Build.md", 600, 1, revision="r1"),
        event("cursor", "Build.md", 60, 2, revision="r2"),
    )
    menu = build_menu(state(config=WITH_CLIENTS, recent=recent, revisions_now={("work", "Build.md"): "r2"}))
    assert "Recalled: Build" in texts(find(menu, "Clients", "Cursor").submenu or ())
    recalls = texts(find(menu, "Recent recalls").submenu or ())
    assert recalls[:2] == [
        "Cursor · Build · 1 min ago · recall “q”",
        "Cursor · Build · 10 min ago · recall “q” · changed since",
    ]


def test_a_long_note_name_is_shortened_and_keeps_its_mark_whole() -> None:
    path = "Deep/" + "A very long decision name " * 6 + ".md"
    recent = (event("cursor", path, 30, 1, revision="r1"),)
    menu = build_menu(state(config=WITH_CLIENTS, recent=recent, revisions_now={("work", path): "r2"}))
    label = texts(find(menu, "Recent recalls").submenu or ())[0]
    # The title is cut, never the time: the question goes first, then the title's end.
    assert label == "Cursor · A very long decision… · just now · recall “q” · changed since"
    assert len(label) <= 70
    listed = texts(find(menu, "Clients", "Cursor").submenu or ())
    assert listed[2].endswith("… · changed since") and len(listed[2]) <= 70


def test_a_long_title_in_recent_recalls_keeps_the_time_and_a_cut_question() -> None:
    path = "Decisions/" + "Why we moved the build cache to the shared bucket " * 2 + ".md"
    recent = (event("claude-code", path, 300, 1),)
    label = texts(find(build_menu(state(recent=recent)), "Recent recalls").submenu or ())[0]
    assert label == "Claude Code · Why we moved the build cache t… · 5 min ago · recall “q”"
    recent = (event("claude-code", "Build.md", 300, 1),)
    assert texts(find(build_menu(state(recent=recent)), "Recent recalls").submenu or ())[0] == (
        "Claude Code · Build · 5 min ago · recall “q”"
    )
