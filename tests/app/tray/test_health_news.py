"""What the tray says when the vault's health changes (app/tray/health_news.py): the note and
what is wrong with it, not a count."""

from __future__ import annotations

from vault_recall.app.state.health import HealthReport
from vault_recall.app.tray.health_news import health_news


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
        "Projects/Build decision.md — line 2: property 'subject' is defined twice",
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
        "(5 broken notes in all; the tray's Problems menu lists them)",
    ]


def test_repair_unreadable_and_readable_again_are_news_and_nothing_else_is() -> None:
    assert health_news(report("degraded", (BROKEN,)), report(), "Work") == (
        "Work is healthy again",
        "Every note reads again.",
    )
    gone = report("unavailable", reason="vault folder /v/work does not exist")
    assert health_news(report(), gone, "Work") == ("Work cannot be read", "vault folder /v/work does not exist")
    assert health_news(gone, gone, "Work") is None
    assert health_news(gone, report(), "Work") == ("Work can be read again", "Work — 10 notes, 7 records, no problems")
    assert health_news(report(), report(notes=11), "Work") is None
    assert health_news(report("degraded", (BROKEN,)), report("degraded", (BROKEN,)), "Work") is None
