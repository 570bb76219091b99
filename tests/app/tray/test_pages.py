"""The pages the tray opens (app/tray/actions/pages.py): help says what a record is, the activity page
lists every call with what it returned and escapes what clients sent, pages are private."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.support.posix import assert_mode
from vault_recall.app.tray.actions.pages import activity_page, help_page, write_page
from vault_recall.server.activity.event_rows import EventRow, OtherStatus
from vault_recall.server.activity.events import EventStatus


def test_help_explains_records_with_an_example_and_the_command_to_add_a_vault() -> None:
    html = help_page("1.2.3", "/opt/vr/bin/vault-recall", Path("/c/config.json"), Path("/s/activity.sqlite3"))
    assert 'id="records"' in html and "subject: build-system" in html and "0 records" in html
    assert "/opt/vr/bin/vault-recall vault add ~/path/to/your/vault" in html
    assert "/c/config.json" in html and "Vault Recall 1.2.3" in html


def test_help_on_records_names_both_ways_properties_in_a_note_or_rules_in_our_config() -> None:
    html = help_page("1.2.3", "/opt/vr/bin/vault-recall", Path("/c/config.json"), Path("/s/activity.sqlite3"))
    records = html[html.index('id="records"') : html.index('id="vault"')]
    assert "A rule in Vault Recall's config" in records and "Properties in the note" in records
    assert "Nothing in your\nvault is changed" in records
    assert "/opt/vr/bin/vault-recall subject add projects --folder Projects" in records
    assert "/opt/vr/bin/vault-recall subject remove projects" in records
    assert "Subjects from rules" in records  # where the tray lists them


def event(n: int, query: str | None, error: str | None = None) -> EventRow:
    return EventRow(
        id=n,
        ts=1_800_000_000.0 + n,
        client="cursor",
        client_name=None,
        tool="recall_context",
        vault="work",
        subject="build-system",
        query=query,
        status="unavailable" if error else "ok",
        omitted=0,
        duration_ms=1.0,
        error=error,
        returned=("Build decision.md",),
        revisions=("ab" * 32,),
    )


def test_the_activity_page_lists_calls_with_notes_and_revisions_and_escapes_what_clients_sent() -> None:
    html = activity_page(
        [event(2, "<script>alert(1)</script>"), event(1, None)], 5, {("work", "Build decision.md"): "cd" * 32}, True
    )
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "Build decision.md" in html and "@abababababab" in html and "(changed since)" in html
    assert "The 2 newest of 5 calls kept." in html
    assert "not kept" in activity_page([event(1, None)], 1, {}, False)
    assert "No activity yet" in activity_page([], 0, {}, True)


def test_the_activity_page_shows_a_status_as_written_and_marks_only_an_unreadable_vault() -> None:
    def row(status: EventStatus | OtherStatus | None) -> str:
        html = activity_page([replace(event(1, "q"), status=status)], 1, {}, True)
        return html[html.index("<tr><td>") :]

    assert '<td class="bad">unavailable</td>' in row("unavailable")
    assert "<td>degraded</td>" in row("degraded") and "<td></td><td>Build decision.md" in row(None)
    assert "<td>a &lt;new&gt; word</td>" in row(OtherStatus("a <new> word"))  # another version's


def test_a_page_is_written_for_the_person_only(tmp_path: Path) -> None:
    path = write_page("help", "<p>x</p>", tmp_path)
    assert path == tmp_path / "pages/help.html" and path.read_text(encoding="utf-8") == "<p>x</p>"
    assert_mode(path, 0o600)
    assert_mode(path.parent, 0o700)
