"""What the tray says when the vault's health changes (app/tray/news/vault_health.py): the note and
what is wrong with it, not a count."""

from __future__ import annotations

from vault_recall.app.state.health import HealthReport
from vault_recall.app.tray.news.vault_health import NOTE_NEXT, NOTES_NEXT, health_news


def report(status: str = "ok", problems: tuple[dict[str, str], ...] = (), **kw: object) -> HealthReport:
    fields: dict[str, object] = {"status": status, "vault": "work", "path": "/v/work", "notes": 10, "records": 7}
    return HealthReport(**(fields | {"problems": problems} | kw))  # type: ignore[arg-type]


BROKEN = {
    "path": "Projects/Build decision.md",
    "reason": "Projects/Build decision.md, line 2: property 'subject' is defined twice",
}


def test_a_newly_broken_note_is_named_with_its_line_and_reason() -> None:
    news = health_news(report(), report("degraded", (BROKEN,)), "Work")
    assert news == (
        "Work: 'Build decision' is broken",
        "Projects/Build decision.md — line 2: property 'subject' is defined twice\n" + NOTE_NEXT,
    )


def test_several_at_once_are_listed_a_few_with_the_count_of_the_rest() -> None:
    many = tuple({"path": f"N{i}.md", "reason": f"N{i}.md, line 1: bad"} for i in range(5))
    summary, body = health_news(report("degraded", many[:1]), report("degraded", many), "Work") or ("", "")
    assert summary == "Work: 4 notes broke"
    assert body.splitlines() == [
        "N1.md — line 1: bad",
        "N2.md — line 1: bad",
        "N3.md — line 1: bad",
        "… and 1 more",
        NOTES_NEXT,
        "(5 broken notes in all; the tray's Problems menu lists them)",
    ]


def test_repair_unreadable_and_readable_again_are_news_and_nothing_else_is() -> None:
    assert health_news(report("degraded", (BROKEN,)), report(), "Work") == (
        "Work is healthy again",
        "Every note reads again.",
    )
    gone = report("unavailable", reason="vault folder /v/work does not exist")
    assert health_news(report(), gone, "Work") == (
        "Work cannot be read",
        "Vault folder /v/work does not exist. Until it can be read again, clients get 'unavailable'. Put the "
        "folder back (or plug its disk in), or choose another vault under Vault.",
    )
    assert health_news(gone, gone, "Work") is None
    assert health_news(gone, report(), "Work") == ("Work can be read again", "Work — 10 notes, 7 records, no problems")
    assert health_news(report(), report(notes=11), "Work") is None
    assert health_news(report("degraded", (BROKEN,)), report("degraded", (BROKEN,)), "Work") is None


def test_a_vault_gone_is_one_notice_that_counts_the_recalled_notes_it_took() -> None:
    gone = report("unavailable", reason="vault folder /v/work does not exist")
    summary, body = health_news(report(), gone, "Work", gone_recalled=4) or ("", "")
    assert summary == "Work cannot be read"
    assert body.startswith(
        "Vault folder /v/work does not exist. It took with it the 4 notes clients recalled in the last day."
    )
    assert "1 note clients" in (health_news(report(), gone, "Work", gone_recalled=1) or ("", ""))[1]


def test_a_folder_that_cannot_be_read_is_named_by_its_path_with_what_to_do() -> None:
    folder = {
        "path": "Private/Salaries/",
        "reason": "folder Private/Salaries/ cannot be read (permission denied), so its notes are missing",
    }
    summary, body = health_news(report(), report("degraded", (folder,)), "Work") or ("", "")
    assert summary == "Work: the folder Private/Salaries/ cannot be read"
    assert body == (
        "Folder Private/Salaries/ cannot be read (permission denied), so its notes are missing. Make it readable "
        "for you (its permissions, in your file manager), or move its notes to a folder you can read."
    )
    assert "''" not in summary + body
