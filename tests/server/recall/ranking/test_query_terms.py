"""Query terms: stems, stop words, framing words, and finding a term's words without splitting
every note into words — which must find exactly what stemming every word would."""

from __future__ import annotations

import unicodedata
from collections import Counter
from pathlib import Path
from typing import Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.parts import need
from vault_recall.server.recall.ranking import languages
from vault_recall.server.recall.ranking.languages import (
    LONGEST_STEMMED,
    SUPPORTED,
    check_languages,
    language,
    languages_for,
)
from vault_recall.server.recall.ranking.query_terms import Query, StemMemo, parse_query, term_counts
from vault_recall.server.recall.ranking.word_scans import Scan, stem_start, words_found
from vault_recall.server.recall.ranking.words import fold_for_ranking, folded_words, is_cjk

# Word families whose inflections differ at the end (and in the middle, for German), with
# punctuation and words that merely contain others.
PIECES = [
    "cache", "caching", "cached", "Caches", "precache", "cachet",
    "policy", "policies", "POLICY", "polite",
    "decide", "decided", "decision", "Decisions",
    "die", "dying", "dies", "diet",
    "hope", "hoping", "hop", "hopping",
    "Häuser", "Haus", "hauser", "Entscheidung", "Entscheidungen", "anaerob", "Anaerobe",
    "décidé", "décision", "DECIDE\u0301",
    "café", "cafe\u0301", "ＣＡＦÉ", "straße", "STRASSE", "ﬁle", "file",
    "x", "_", "1", "2026", "a1b2",
    "pull", "Pull", "request", "requests", "PR", "PRs", "DB", "database", "Databases", "sign-on", "single",
    "k8s", "Kubernetes",
    "项目", "预算", "预", "ははは", "データ", "예산을", "猫", "。", "ｶﾞ",
    " ", "  ", "\n", "-", "/", ".", "#", "'", "é", "\u0301",
]  # fmt: skip
QUERIES = [
    "caching", "policies", "decision", "dying", "hoped", "Haus", "Entscheidungen", "anaerobe", "café", "strasse",
    "file", "die", "x", "2026", "décider", "pull requests", "db", "single sign-on", "Kubernetes", "PRs",
    "项目预算", "はは", "猫", "ガデータ", "예산", "cache预算",
]  # fmt: skip
NormalForm = Literal["NFC", "NFD", "NFKC", "NFKD"]
FORMS: list[NormalForm] = ["NFC", "NFD", "NFKC", "NFKD"]
LANGUAGE_SETS = [("english",), ("german",), ("french",), ("english", "german"), ("dutch",), ("spanish", "italian")]


def naive_counts(text: str, query: Query) -> list[int]:
    """Stem every word of the folded text and count those sharing a stem with each term, and
    each run of words spelling out one of its phrases (the last word by its stem); a term of
    one CJK letter, each time the letter is written."""
    tokens = folded_words(text)
    letters = Counter(letter for letter in fold_for_ranking(text) if is_cjk(letter))
    words = Counter(tokens)

    def stems(word: str) -> set[tuple[str, str]]:
        return {(lang.name, lang.stem(word)) for lang in query.languages}

    counts = []
    for term in query.terms:
        if len(term.word) == 1 and is_cjk(term.word):
            counts.append(letters[term.word])
            continue
        found = sum(n for word, n in words.items() if stems(word) & term.stems)
        for phrase in term.phrases:
            size = len(phrase.words)
            for at in range(len(tokens) - size + 1):
                run = tokens[at : at + size]
                found += run[:-1] == list(phrase.words[:-1]) and bool(stems(run[-1]) & phrase.last)
        counts.append(found)
    return counts


@given(
    st.lists(st.sampled_from(PIECES), max_size=40),
    st.lists(st.sampled_from(QUERIES), min_size=1, max_size=3),
    st.sampled_from(LANGUAGE_SETS),
)
def test_a_term_s_words_are_found_as_stemming_every_word_would(
    pieces: list[str], query_words: list[str], languages: tuple[str, ...]
) -> None:
    text = "".join(pieces)
    query = parse_query(" ".join(query_words), languages)
    assert term_counts(fold_for_ranking(text), query, StemMemo(query.languages)) == naive_counts(text, query)


def scan_word_by_word(text: str, scan: Scan) -> Counter[str]:
    """words_found as it was first written: every match of the pattern, kept at a word start
    (a CJK letter is no part of a word beside it) — a CJK bigram's, every place it is written."""
    if scan.gate not in text:
        return Counter()
    if scan.inside:
        return Counter({scan.gate: sum(text.startswith(scan.gate, at) for at in range(len(text)))})

    def in_a_word(at: int) -> bool:
        return at > 0 and (text[at - 1].isalnum() or text[at - 1] == "_") and not is_cjk(text[at - 1])

    return Counter(match.group() for match in scan.pattern.finditer(text) if not in_a_word(match.start()))


