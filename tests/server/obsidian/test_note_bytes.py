"""note_bytes.py describes a note's bytes once; each rule must be what the full reading does,
in text and in bytes alike — the fast paths take their rules from it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vault_recall.server.errors import PropertiesError
from vault_recall.server.obsidian import note_bytes
from vault_recall.server.obsidian.flat_properties import read_flat_properties
from vault_recall.server.obsidian.note import InvalidNote, parse_note
from vault_recall.server.obsidian.properties import parse_yaml_properties, split_properties


@pytest.mark.parametrize("word", sorted(note_bytes.KEYWORDS))
def test_a_keyword_is_the_boolean_or_null_yaml_and_the_flat_reading_make_of_it(word: str) -> None:
    expected = {"x": note_bytes.KEYWORDS[word]}
    assert parse_yaml_properties(f"x: {word}\n") == expected == read_flat_properties(f"x: {word}\n")


@pytest.mark.parametrize("word", ["tRUE", "yes", "No", "on", "nULL", "~x"])
def test_other_spellings_are_text_to_both_readings(word: str) -> None:
    assert parse_yaml_properties(f"x: {word}\n") == {"x": word}
    assert read_flat_properties(f"x: {word}\n") in ({"x": word}, None)


@pytest.mark.parametrize(
    ("text", "block"),
    [
        ("---\nx: 1\n---\nbody", "\nx: 1\n"),
        ("--- \t\nx: 1\n---  \nbody", "\nx: 1\n"),
        ("----\nx: 1\n---\nbody", None),  # four dashes open no block
        ("---x\nx: 1\n---\nbody", None),
    ],
)
def test_the_delimiter_line_is_three_dashes_and_blanks(text: str, block: str | None) -> None:
    assert split_properties(text).yaml_text == block
    assert text.encode().startswith(note_bytes.BLOCK_STARTS) == text.startswith("---")


def test_a_block_closed_only_by_four_dashes_is_never_closed() -> None:
    with pytest.raises(PropertiesError):
        split_properties("---\nx: 1\n----\nbody")


@given(st.lists(st.sampled_from(["a", "é", "\r", "\n", "\r\n", "\u2028", " "]), max_size=30).map("".join))
def test_text_and_its_bytes_break_into_the_same_lines(text: str) -> None:
    assert note_bytes.lf_bytes(text.encode()) == note_bytes.lf_text(text).encode()


@given(st.text(alphabet=st.sampled_from(["a", "z", "0", "-", "_", "A", " ", "é"]), max_size=70))
def test_a_slug_is_a_slug_in_text_and_in_bytes(text: str) -> None:
    as_text = note_bytes.SLUG_TEXT.fullmatch(text) is not None
    assert as_text == (note_bytes.SLUG_BYTES.fullmatch(text.encode()) is not None)


@pytest.mark.parametrize(
    ("data", "subjects"),
    [
        (b"---\nx: [\nsubject: build\n---\n", ("build",)),  # broken: its subject line read loosely
        (b"---\nx: [\nsubject: [build, ci]\n--- x\nsubject: other\n", ("build", "ci")),  # above the loose end
    ],
)
def test_a_broken_note_names_the_subject_its_subject_line_names(data: bytes, subjects: tuple[str, ...]) -> None:
    parsed = parse_note("N.md", data, 0)
    assert isinstance(parsed, InvalidNote) and parsed.mentions_subject and parsed.subjects == subjects


SLUG_PIECES = [
    "a",
    "build",
    "0",
    "1e3",
    "0x1f",
    "yes",
    "null",
    "-",
    "x-1",
    "2026-01-05",
    " ",
    ",",
    "'",
    '"',
    "[",
    "]",
    "#",
]


@given(st.lists(st.sampled_from(SLUG_PIECES), min_size=1, max_size=6).map("".join))
def test_the_slugs_a_value_plainly_names_are_what_yaml_reads_there(value: str) -> None:
    named = note_bytes.slugs_named(value.strip(" ").encode())
    if named is None:
        return  # unsure: the full reading decides
    read = parse_yaml_properties(f"subject: {value}\n")["subject"]
    assert [item.decode() for item in named] == (read if isinstance(read, list) else [read])
