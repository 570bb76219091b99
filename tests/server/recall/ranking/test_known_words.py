"""The word lists a respelling asks: sorted as the bisection needs, and looked up as a set would."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vault_recall.server.recall.ranking.known_words import LIST_NAMES, knows, listed, word_list
from vault_recall.server.recall.ranking.languages import SUPPORTED

_WORD = re.compile(rb'\n"([^"\n]+)":')


def test_every_supported_language_has_a_list() -> None:
    assert set(LIST_NAMES) == set(SUPPORTED)


@pytest.mark.parametrize("language", sorted(LIST_NAMES))
def test_each_list_is_sorted_by_its_bytes_one_word_a_line(language: str) -> None:
    words = _WORD.findall(word_list(language))
    assert len(words) > 50_000
    assert all(a < b for a, b in itertools.pairwise(words))
    assert b'\\"' not in word_list(language)  # no quote inside a word: each line ends at '":'


def test_a_word_is_known_as_written_or_folded() -> None:
    assert knows(["english"], ["insurance"]) and knows(["english"], ["bolo"])
    assert not knows(["english"], ["pestisides"]) and not knows(["english"], ["evergren"])
    assert knows(["portuguese"], ["informacao", "informação"])
    assert not knows(["portuguese"], ["informacao"])  # the list holds it as written
    assert not knows(["klingon"], ["qapla"])


@given(
    words=st.lists(st.text(alphabet="abcdeéz'", min_size=1, max_size=6), unique=True, max_size=30),
    asked=st.text(alphabet="abcdeéz'", max_size=7),
)
def test_bisecting_a_sorted_list_finds_what_a_set_holds(words: list[str], asked: str) -> None:
    data = b"{\n" + b",\n".join(b'"%s": 1' % w.encode() for w in sorted(words, key=str.encode)) + b"\n}"
    assert listed(data, asked.encode()) == (asked in words)
    assert all(listed(data, w.encode()) for w in words)
