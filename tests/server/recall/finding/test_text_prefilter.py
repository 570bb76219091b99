"""The byte tests search_notes and get_backlinks run before parsing a note must keep every note
the exact checks would keep: generated notes full of case, Unicode-form, encoding and link
tricks, checked against the full reading of each note."""

from __future__ import annotations

import re
import sys
import unicodedata
from urllib.parse import quote

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from vault_recall.server.obsidian.note import InvalidNote, parse_note
from vault_recall.server.obsidian.resolve import NameIndex, fold
from vault_recall.server.recall.answers.backlinks import could_link, links_to
from vault_recall.server.recall.answers.search import could_hold, searched_text
from vault_recall.server.recall.finding import text_prefilter
from vault_recall.server.recall.finding.scan import as_seen
from vault_recall.server.recall.finding.text_prefilter import (
    CASE_ESCAPES,
    FOLD_ESCAPES,
    Phrase,
    name_filter,
    phrase_filter,
)


def test_only_i_k_and_s_match_characters_outside_ascii_when_case_is_ignored() -> None:
    # The phrase byte test relies on this table: any ASCII character re.IGNORECASE matches
    # with a non-ASCII one must be in it.
    any_ascii = re.compile(r"[\x00-\x7f]", re.IGNORECASE)
    matched: set[str] = set()
    for code in range(0x80, sys.maxunicode + 1):
        char = chr(code)
        if any_ascii.fullmatch(char):
            matched.update(a for a in map(chr, range(128)) if re.fullmatch(re.escape(a), char, re.IGNORECASE))
    assert matched == set("iIkKsS")
    for char, letter in CASE_ESCAPES.items():
        assert re.fullmatch(letter, char, re.IGNORECASE)
    assert {a for char in CASE_ESCAPES for a in "iIkKsS" if re.fullmatch(a, char, re.IGNORECASE)} == matched


def test_the_fold_escapes_are_every_character_outside_ascii_that_folds_to_ascii() -> None:
    found = {}
    for code in range(0x80, sys.maxunicode + 1):
        if 0xD800 <= code <= 0xDFFF:
            continue
        folded = fold(chr(code))
        if not any(c.isascii() for c in folded):
            continue
        found[chr(code)] = folded
    assert found == FOLD_ESCAPES


# Characters that make matching hard: case pairs outside ASCII, letters that fold to ASCII,
# combining marks, line breaks of every kind, a BOM, code and link syntax, CJK letters (a phrase
# inside a run of them) and half-width Katakana with its voiced mark.
TRICKY_CHARS = (
    "aAbBiIkKsSzZ \u0130\u0131\u212a\u017f\u00df\u1e9e\u00e9\u00c9\u0301\u0338\ufb01\r\n\t\ufeff`[]()<>|#%\\/.-"
    "预算ガｶﾞ예"
)
texts = st.text(alphabet=st.sampled_from(TRICKY_CHARS), max_size=60)


def _holds(data: bytes, pattern: Phrase) -> bool:
    """The exact check: a hit or a problem of search_notes needs the phrase in these texts."""
    note, trouble = as_seen(parse_note("n.md", data, 0))
    if trouble is not None and could_hold(trouble, pattern):
        return True
    return note is not None and pattern.found_in(searched_text(note))


def _swap_some(text: str, flips: list[bool]) -> str:
    return "".join(c.swapcase() if flips[i % len(flips)] else c for i, c in enumerate(text)) if flips else text


@given(texts, st.integers(0, 60), st.integers(1, 12), st.lists(st.booleans(), max_size=8), st.binary(max_size=3))
@example("ſecret", 0, 6, [False], b"")
@example("\u212aelvin", 0, 6, [False], b"")
@example("x\u0130stanbul", 1, 8, [False], b"\xff")
def test_the_phrase_byte_test_keeps_every_note_holding_the_phrase(
    text: str, start: int, length: int, flips: list[bool], junk: bytes
) -> None:
    for body in (text, f"---\ntags: [{text}]\n---\n{text}"):
        data = body.encode("utf-8") + junk  # junk: bytes that may make the note not UTF-8
        lines = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
        for phrase in (_swap_some(lines[start : start + length], flips).strip(), "kelvin", "secret", "istanbul"):
            if not phrase or "\n" in phrase:
                continue
            pattern = Phrase.of(phrase)
            if _holds(data, pattern):
                assert phrase_filter(pattern)(data), (phrase, data)
                assert phrase_filter(pattern)(bytearray(data))


names = st.text(
    alphabet=st.sampled_from("aAbBiIkKsS \u212a\u017f\u00df\u00e9\u00c9\u0301\u0338\ufb01`%"), min_size=1, max_size=12
)


def _variants(name: str, flips: list[bool], cut: int, encode: list[bool]) -> list[str]:
    """Ways a note can write a link to `name` that still resolve to it — and near misses."""
    swapped = _swap_some(name, flips)
    nfd = unicodedata.normalize("NFD", swapped)
    coded = name[:cut] + "`x`" + name[cut:]  # inline code inside the link is blanked out
    encoded = (
        "".join(quote(c, safe="") if encode[i % len(encode)] else c for i, c in enumerate(name)) if encode else name
    )
    return [
        f"[[{swapped}]]",
        f"[[{nfd}|shown]]",
        f"[[Folder/{name}#Heading]]",
        f"[[./{swapped}]]",
        f"[[{coded}]]",
        f"[[{name.replace('   ', '`x`')}]]",  # three blanks: what a blanked-out code span leaves
        f"[x]({encoded}.md)",
        f"[x](<{name}.md>)",
        f"[x]({quote(name.casefold())})",
        # every byte escaped, letters included, in upper- and lower-case hex
        "[x](" + "".join(f"%{b:02X}" if i % 2 else f"%{b:02x}" for i, b in enumerate(name.encode())) + ".md)",
    ]


