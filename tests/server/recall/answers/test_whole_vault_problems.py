"""Across the whole vault, a broken note is a problem of a recall only when it could have been
among the records: when it holds a meaningful word of the query somewhere (its text, its
properties block, its file name) — as search_notes names one only when it holds the phrase.
Before, every broken note of the vault made every recall `degraded`.  And a note whose
properties cannot be read is still a note across the whole vault, ranked as Obsidian shows it
(title and body), unless its block may make it a record (a subject, status or kind key)."""

from __future__ import annotations

from pathlib import Path

from tests.support.vaults import write_vault
from vault_recall.server.recall.answers import reading, recall_records
from vault_recall.server.recall.results import RecallResult
from vault_recall.server.recall.scope import Exposure, Scope

BROKEN = "---\naliases:\n- @kepano\n---\n# Kepano\nMaker of the Minimal theme and of Obsidian Web Clipper.\n"


def whole(vault: Path, query: str | None) -> RecallResult:
    scope = Scope(client="test", vault=vault, exposure=Exposure(mode="vault"))
    return recall_records.recall_context(scope, None, query, budget=65536)


def named(result: RecallResult) -> list[str]:
    return [p["path"] for p in result.get("problems", [])]


def test_a_broken_note_holding_no_word_asked_does_not_degrade_the_recall(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "v",
        {"People/kepano.md": BROKEN, "Dice.md": "# Dice roller\nRoll dice for tabletop games in a note.\n"},
    )
    result = whole(vault, "roll dice for a tabletop game")
    assert result["status"] == "ok" and named(result) == [] and [r["path"] for r in result["records"]] == ["Dice.md"]
    # read_note still tells of it: it is broken, and reading it is asking about it.
    scope = Scope(client="test", vault=vault, exposure=Exposure(mode="vault"))
    assert reading.read_note(scope, "People/kepano")["status"] == "degraded"


def test_a_broken_note_holding_a_word_asked_anywhere_is_named(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "v", {"People/kepano.md": BROKEN, "Themes.md": "# Themes\nMinimal is a theme.\n"})
    for query in ("minimal theme", "clipper", "kepano"):  # in its body, its body again, its file name and alias
        result = whole(vault, query)
        assert result["status"] == "degraded" and named(result) == ["People/kepano.md"], query
    # The property block's text counts: an alias is where a title-like word would be.
    aliased = write_vault(tmp_path / "w", {"K.md": "---\naliases:\n- @stephango\n---\nplain\n", "A.md": "x\n"})
    assert named(whole(aliased, "stephango")) == ["K.md"]


def test_with_no_meaningful_word_every_broken_note_could_be_among_the_records(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "v", {"People/kepano.md": BROKEN, "Dice.md": "# Dice\nRoll them.\n"})
    assert named(whole(vault, None)) == ["People/kepano.md"]  # the newest notes: it could be one
    assert named(whole(vault, "what did we decide?")) == ["People/kepano.md"]  # framing words only


def test_a_misspelt_word_taken_for_one_a_broken_note_holds_names_it(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "v",
        {"People/kepano.md": BROKEN, "Clip.md": "# Web clipper\nThe clipper saves pages.\n"},
    )
    result = whole(vault, "clippper")  # no note holds it; 'clipper' is taken for it
    assert "clippper → clipper" in result["records"][0]["matched"]
    assert named(result) == ["People/kepano.md"]


def test_a_note_whose_properties_cannot_be_read_is_ranked_as_obsidian_shows_it(tmp_path: Path) -> None:
    # obsidian-hub's people pages: `- @kepano` is no YAML, so the page asked for by name was
    # only named among the problems while other notes mentioning the name were returned.
    vault = write_vault(
        tmp_path / "v",
        {"People/kepano.md": BROKEN, "Themes/Flexoki.md": "# Flexoki\nA theme by kepano.\n", "Dice.md": "# Dice\n"},
    )
    result = whole(vault, "kepano")
    assert result["status"] == "degraded" and named(result) == ["People/kepano.md"]
    first = result["records"][0]
    assert first["path"] == "People/kepano.md" and first["matched"]["kepano"] == ["title", "heading", "body"]
    assert first["text"].startswith("# Kepano\nMaker of the Minimal theme") and "@kepano" not in first["text"]
    assert [r["path"] for r in result["records"]] == ["People/kepano.md", "Themes/Flexoki.md"]
    # A recall of the records a client sees takes no note its properties do not make one.
    records = Scope(client="test", vault=vault, exposure=Exposure(mode="records"))
    assert recall_records.recall_context(records, None, "kepano", budget=65536)["records"] == []


def test_a_broken_block_that_may_make_a_record_keeps_the_note_out(tmp_path: Path) -> None:
    # Archived, an event, or another subject's record: which, its block does not say.
    blocks = {
        "Archived.md": "---\nstatus: archived\naliases:\n- @plan\n---\nthe old launch plan\n",
        "Event.md": "---\n{kind: event, aliases: [@plan]}\n---\nthe launch plan meeting\n",
        "Other.md": "---\nsubject: ops\naliases:\n- @plan\n---\nthe ops launch plan\n",
        "Fine.md": "---\naliases:\n- @plan\n---\nthe launch plan we kept\n",
    }
    vault = write_vault(tmp_path / "v", blocks)
    result = whole(vault, "launch plan")
    assert [r["path"] for r in result["records"]] == ["Fine.md"]
    assert sorted(named(result)) == sorted(blocks)


def test_a_note_that_is_no_utf8_text_is_only_named(tmp_path: Path) -> None:
    # UTF-16 read as UTF-8 is NULs and noise: nothing to rank or return, only a problem.
    vault = write_vault(
        tmp_path / "v", {"Wide.md": "---\naliases: [a]\n---\nthe launch plan\n".encode("utf-16"), "A.md": "launch\n"}
    )
    result = whole(vault, None)
    assert [r["path"] for r in result["records"]] == ["A.md"] and named(result) == ["Wide.md"]
