"""A misspelt query word finds the nearest word the records hold, and says so in `matched`."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from tests.support.vaults import record, write_vault
from vault_recall.server.recall.answers import recall_records
from vault_recall.server.recall.ranking.languages import language
from vault_recall.server.recall.ranking.query_terms import StemMemo
from vault_recall.server.recall.ranking.spelling import (
    allowed_distance,
    edit_distance,
    gates,
    near_words,
    nearest,
    related,
    same_word_spelt_otherwise,
)
from vault_recall.server.recall.ranking.words import fold_for_ranking, folded_words
from vault_recall.server.recall.scope import Exposure, Scope


def test_edit_distance_counts_letters_added_dropped_or_changed() -> None:
    assert edit_distance("pestisides", "pesticides", 2) == 1
    assert edit_distance("recieve", "receive", 2) == 2  # two letters swapped: two changes
    assert edit_distance("cat", "cart", 1) == 1 and edit_distance("cart", "cat", 1) == 1
    assert edit_distance("kitten", "sitting", 5) == 3
    assert edit_distance("kitten", "sitting", 2) == 3  # past the limit: limit + 1


@given(st.text("abc", max_size=7), st.text("abc", max_size=7))
def test_edit_distance_is_symmetric_and_zero_only_for_the_same_word(a: str, b: str) -> None:
    assert edit_distance(a, b, 14) == edit_distance(b, a, 14)
    assert (edit_distance(a, b, 14) == 0) == (a == b)


def test_short_words_and_words_with_digits_are_never_corrected_long_ones_by_two_edits() -> None:
    assert [allowed_distance(w) for w in ("cat", "pest", "pesticid", "k8s2", "wi-fi")] == [0, 1, 2, 0, 0]


def test_the_nearest_word_ties_go_to_the_word_more_records_hold_then_the_alphabet() -> None:
    vocabulary = Counter({"pesticides": 1, "pesticide": 3, "residues": 5})
    assert nearest("pestisides", vocabulary) == "pesticides"  # 1 edit beats 2
    assert nearest("pestiside", vocabulary) == "pesticide"
    assert nearest("colour", Counter({"color": 1, "colours": 2})) == "colours"
    assert nearest("colour", Counter({"color": 2, "colors": 2})) == "color"
    assert nearest("fungicide", vocabulary) is None  # 3 edits from 'pesticide'


def test_only_words_as_long_as_a_correction_can_be_are_gathered() -> None:
    gathered = near_words(["the pesticides on crops", "pesticides x1x1x1x1x1"], ["pestisides"])
    assert gathered == Counter({"pesticides": 2})
    # And words starting as one of a long word's family must, whatever their length.
    family = near_words(["registered regional registers", "register x"], ["registration"])
    assert family == Counter({"registered": 1, "registers": 1, "register": 1})


def english_stems(word: str) -> frozenset[tuple[str, str]]:
    return StemMemo((language("english"),)).stems(word)


def test_a_word_of_the_same_family_the_stemmer_parts_is_related() -> None:
    # Snowball: registration → registr, registered → regist; specification → specif, specify → specifi.
    assert related("registration", Counter({"registered": 1, "regional": 9}), english_stems) == "registered"
    assert related("specification", Counter({"specify": 2}), english_stems) == "specify"
    # The longest shared stem wins, then the word more records hold.
    assert related("registration", Counter({"registered": 5, "registrar": 1}), english_stems) == "registrar"
    assert related("registration", Counter({"registered": 1, "register": 3}), english_stems) == "register"


def test_a_stem_shorter_than_six_letters_relates_nothing() -> None:
    # integer → integ begins integration → integr, but five letters join unrelated words.
    assert related("integration", Counter({"integer": 4}), english_stems) is None
    assert related("notification", Counter({"notify": 1}), english_stems) is None  # notif: five
    assert related("register", Counter({"registration": 1}), english_stems) == "registration"
    assert related("k8s-cluster", Counter({"k8s-clusters": 1}), english_stems) is None


def test_a_word_of_the_same_family_finds_the_record_and_says_so(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "v",
        {
            "Samples.md": record("samples", "# Samples are registered in eLabFTW\nBefore freezing."),
            "Freezers.md": record("samples", "Freezers are checked weekly."),
        },
    )
    scope = Scope(client="test", vault=vault, exposure=Exposure())
    # 'sample' is the subject's own word; 'registration' no record holds as the stemmer sees it.
    result = recall_records.recall_context(scope, "samples", "sample registration")
    assert [r["path"] for r in result["records"]] == ["Samples.md"]
    assert "registration → registered" in result["records"][0]["matched"]
    # 'registration' is a word English knows: its relative may mean something else, so it is a
    # guess — held, it counts toward coverage, but the answer is marked.
    assert result["records"][0]["coverage"] == 1.0 and result["weak_match"] is True


def test_a_misspelt_word_finds_the_record_and_says_what_it_was_taken_for(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "v",
        {
            "Spray.md": record("farm", "No pesticides on the east field after May."),
            "Water.md": record("farm", "Irrigation runs at dawn."),
        },
    )
    scope = Scope(client="test", vault=vault, exposure=Exposure())
    result = recall_records.recall_context(scope, "farm", "pestisides east field")
    assert [r["path"] for r in result["records"]] == ["Spray.md"]
    assert result["records"][0]["matched"] == {"pestisides → pesticides": ["body"], "east": ["body"], "field": ["body"]}
    # 'pestisides' is no word English knows: its correction is the word asked, held like it.
    assert result["records"][0]["coverage"] == 1.0 and result["weak_match"] is False
    # A word spelt right is never replaced, and one too far from any stays as asked.
    assert "pesticides" in recall_records.recall_context(scope, "farm", "pesticides")["records"][0]["matched"]
    far = recall_records.recall_context(scope, "farm", "fungicides")
    assert far["records"] == [] and far["current_records"] == 2


def test_british_and_american_spellings_of_one_word_are_the_same_word() -> None:
    same = [
        ("pseudonymized", "pseudonymised"),
        ("organization", "organisation"),
        ("analyze", "analyse"),
        ("color", "colour"),
        ("behaviors", "behaviours"),
        ("center", "centre"),
        ("traveled", "travelled"),
        ("catalog", "catalogue"),
        ("license", "licence"),
    ]
    assert [same_word_spelt_otherwise(a, b) for a, b in same] == [True] * len(same)
    assert [same_word_spelt_otherwise(b, a) for a, b in same] == [True] * len(same)
    # Near words that are other words: 'four' is not 'for', 'cost' not 'most', a word not itself.
    others = [("four", "for"), ("cost", "most"), ("poll", "pol"), ("sized", "sizes"), ("color", "color")]
    assert [same_word_spelt_otherwise(a, b) for a, b in others] == [False] * len(others)


def test_the_other_spelling_of_the_word_asked_finds_the_record_unmarked(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "v",
        {
            "Clinical.md": record("data", "# Clinical data\nOnly pseudonymised clinical data leaves the hospital."),
            "Imaging.md": record("data", "Imaging data stays on the scanner's share."),
        },
    )
    scope = Scope(client="test", vault=vault, exposure=Exposure())
    result = recall_records.recall_context(scope, "data", "pseudonymized clinical data")
    assert [r["path"] for r in result["records"]] == ["Clinical.md"]
    assert "pseudonymized → pseudonymised" in result["records"][0]["matched"]
    # The word asked, spelt the British way: no guess, so the answer is not marked weak.
    assert result["weak_match"] is False
    # A misspelling of it is corrected, and counts as the word asked.
    guessed = recall_records.recall_context(scope, "data", "pseudonymiced clinical data")
    assert "pseudonymiced → pseudonymised" in guessed["records"][0]["matched"]
    assert guessed["records"][0]["coverage"] == 1.0 and guessed["weak_match"] is False


def test_a_word_the_language_knows_is_never_taken_for_another(tmp_path: Path) -> None:
    vault = write_vault(
        tmp_path / "v",
        {
            "Daily.md": record("notes", "Each instance of the template is a daily note."),
            "Format.md": record("notes", "Bold text uses two asterisks."),
            "Office.md": record("notes", "The secretary keeps the calendar."),
            "Betrieb.md": record("notes", "Die Plattform läuft in Frankfurt."),
        },
    )
    scope = Scope(client="test", vault=vault, exposure=Exposure())
    # 'insurance' is one letter from 'instance', 'bolo' from 'bold': both words English knows.
    for query in ("insurance", "bolo", "receita de bolo"):
        result = recall_records.recall_context(scope, "notes", query)
        assert "→" not in str(result) and result["weak_match"] is True
    # Its relative the stemmer parts is a guess: found and shown, held toward coverage, but marked.
    secret = recall_records.recall_context(scope, "notes", "secret")
    assert secret["records"][0]["matched"] == {"secret → secretary": ["body"]}
    assert secret["records"][0]["coverage"] == 1.0 and secret["weak_match"] is True
    # Nor for a word it does not know but the vault holds, a guess too: the German 'Plattform'.
    platform = recall_records.recall_context(scope, "notes", "platform")
    assert platform["records"][0]["matched"] == {"platform → plattform": ["body"]}
    assert platform["weak_match"] is True
    # A word no language of the call knows is corrected ('calender' is one: a pressing machine).
    fixed = recall_records.recall_context(scope, "notes", "calandar")
    assert fixed["records"][0]["matched"] == {"calandar → calendar": ["body"]} and fixed["weak_match"] is False


@given(
    word=st.text(alphabet="abcdefgh", min_size=4, max_size=12),
    edits=st.lists(
        st.tuples(st.integers(0, 20), st.sampled_from("abcdefghxyz"), st.sampled_from(["add", "drop", "change"])),
        max_size=2,
    ),
)
def test_a_word_a_correction_could_be_holds_one_of_its_gates(word: str, edits: list[tuple[int, str, str]]) -> None:
    # Any word within the allowed edits of the word asked holds one of its gates: so a record
    # holding none can be skipped when the records' words are gathered.
    other = word
    for at, letter, kind in edits:
        at %= len(other) + 1
        other = {
            "add": other[:at] + letter + other[at:],
            "drop": other[:at] + other[at + 1 :],
            "change": other[:at] + letter + other[at + 1 :],
        }[kind]
    most = allowed_distance(word)
    if other != word and edit_distance(word, other, most) <= most:
        assert any(gate in other for gate in gates(word))
    stems = StemMemo((language("english"),)).stems
    if related(word, Counter({other: 1}), stems) is not None:
        assert any(gate in other for gate in gates(word))
        assert any(gate in other for gate in gates(word))


def test_the_other_spelling_of_a_known_word_begins_as_it_does() -> None:
    for american, british in (
        ("color", "colour"),
        ("center", "centre"),
        ("catalog", "catalogue"),
        ("analyze", "analyse"),
    ):
        assert same_word_spelt_otherwise(american, british)
        assert any(gate in british for gate in gates(american))
        assert any(gate in american for gate in gates(british))


@example(texts=["the xkanbam, akanban_b kanbams; café-kanban 项目kanbam ﬁkanbam", "bambi É kanbam"], words=["kanbam"])
@given(
    texts=st.lists(st.text(alphabet="abcdekanbmé É_-1 \n项目ß\u0301ﬁ", max_size=60), max_size=4),
    words=st.lists(st.sampled_from(["kanbam", "abcdekan", "bambi", "kanbanized", "deaf"]), min_size=1, max_size=2),
)
def test_the_words_gathered_are_those_near_that_hold_a_gate(texts: list[str], words: list[str]) -> None:
    # Found where a gate is written: the same words, held by as many records, as splitting every
    # word — of those holding a gate, the only ones a correction is taken from.
    every = every_word_near([folded_words(text) for text in texts], words)
    wanted = {gate for word in words for gate in gates(word)}
    assert near_words([fold_for_ranking(text) for text in texts], words) == Counter(
        {word: held for word, held in every.items() if any(gate in word for gate in wanted)}
    )


def every_word_near(texts: list[list[str]], words: list[str]) -> Counter[str]:
    """What near_words gathered before it looked only where a gate is written: every word of
    each record's words as long as a correction can be, or starting as one of its family must."""
    lengths = {
        n for word in words if (most := allowed_distance(word)) for n in range(len(word) - most, len(word) + most + 1)
    }
    starts = {word[:6] for word in words if len(word) >= 6 and word.isalpha()}
    counted: Counter[str] = Counter()
    for record_words in texts:
        counted.update({w for w in set(record_words) if (len(w) in lengths or w[:6] in starts) and w.isalpha()})
    return counted