def every_scan(query: Query) -> list[Scan]:
    return [scan for term in query.terms for scan in (*term.scans, *(phrase.scan for phrase in term.phrases))]


def test_most_scans_search_for_word_starts_in_one_go() -> None:
    scans = [scan for names in LANGUAGE_SETS for q in QUERIES for scan in every_scan(parse_query(q, names))]
    fast = [scan for scan in scans if scan.at_word_start is not None]
    assert len(fast) > len(scans) / 2
    assert any("e?" in scan.pattern.pattern for scan in fast)  # German's


@given(
    st.lists(st.sampled_from([*PIECES, "ä", "Hae", "ue", "ss"]), max_size=40),
    st.sampled_from(QUERIES),
    st.sampled_from(LANGUAGE_SETS),
)
def test_a_scan_finds_the_words_it_found_match_by_match(pieces: list[str], query: str, names: tuple[str, ...]) -> None:
    text = fold_for_ranking("".join(pieces))
    for scan in every_scan(parse_query(query, names)):
        assert words_found(text, scan) == scan_word_by_word(text, scan)


@pytest.mark.parametrize(
    ("name", "dictionary", "e_after_vowel"),
    [
        ("english", "american-english-large", False),
        ("french", "french", False),
        ("spanish", "spanish", False),
        ("italian", "italian", False),
        ("portuguese", "portuguese", False),
        ("german", "ngerman", True),
    ],
)
def test_every_dictionary_word_starts_as_its_stem_says(name: str, dictionary: str, e_after_vowel: bool) -> None:
    """What the scans rely on: a word starts with the stem less two letters (in German, once
    'ae', 'oe', 'ue' are read as 'a', 'o', 'u').  4,000 words spread over Debian's list, so the
    suite stays fast; the whole lists were checked when this was written (0 misses)."""
    need(f"words-{dictionary}")
    path = Path("/usr/share/dict") / dictionary
    lang = language(name)
    words = sorted(
        {fold_for_ranking(w) for w in path.read_text(encoding="utf-8", errors="ignore").split() if w.isalpha()}
    )
    misses = []
    for word in words[:: max(1, len(words) // 4000)]:
        stem = lang.stem(word)
        seen = _without_e(word) if e_after_vowel else word
        start = stem_start(_without_e(stem) if e_after_vowel else stem)
        if not seen.startswith(start) and not (name == "english" and seen.startswith(stem[0] + "y")):
            misses.append((word, stem))
    assert len(words) > 10_000
    assert misses == []


def _without_e(text: str) -> str:
    return text.replace("ae", "a").replace("oe", "o").replace("ue", "u")


def test_stop_words_are_dropped_and_framing_words_kept_but_not_required() -> None:
    query = parse_query("What did we decide about the remote caching?", ("english",))
    assert [(t.word, t.required) for t in query.terms] == [("decide", False), ("remote", True), ("caching", True)]
    assert set(query.dropped) == {"what", "did", "we", "about", "the"}
    assert query.required == (1, 2)


def test_words_of_the_subject_asked_about_are_not_required() -> None:
    query = parse_query("build system decision for the monorepo", ("english",), subject="build-system")
    assert [(t.word, t.required) for t in query.terms] == [
        ("build", False),
        ("system", False),
        ("decision", False),
        ("monorepo", True),
    ]


def test_words_sharing_a_stem_are_one_term() -> None:
    query = parse_query("cache caching cached CACHES", ("english",))
    assert [t.word for t in query.terms] == ["cache"]


@pytest.mark.parametrize(
    ("query", "note", "found"),
    [
        ("k8s upgrades", "We upgrade Kubernetes twice a year.", [1, 1]),
        ("kubernetes", "k8s: 1.31 everywhere", [1]),
        ("DBs", "One database per service; databases are never shared.", [2]),
        ("who reviews pull requests?", "Every PR gets two reviews; pull-requests over 400 lines are split.", [1, 2]),
        ("PR size", "Pull requests stay small.", [1, 0]),
        ("single sign-on", "SSO through Okta, single sign on for everything", [2]),
        ("sso", "Single Sign-On through Okta.", [1]),
    ],
)
def test_an_abbreviation_and_what_it_stands_for_find_each_other(query: str, note: str, found: list[int]) -> None:
    parsed = parse_query(query, ("english",))
    assert term_counts(fold_for_ranking(note), parsed, StemMemo(parsed.languages)) == found


@pytest.mark.parametrize(
    ("query", "detected"),
    [
        ("Welche Datenbank nutzen wir für die Rechnungen?", "german"),
        ("Pourquoi avons-nous choisi ce fournisseur ?", "french"),
        ("¿Qué proveedor de pagos usamos para las facturas?", "spanish"),
        ("why did we choose the payment provider", None),
        ("Datenbank Rechnungen", None),
        # 'in' is English too: only 'ci' would be Italian, and CI is a word asked.
        ("caching build outputs in CI", None),
        ("Wo hosten wir die Produktion?", "german"),
    ],
)
def test_a_query_in_another_language_is_recognised_by_its_stop_words(query: str, detected: str | None) -> None:
    chosen = [lang.name for lang in languages_for(folded_words(query), ("english",))]
    assert chosen == ["english"] + ([detected] if detected else [])


def test_a_recognised_language_drops_its_stop_words_and_stems_in_it() -> None:
    query = parse_query("Welche Entscheidungen haben wir über die Datenbanken getroffen?", ("english",))
    assert "uber" in query.dropped and "welche" in query.dropped
    memo = StemMemo(query.languages)
    counts = term_counts(fold_for_ranking("Die Entscheidung: eine Datenbank."), query, memo)
    words = [t.word for t in query.terms]
    assert counts[words.index("entscheidungen")] == 1
    assert counts[words.index("datenbanken")] == 1


@given(st.sampled_from(["Café", "CAFÉ", "cafe\u0301", "ＣＡＦＥ", "café"]), st.sampled_from(FORMS))
def test_case_accents_and_unicode_forms_fold_to_one_word(word: str, form: NormalForm) -> None:
    assert fold_for_ranking(unicodedata.normalize(form, word)) == "cafe"
    query = parse_query("cafe", ("english",))
    text = fold_for_ranking(f"a {unicodedata.normalize(form, word)} b")
    assert term_counts(text, query, StemMemo(query.languages)) == [1]


def test_every_supported_language_has_stop_words_and_a_stemmer() -> None:
    for name in SUPPORTED:
        lang = language(name)
        assert len(lang.stop) > 30
        assert lang.framing and lang.framing_meaning(lang.stem(lang.name)) == frozenset()
        assert lang.stem("testing") != ""


def test_an_unknown_language_is_refused_by_name() -> None:
    assert check_languages(["german", "english", "german"]) == ("german", "english")
    with pytest.raises(ValueError, match="'klingon' is not a language recall knows"):
        check_languages(["english", "klingon"])


def test_a_run_of_letters_longer_than_any_word_is_its_own_stem_and_never_stemmed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Snowball's steps take time quadratic in a word's length: a note's one "word" of a million
    letters must not reach them (it took minutes)."""
    chosen = [language(name) for name in SUPPORTED]  # made with the real stemmers, before the stand-in
    asked: list[int] = []

    class Recording:
        def stemWord(self, word: str) -> str:  # snowballstemmer's name
            asked.append(len(word))
            return word

    monkeypatch.setattr(languages, "_stemmer", lambda name: Recording())
    at_limit, over = "y" * LONGEST_STEMMED, "y" * (LONGEST_STEMMED + 1)
    for lang in chosen:
        assert lang.stem(at_limit) == at_limit and lang.stem(over) == over
    assert asked == [LONGEST_STEMMED] * len(SUPPORTED)  # only the word at the limit was stemmed


def test_a_query_in_languages_its_small_words_fit_alike_is_matched_in_those_knowing_its_words() -> None:
    # 'de' twice fits Portuguese, Spanish, French and Dutch; Portuguese knows 'receita' and
    # 'cenoura': the call matches in English (configured) and Portuguese only.
    names = [lang.name for lang in parse_query("receita de bolo de cenoura", ("english",)).languages]
    assert names == ["english", "portuguese"]
    # Words no list knows decide nothing: every language the small words fit.
    tied = [lang.name for lang in parse_query("xqzv de la de", ("english",)).languages]
    assert len(tied) > 2


@given(
    word=st.text(alphabet="aeioudgnrstyl", min_size=1, max_size=10),
    asked=st.sampled_from(["dying", "registration", "cenoura", "gedaan", "häuser", "policies"]),
)
def test_holds_answers_as_stemming_the_word_in_every_language_does(word: str, asked: str) -> None:
    languages = tuple(language(name) for name in ("english", "german", "dutch", "portuguese"))
    memo = StemMemo(languages)
    stems = memo.stems(fold_for_ranking(asked))
    assert memo.holds(word, stems) == (not StemMemo(languages).stems(word).isdisjoint(stems))
