"""Chinese, Japanese and Korean as words (words.py): a run of Han, Hiragana, Katakana or Hangul
is its overlapping bigrams, a lone such letter itself, and what stands next to it in another
script a word of its own — in the query's terms, and in the words a text holds."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vault_recall.server.recall.ranking.languages import SUPPORTED, language
from vault_recall.server.recall.ranking.query_terms import StemMemo, parse_query, term_counts
from vault_recall.server.recall.ranking.words import fold_for_ranking, folded_words, is_cjk, words, words_held


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Han: Chinese has no spaces between words.
        ("项目预算", ["项目", "目预", "预算"]),
        ("本季度的项目预算", ["本季", "季度", "度的", "的项", "项目", "目预", "预算"]),
        # Hiragana, Katakana and Han in one run (Japanese), the prolonged sound mark a letter.
        ("会議のデータ", ["会議", "議の", "のデ", "デー", "ータ"]),
        ("ありがとう", ["あり", "りが", "がと", "とう"]),
        # Hangul: a word with its particle joined to it, and a space between words.
        ("예산을 다시 나누다", ["예산", "산을", "다시", "나누", "누다"]),
        # A lone letter is itself.
        ("猫", ["猫"]),
        ("the 猫 sat", ["the", "猫", "sat"]),
        # Latin letters and digits beside CJK ones are words of their own.
        ("Obsidian启动太慢", ["obsidian", "启动", "动太", "太慢"]),
        ("2026年预算v2", ["2026", "年预", "预算", "v2"]),
        ("用Obsidian的人", ["用", "obsidian", "的人"]),
        # Punctuation ends a run: the middle dot, the ideographic full stop and comma.
        ("データ・ベース", ["デー", "ータ", "ベー", "ース"]),
        ("预算。分配，重新", ["预算", "分配", "重新"]),
        # Full-width Latin letters and digits and half-width Katakana, folded by NFKC first.
        ("ＡＰＩ２０２６の予算", ["api2026", "の予", "予算"]),
        ("ﾃﾞｰﾀﾍﾞｰｽ", ["デー", "ータ", "タベ", "ベー", "ース"]),
    ],
)
def test_a_cjk_run_is_its_overlapping_bigrams(text: str, expected: list[str]) -> None:
    assert words(text) == expected
    assert folded_words(text) == expected


def test_words_outside_cjk_are_split_as_before() -> None:
    assert words("Café, caching_2 e-mail Straße") == ["café", "caching_2", "e", "mail", "strasse"]
    assert folded_words("Café über") == ["cafe", "uber"]


def test_a_text_holds_its_words_and_each_cjk_letter() -> None:
    assert words_held("我家的猫 cat") == {"我家", "家的", "的猫", "cat", "我", "家", "的", "猫"}


CJK_LETTERS = "项目预算会議のデータ・ー예산을猫"
ANY_TEXT = st.text(alphabet=CJK_LETTERS + "abZ19_ -。Ａｶﾞ\n", max_size=40)


@given(ANY_TEXT)
def test_no_word_of_a_cjk_run_is_longer_than_two_letters(text: str) -> None:
    for found in (words(text), folded_words(text), parse_query(text, ["english"]).terms):
        for word in found if isinstance(found, list) else [term.word for term in found]:
            if any(is_cjk(letter) for letter in word):
                assert len(word) <= 2 and all(is_cjk(letter) for letter in word), (text, word)


@given(ANY_TEXT)
def test_a_text_holds_every_bigram_and_letter_of_itself(text: str) -> None:
    """What a note says, asked word for word, it holds: each of its words is found in it."""
    folded = fold_for_ranking(text)
    for word in set(folded_words(text)):
        query = parse_query(word, ["english"])
        if query.terms and is_cjk(word):
            assert term_counts(folded, query, StemMemo(query.languages))[0] >= folded_words(text).count(word)


def test_a_mixed_question_keeps_its_cjk_part() -> None:
    query = parse_query("Obsidian启动太慢怎么办", ["english"])
    assert [term.word for term in query.terms] == ["obsidian", "启动", "动太", "太慢", "慢怎", "怎么", "么办"]
    assert all(term.required for term in query.terms)


@pytest.mark.parametrize("name", SUPPORTED)
def test_no_language_stems_a_bigram_or_drops_it_as_a_stop_word(name: str) -> None:
    spoken = language(name)
    for bigram in ("预算", "予算", "データ", "예산", "을", "的"):
        assert spoken.stem(bigram) == bigram
    query = parse_query("的 项目 予算 예산을", [name])
    assert [term.word for term in query.terms] == ["的", "项目", "予算", "예산", "산을"]
    assert query.dropped == ()


def test_a_bigram_is_counted_wherever_its_two_letters_stand_together() -> None:
    query = parse_query("预算 はは 猫 obsidian", ["english"])
    memo = StemMemo(query.languages)
    text = fold_for_ranking("项目预算需要预算。ははは。我家的猫和猫 用Obsidian启动")
    # 预算 twice; はは twice in ははは (its bigrams); 猫 written twice; obsidian between CJK letters.
    assert term_counts(text, query, memo) == [2, 2, 2, 1]
    # A bigram is two letters together, not apart, and a Latin word is not a part of a CJK run.
    assert term_counts(fold_for_ranking("预 算 は。は obsidiana"), query, memo) == [0, 0, 0, 0]
