"""Every notice names what happens next and what the person can do: the notifications of the
pause click and of a vault chosen, the health news of a note or a folder, and the Vault menu of
a vault whose folder is gone (app/tray/notices.py, news/vault_health.py, actions/perform.py, menu/tree.py)."""

from __future__ import annotations

from pathlib import Path

from tests.support.menu_walk import find, texts
from vault_recall.app.state.config_store import save_config
from vault_recall.app.state.health import HealthReport
from vault_recall.app.state.obsidian_vaults import KnownVault
from vault_recall.app.tray.actions.perform import ActionContext, perform
from vault_recall.app.tray.menu.items import TrayState
from vault_recall.app.tray.menu.snapshot import gather
from vault_recall.app.tray.menu.tree import build_menu
from vault_recall.app.tray.news.vault_health import health_news, switched_news
from vault_recall.server.config.config_file import Config, VaultEntry, load_config


def report(status: str = "ok", problems: tuple[dict[str, str], ...] = (), **kw: object) -> HealthReport:
    fields: dict[str, object] = {"status": status, "vault": "work", "path": "/v/work", "notes": 10, "records": 7}
    return HealthReport(**(fields | {"problems": problems} | kw))  # type: ignore[arg-type]


BROKEN = {"path": "Build.md", "reason": "Build.md, line 3: property 'tags' is not valid YAML"}
FOLDER = {"path": "Private/", "reason": "folder Private/ cannot be read (permission denied), so its notes are missing"}


def test_an_unreadable_folder_is_not_counted_among_the_broken_notes() -> None:
    _, body = health_news(report("degraded", (BROKEN,)), report("degraded", (BROKEN, FOLDER)), "Work") or ("", "")
    assert (
        body.splitlines()[-1] == "(1 broken note and 1 unreadable folder in all; the tray's Problems menu lists them)"
    )
    summary, _ = health_news(report(), report("degraded", (BROKEN, FOLDER)), "Work") or ("", "")
    assert summary == "Work: 1 note broke and 1 folder cannot be read"


def test_a_broken_note_notice_says_what_clients_get_meanwhile_and_what_to_do() -> None:
    summary, body = health_news(report(), report("degraded", (BROKEN,)), "Work") or ("", "")
    assert summary == "Work: 'Build' is broken"
    assert body.splitlines() == [
        "Build.md — line 3: property 'tags' is not valid YAML",
        "Clients still get the rest of the vault, and are told of this note when it could matter to what they "
        "ask. Fix that line (Problems in the menu opens the note): the tray sees the fix by itself.",
    ]


def test_the_pause_notice_says_how_to_resume() -> None:
    told: list[tuple[str, str]] = []

    def notify(summary: str, body: str = "") -> None:
        told.append((summary, body))

    context = ActionContext(TrayState(config=Config()), notify, lambda _: None)
    perform(("toggle", "paused"), context)
    assert load_config().paused
    ((summary, body),) = told
    assert summary == "Recall is paused"
    assert body == (
        "Every client's calls answer 'unavailable' until you resume: click the icon, then 'Recall is paused: "
        "clients get 'unavailable' — click to resume' at the top of the menu, or run vault-recall resume."
    )


def test_a_vault_chosen_is_told_with_why_the_icon_is_amber_and_what_to_do() -> None:
    empty = report(records=0)
    summary, body = switched_news(empty, "Work")
    assert summary == "Vault Recall now recalls from Work"
    assert body == (
        "Work — 10 notes, 0 records, no problems. The icon is amber: no note is a memory record yet, so clients "
        "have nothing to recall. Add a subject its notes suggest (one click, in the menu), or see 'what is a "
        "record?' there."
    )
    assert (
        switched_news(report(), "Work")[1]
        == "Work — 10 notes, 7 records, no problems. Every client's next call reads it."
    )
    assert "Problems in the menu lists them" in switched_news(report("degraded", (BROKEN,)), "Work")[1]
    gone = switched_news(report("unavailable", reason="vault folder /v/work does not exist"), "Work")[1]
    assert gone.startswith("Vault folder /v/work does not exist. Until it can be read again")


def test_a_vault_whose_folder_is_gone_is_not_listed_as_added_by_hand(tmp_path: Path) -> None:
    here, gone = tmp_path / "Home", tmp_path / "Work"
    here.mkdir()
    save_config(Config(vaults=(VaultEntry("Work", str(gone)), VaultEntry("Home", str(here))), active_vault="Work"))
    state = gather(None)
    assert state.gone_vaults == {"Work"}
    known = (KnownVault("Other", tmp_path / "Other", 0, False, tmp_path / "obsidian.json"),)
    vaults = find(
        build_menu(TrayState(config=state.config, gone_vaults=state.gone_vaults, known_vaults=known)), "Vault"
    )
    listed = texts(vaults.submenu or ())
    assert listed[:5] == [
        "Obsidian's vaults",
        "Other",
        "Added by hand",
        "Home",
        "Folder not found — put it back to use it",
    ]
    work = (vaults.submenu or ())[5]
    assert work.text.startswith("Work (") and work.action == ("use", "Work") and work.checked is True
