"""What counts against a record in `weak_match`: words joined by a hyphen are one unit, the
general words a question is phrased with (per language) are not required, a word most of the
records hold is not required either, and a record holding nearly every word answers when named
after one or lacking only commoner words (record_terms.satisfies) — while a word no record holds still
marks the answer."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.support.vaults import record, write_vault
from vault_recall.server.recall.answers import recall_records
from vault_recall.server.recall.ranking.bm25 import Evidence, holding
from vault_recall.server.recall.ranking.languages import SUPPORTED, language
from vault_recall.server.recall.ranking.query_terms import Query, parse_query
from vault_recall.server.recall.ranking.record_terms import NEARLY_ALL, satisfies
from vault_recall.server.recall.ranking.relevance import COMMON_AMONG_AT_LEAST, common_terms
from vault_recall.server.recall.results import RecallResult
from vault_recall.server.recall.scope import Exposure, Scope


def recalled(vault: Path, subject: str, query: str, languages: tuple[str, ...] = ("english",)) -> RecallResult:
    scope = Scope(client="test", vault=vault, exposure=Exposure(), languages=languages)
    return recall_records.recall_context(scope, subject, query, budget=65536)


def first(result: RecallResult) -> dict[str, Any]:
    return dict(result["records"][0])


# --- words joined by a hyphen ---------------------------------------------------------------


def test_a_hyphenated_word_is_one_term_found_written_apart_joined_or_hyphenated(tmp_path: Path) -> None:
    query = parse_query("Wi-Fi password", ("english",))
    assert [(t.word, t.required) for t in query.terms] == [("wi-fi", True), ("password", True)]
    vault = write_vault(
        tmp_path / "v",
        {
            "Joined.md": record("office", "The WiFi password is on the fridge."),
            "Apart.md": record("office", "Guest wi fi: ask reception."),
            "Hyphen.md": record("office", "The Wi-Fi password changes monthly."),
            "Other.md": record("office", "Printer paper is in the cupboard."),
        },
    )
    result = recalled(vault, "office", "Wi-Fi password")
    assert {r["path"] for r in result["records"]} == {"Joined.md", "Apart.md", "Hyphen.md"}
    joined = next(r for r in result["records"] if r["path"] == "Joined.md")
    assert joined["matched"] == {"wi-fi": ["body"], "password": ["body"]} and joined["coverage"] == 1.0
    assert result["weak_match"] is False


def test_a_hyphenated_word_is_not_two_words_that_must_share_a_paragraph(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "v", {"Mail.md": record("office", "Send e-mail from the shared account.\n")})
    result = recalled(vault, "office", "e-mail account")
    assert first(result)["coverage"] == 1.0 and result["weak_match"] is False
    # Before, 'e' and 'mail' were two words; a note holding only 'mail' does not hold 'e-mail':
    # holding a part of it, it is the closest there is, marked weak.
    other = write_vault(tmp_path / "w", {"Post.md": record("office", "The mail room closes at five.")})
    closest = recalled(other, "office", "e-mail")
    assert first(closest)["coverage"] == 0.0 and closest["weak_match"] is True


def test_a_hyphenated_word_s_parts_rank_but_are_not_required() -> None:
    query = parse_query("spreadsheet-like views", ("english",))
    assert [(t.word, t.required, t.general) for t in query.terms] == [
        ("spreadsheet-like", True, False),
        ("spreadsheet", False, True),
        ("like", False, True),
        ("views", True, False),
    ]
    # Parts of one or two letters do not rank on their own; a run holding a stop word is words.
    assert [t.word for t in parse_query("Wi-Fi e-mail", ("english",)).terms] == ["wi-fi", "e-mail", "mail"]
    assert [t.word for t in parse_query("add-on", ("english",)).terms] == ["add"]


def test_an_abbreviation_spelled_with_a_hyphen_keeps_its_short_form() -> None:
    term = parse_query("pull-request reviews", ("english",)).terms[0]
    assert term.word == "pull-request" and ("english", "pr") in term.stems


# --- general words --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "languages", "general"),
    [
        ("How do I keep my notes backed up?", ("english",), {"keep"}),
        # How often, as German 'oft' and French 'souvent' were already.
        ("How often do we rotate the keys?", ("english",), {"often"}),
        # The common verbs a question is phrased with, asked of a decision.
        ("Why did we leave AWS?", ("english",), {"leave"}),
        ("Where are backups stored?", ("english",), {"stored"}),
        ("How far back can we restore?", ("english",), {"far", "back"}),
        ("Dürfen wir Änderungen an der Konsole von Hand machen?", ("english",), {"durfen", "machen"}),
        ("O que fazemos quando o servidor cai?", ("english",), {"fazemos"}),
        ("¿Qué hago si llega material roto?", ("english",), {"hago"}),
        ("Comment peut-on faire une sauvegarde ?", ("english",), {"peut"}),  # "faire": a stop word
    ],
)
def test_general_words_rank_but_are_not_required(query: str, languages: tuple[str, ...], general: set[str]) -> None:
    parsed = parse_query(query, languages)
    assert {t.word for t in parsed.terms if t.general} == general
    assert all(not t.required for t in parsed.terms if t.general)
    assert any(t.required for t in parsed.terms)


def test_every_language_has_general_words_none_of_them_a_stop_word() -> None:
    for name in SUPPORTED:
        chosen = language(name)
        assert chosen.general and not chosen.general & chosen.stop, name


def test_a_record_lacking_only_a_general_word_is_not_weak(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "v",
        {
            "Backup.md": record("notes", "Backups of the vault run nightly to the NAS."),
            "Other.md": record("notes", "x"),
        },
    )
    result = recalled(vault, "notes", "how do I keep the vault backups?")
    assert first(result)["path"] == "Backup.md" and first(result)["coverage"] == 1.0
    assert result["weak_match"] is False
    # A topic word the record lacks still marks it.
    assert recalled(vault, "notes", "how do I keep the vault backups encrypted?")["weak_match"] is True


def test_how_often_asked_of_a_subject_finds_its_records_not_an_empty_answer(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "v",
        {
            "Release cadence.md": record("release-process", "# Release cadence\nWe release every two weeks."),
            "Release signing.md": record("release-process", "Builds are signed by the CI key."),
        },
    )
    # 'release' is the subject's own word; 'often' was the one meaningful word, and no record
    # held it: the answer was empty.  The record named after the release comes first.
    result = recalled(vault, "release-process", "how often do we release?")
    assert first(result)["path"] == "Release cadence.md" and result["weak_match"] is False


def test_a_german_question_s_verbs_do_not_count_against_the_record(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "v", {"Konsole.md": record("ops", "Änderungen an der Hetzner-Konsole nur per Terraform.")}
    )
    result = recalled(vault, "ops", "Dürfen wir Änderungen an der Hetzner-Konsole machen?")
    assert first(result)["coverage"] == 1.0 and result["weak_match"] is False


# --- words most records hold ------------------------------------------------------------------


def evidence(*held: bool) -> Evidence:
    return Evidence.of({"body": [1 if h else 0 for h in held]}, 10)


def test_a_word_more_than_half_of_the_records_hold_is_common() -> None:
    records = [evidence(True, False)] * 3 + [evidence(False, True)] * 2
    held_by = holding(records, 2)
    assert held_by == (3, 2)
    assert common_terms(held_by, len(records), (0, 1)) == frozenset({0})  # 3 of 5 hold term 0, 2 of 5 term 1
    few = records[: COMMON_AMONG_AT_LEAST - 1]
    assert common_terms(holding(few, 2), len(few), (0, 1)) == frozenset()  # too few to tell
    assert common_terms(held_by, len(records), (1,)) == frozenset()


def test_a_record_lacking_only_a_word_most_records_hold_is_not_weak(tmp_path: Path) -> None:
    notes = {f"Sync {i}.md": record("sync", f"Sync topic {i}: devices and vaults.") for i in range(4)}
    notes["Gift.md"] = record("sync", "A gift card pays for a year.")
    vault = write_vault(tmp_path / "v", notes)
    result = recalled(vault, "sync", "gift card for devices")  # 'devices': 4 of 5 records
    assert first(result)["path"] == "Gift.md" and first(result)["coverage"] == 1.0
    assert result["weak_match"] is False
    # A word no record holds is never common: the answer stays marked.
    assert recalled(vault, "sync", "gift card for excalidraw")["weak_match"] is True


# --- a record holding nearly every word (record_terms.satisfies) -----------------------------------------


def counted_query(text: str, held_by: tuple[int, ...]) -> Query:
    """`text` parsed, every term required, as a pass that counted `held_by` records per term leaves it."""
    query = parse_query(text, ("english",))
    assert all(term.required for term in query.terms), [t.word for t in query.terms]
    return replace(query, held_by=held_by)


def test_a_record_holding_every_counted_word_answers_and_one_holding_too_few_does_not() -> None:
    query = counted_query("gift card yearly refund", (1, 2, 2, 3))
    assert satisfies({0, 1, 2, 3}, set(), query)
    # Half, or two of three, is never enough: what it lacks may be what the question is about.
    assert not satisfies({0, 1}, {0, 1}, query)
    three = counted_query("gpu runners budget", (0, 1, 2))
    assert not satisfies({1, 2}, {1}, three)
    assert NEARLY_ALL > 2 / 3


def test_nearly_all_words_answer_when_one_held_is_in_the_record_s_name() -> None:
    query = counted_query("gift card yearly refund", (1, 2, 2, 0))  # 'refund': no record holds it
    assert satisfies({0, 1, 2}, {1}, query)
    assert not satisfies({0, 1, 2}, set(), query)
    assert not satisfies({0, 1, 2}, {3}, query)  # a name holding only a word it lacks is no name of it


def test_nearly_all_words_answer_when_what_is_lacking_is_commoner_than_what_is_held() -> None:
    query = counted_query("gift card yearly refund", (1, 2, 2, 3))
    assert satisfies({0, 1, 2}, set(), query)  # 'refund' (3 records) is commoner than 'gift' (1)
    assert not satisfies({1, 2, 3}, set(), query)  # lacking 'gift', the rarest: not the record meant
    # A word no record holds is never commoner than one held: still marked.
    assert not satisfies({0, 1, 2}, set(), counted_query("gift card yearly refund", (1, 2, 2, 0)))
    # Without counts (no pass ranked the records) nothing says a word is common.
    assert not satisfies({0, 1, 2}, set(), counted_query("gift card yearly refund", ()))


def plan_vault(root: Path) -> Path:
    return write_vault(
        root,
        {
            "Plans.md": record("shop", "A gift card pays for a yearly plan."),
            "Returns.md": record("shop", "A refund takes five days."),
            "Vouchers.md": record("shop", "Vouchers are never sold; a refund is refused."),
            "Shipping.md": record("shop", "Parcels leave on Mondays."),
            "Stock.md": record("shop", "Stock is counted on Fridays."),
        },
    )


def test_an_answerable_query_whose_missing_word_other_records_hold_is_not_weak(tmp_path: Path) -> None:
    result = recalled(plan_vault(tmp_path / "v"), "shop", "gift card yearly refund")
    assert first(result)["path"] == "Plans.md" and first(result)["coverage"] == 0.75
    assert result["weak_match"] is False


def test_a_query_with_a_word_no_note_holds_is_weak(tmp_path: Path) -> None:
    vault = plan_vault(tmp_path / "v")
    result = recalled(vault, "shop", "gift card yearly hovercraft")
    assert first(result)["path"] == "Plans.md" and first(result)["coverage"] == 0.75
    assert result["weak_match"] is True
    # Named after a word it holds, the same record answers: it is about that word.
    named = write_vault(tmp_path / "w", {"Gift card.md": record("shop", "A gift card pays for a yearly plan.")})
    assert recalled(named, "shop", "gift card yearly hovercraft")["weak_match"] is False
    # Two words of three, even named, are not enough.
    assert recalled(named, "shop", "gift card hovercraft")["weak_match"] is True


def test_a_misspelt_word_s_correction_counts_as_the_word_asked(tmp_path: Path) -> None:
    named = write_vault(
        tmp_path / "v",
        {
            "Gift card.md": record("shop", "A gift card pays for a yearly plan."),
            "Returns.md": record("shop", "A refund takes five days."),
        },
    )
    result = recalled(named, "shop", "gift card yearly refnd")  # 'refnd' taken for 'refund'
    assert first(result)["path"] == "Gift card.md" and "refnd → refund" in str(result)
    # Nearly every word, named after one: answered, as "gift card yearly refund" is.
    spelt_right = recalled(named, "shop", "gift card yearly refund")
    assert first(result)["coverage"] == first(spelt_right)["coverage"] == 0.75
    assert result["weak_match"] is spelt_right["weak_match"] is False
