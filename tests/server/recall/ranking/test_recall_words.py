"""The strict match (`match="all"`) finds query words in a record's fields without splitting
ASCII bodies into words; it must find exactly what splitting every field would."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from vault_recall.server.obsidian.note import Note, parse_note
from vault_recall.server.recall.ranking import strict_match
from vault_recall.server.recall.ranking.words import is_cjk, words
from vault_recall.server.recall.records import MemoryRecord, as_record

PIECES = [
    "cache",
    "Cache",
    "CACHE",
    "cached",
    "_cache",
    "cache_",
    "cache1",
    "#cache",
    "#ci/cache",
    "#cache-x",
    "x#cache",
    "`cache`",
    "```\ncache\n```",
    "café",
    "CAFÉ",
    "ﬁle",
    "file",
    "straße",
    "STRASSE",
    "ǅ",
    "deploy",
    "项目预算",
    "猫",
    "#预算",
    "Obsidian启动",
    "# Heading cache",
    " ",
    "  ",
    "\n",
    "\t",
    "-",
    "/",
    ".",
    "é",
    "1",
    "_",
]
WANTED = [
    *("cache", "cached", "café", "file", "strasse", "deploy", "1", "x", "heading", "ci"),
    *("预算", "目预", "猫", "obsidian", "启动"),
]


def split(text: str) -> list[str]:
    """The words of a text, and each CJK letter of it: a CJK word of one letter is held
    wherever the letter is written."""
    return words(text) + [letter for letter in text if is_cjk(letter)]


def naive_fields(note: Note, wanted: list[str]) -> dict[str, set[str]]:
    fields = {
        "title": split(note.title),
        "aliases": [w for text in note.aliases for w in split(text)],
        "heading": [w for heading in note.headings for w in split(heading.text)],
        "tags": [w for text in note.all_tags for w in split(text)],
        "body": split(note.body),
    }
    return {name: set(found).intersection(wanted) for name, found in fields.items()}


@given(
    st.lists(st.sampled_from(PIECES), max_size=30),
    st.lists(st.sampled_from(PIECES), max_size=3),
    st.lists(st.sampled_from(WANTED), min_size=1, max_size=3, unique=True),
)
def test_the_fields_holding_each_word_are_those_splitting_would_give(
    body: list[str], tags: list[str], wanted: list[str]
) -> None:
    tag_list = ", ".join(f'"{t}"' for t in tags if '"' not in t and "\n" not in t)
    text = f"---\nsubject: build-system\ntags: [{tag_list}]\n---\n" + "".join(body)
    note = parse_note("Notes/Cache plan.md", text.encode("utf-8"), 0)
    assert isinstance(note, Note)
    record = as_record(note)
    assert isinstance(record, MemoryRecord)
    assert strict_match.fields_holding(record, wanted) == naive_fields(note, wanted)


@given(st.text(alphabet="abcx_1 -#\n.Aé", max_size=60), st.sampled_from(["a", "ab", "x1", "_", "abc", "b_c"]))
def test_a_word_is_held_exactly_when_it_is_one_of_the_words(text: str, word: str) -> None:
    if text.isascii():
        assert strict_match.holds(text.lower(), word) == (word in words(text))