@given(
    names,
    st.lists(st.booleans(), max_size=6),
    st.integers(0, 12),
    st.lists(st.booleans(), max_size=6),
    st.sampled_from(["", "---\nsubject: a\nsubject: b\n---\n", "---\nrelated: ", "\ufeff", b"\xff"]),
)
@example("Pl   an", [], 2, [], "")
@example("\u0338Plan", [], 0, [], "")  # '<' and U+0338 compose into one character
@example("\u212aey", [False], 0, [], "")
@example("Caf\u00e9", [True], 1, [True], "")
def test_the_name_byte_test_keeps_every_note_linking_to_the_target(
    name: str, flips: list[bool], cut: int, encode: list[bool], opening: str | bytes
) -> None:
    _keeps_every_link(name, flips, cut, encode, opening)


OPENINGS = st.sampled_from(["", "---\nsubject: a\nsubject: b\n---\n", "---\nrelated: ", "\ufeff", b"\xff"])


@given(
    st.text(alphabet=st.sampled_from("aBk\u212a "), max_size=4),
    st.text(alphabet=st.sampled_from("0123456789"), min_size=3, max_size=5),
    st.text(alphabet=st.sampled_from(" a%9"), max_size=3),
    st.lists(st.booleans(), max_size=6),
    st.integers(0, 12),
    st.lists(st.booleans(), max_size=6),
    OPENINGS,
)
@example("a ", "2024", "", [], 0, [False, True], "")  # '2' written '%32' in a markdown link
@example("", "999", "", [], 0, [], "")  # every byte escaped: nothing but '%39' holds the number
def test_a_name_with_a_number_is_kept_however_the_link_writes_its_digits(
    before: str, number: str, after: str, flips: list[bool], cut: int, encode: list[bool], opening: str | bytes
) -> None:
    """The number rules notes out on their raw bytes unless an escape could spell a digit."""
    name = before + number + after
    if name.strip() and not name.startswith(" "):
        _keeps_every_link(name, flips, cut, encode, opening)


def _keeps_every_link(name: str, flips: list[bool], cut: int, encode: list[bool], opening: str | bytes) -> None:
    target = f"Folder/{name}.md"
    index = NameIndex.of([(target, ())])
    worth = name_filter(target)
    for link in _variants(name, flips, cut, encode):
        if opening == "---\nrelated: ":
            data = f'---\nrelated: "{link}"\n---\nbody\n'.encode()
        elif isinstance(opening, bytes):
            data = f"text {link}\n".encode() + opening
        else:
            data = f"{opening}line one\nsee {link} here\r\n".encode()
        note, trouble = as_seen(parse_note("Other/Source.md", data, 0))
        linked = note is not None and bool(links_to(target, note, index, "v"))
        named = isinstance(trouble, InvalidNote) and could_link(trouble, target)
        if linked or named:
            assert worth(data), (link, data)
            assert worth(bytearray(data))


def _linked(target: str, data: bytes) -> bool:
    note, _ = as_seen(parse_note("Other/Source.md", data, 0))
    return note is not None and bool(links_to(target, note, NameIndex.of([(target, ())]), "v"))


@pytest.mark.parametrize(
    ("name", "link"),
    [
        ("Plan", "[x](%50lan.md)"),  # an ASCII letter escaped, upper-case hex
        ("Plan", "[x](P%6can.md)"),  # lower-case hex, lower-case letter
        ("Plan", "[x](P%4Can.md)"),  # an escaped upper-case letter in a lower-case name
        ("Plan 7", "[x](Plan%20%37.md)"),  # a digit
        ("Strasse", "[x](Stra%C3%9Fe.md)"),  # ß escaped: folds to 'ss'
        ("Key", "[x](%E2%84%AAey.md)"),  # the Kelvin sign escaped: folds to 'k'
        ("a-b", "[x](a%2Db.md)"),
    ],
)
def test_a_link_spelled_with_escapes_is_kept(name: str, link: str) -> None:
    target = f"{name}.md"
    data = f"see {link} here, and [y](caf%C3%A9.md)\n".encode()
    assert _linked(target, data), "the case must be a real link, or it proves nothing"
    assert name_filter(target)(data)


def test_escapes_that_cannot_spell_the_name_are_not_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    # %20 and an accent's bytes are all this note escapes; 'Plan' holds neither, so the note
    # is ruled out without decoding it (most notes of a real vault escape something).
    data = b"see [y](caf%C3%A9%20au%20lait.md) and [z](Pla%20n.md)\n"
    assert not _linked("Plan.md", data)

    def no_decoding(data: bytes) -> bytes:
        raise AssertionError("decoded a note whose escapes cannot spell the name")

    monkeypatch.setattr(text_prefilter, "unquote_to_bytes", no_decoding)
    assert not name_filter("Plan.md")(data)
    with pytest.raises(AssertionError, match="decoded"):
        name_filter("Plan.md")(data.replace(b"Pla%20n", b"Pla%6e"))  # one that can spell it is decoded
