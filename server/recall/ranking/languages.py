"""The languages recall matches words in: their Snowball stemmers, stop words and framing words.

A vault's languages are a setting (`languages` on the vault in the config; English by
default).  A query written in another supported language is recognised by its stop words
("welche Datenbank nutzen wir", "pourquoi avons-nous choisi") and matched in that language
too, for that call only.

Stemmers come from `snowballstemmer` (pure Python, every platform), imported by the first
recall that needs one: answering `initialize` imports none of this.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from vault_recall.server import defaults
from vault_recall.server.recall.ranking.stopwords import FRAMING_WORDS, GENERAL_WORDS, STOP_WORDS
from vault_recall.server.recall.ranking.words import fold_for_ranking, is_cjk

DEFAULT_LANGUAGES = defaults.LANGUAGES
SUPPORTED = tuple(STOP_WORDS)

# A query is taken to be written in a language when at least this many of its words are that
# language's stop words, more of them than of any other language's or any configured one's.
_DETECT_AT_LEAST = 2
# Snowball's stemmers take time quadratic in a word's length (a step may rewrite the word once
# per letter: English turns each 'y' after a vowel or a 'y' into 'Y'), and a note may hold one
# "word" of a million letters.  No word of a language is near this long: a longer run of
# letters is its own stem.
LONGEST_STEMMED = 100


class Stemmer(Protocol):
    def stemWord(self, word: str) -> str: ...  # snowballstemmer's name


@dataclass(frozen=True)
class Language:
    """One language's word lists (folded) and its stemmer."""

    name: str
    stop: frozenset[str]
    framing: tuple[frozenset[str], ...]  # stems of framing words, one set per meaning
    general: frozenset[str] = frozenset()  # general words, as folded (stopwords.py)

    def stem(self, folded_word: str) -> str:
        if len(folded_word) > LONGEST_STEMMED or is_cjk(folded_word):
            return folded_word  # a CJK bigram is never stemmed (words.py)
        return str(_stemmer(self.name).stemWord(folded_word))

    def framing_meaning(self, stem: str) -> frozenset[str]:
        """The stems of the framing words meaning what `stem` means (empty: not a framing word)."""
        return next((meaning for meaning in self.framing if stem in meaning), frozenset())


@functools.cache
def language(name: str) -> Language:
    """The language called `name` (one of SUPPORTED)."""
    stemmer = _stemmer(name)
    framing = tuple(
        frozenset(stemmer.stemWord(fold_for_ranking(word)) for word in line.split())
        for line in FRAMING_WORDS[name].strip().splitlines()
    )
    general = frozenset(fold_for_ranking(word) for word in GENERAL_WORDS[name].split()) - stop_words(name)
    return Language(name=name, stop=stop_words(name), framing=framing, general=general)


@functools.cache
def stop_words(name: str) -> frozenset[str]:
    return frozenset(fold_for_ranking(word) for word in STOP_WORDS[name].split())


# A Snowball stemmer keeps the word it works on in its own fields, so one shared by two threads
# (two calls at once over HTTP, or the pool's share beside a call) mixes their words up and
# fails with an IndexError: each thread has its own.
_PER_THREAD = threading.local()


def _stemmer(name: str) -> Stemmer:
    held: dict[str, Stemmer] | None = getattr(_PER_THREAD, "stemmers", None)
    if held is None:
        held = _PER_THREAD.stemmers = {}
    found = held.get(name)
    if found is None:
        import snowballstemmer  # type: ignore[import-untyped]

        found = held[name] = snowballstemmer.stemmer(name)
    return found


def check_languages(names: Iterable[str]) -> tuple[str, ...]:
    """`names` as a tuple, each one of SUPPORTED; raises ValueError naming the first that is not."""
    chosen = tuple(dict.fromkeys(names))
    for name in chosen:
        if name not in SUPPORTED:
            raise ValueError(f"{name!r} is not a language recall knows; use one of: {', '.join(SUPPORTED)}")
    return chosen


def languages_for(query_words: Sequence[str], configured: Sequence[str]) -> tuple[Language, ...]:
    """The configured languages, plus any other supported language the query is written in."""
    names = list(configured or DEFAULT_LANGUAGES)
    # A word that is a stop word of a configured language is no sign of another: 'in' of
    # "caching build outputs in CI" is English, though Italian has 'in' and 'ci' too.
    own = frozenset().union(*(stop_words(name) for name in names))
    hits = {
        name: sum(word in stop_words(name) and (name in names or word not in own) for word in query_words)
        for name in SUPPORTED
    }
    best = max(hits.values())
    configured_best = max(hits.get(name, 0) for name in names)
    if best >= _DETECT_AT_LEAST and best > configured_best:
        # Languages share many small words ('que', 'de'): the one with the most is the query's.
        tied = [name for name in SUPPORTED if hits[name] == best and name not in names]
        names += _knowing_most(tied, query_words)
    return tuple(language(name) for name in names)


def _knowing_most(tied: list[str], query_words: Sequence[str]) -> list[str]:
    """Of languages the query's small words fit as well ('receita de bolo de cenoura': 'de' is
    Portuguese, Spanish, French and Dutch), those whose word list knows the most of its other
    words (Portuguese: 'receita', 'bolo', 'cenoura') — all of them when none knows more.  Each
    language matched costs the call every word it looks at stemmed once more (Dutch: every
    word of every note)."""
    if len(tied) < 2:
        return tied
    from vault_recall.server.recall.ranking.known_words import knows

    content = [word for word in dict.fromkeys(query_words) if not any(word in stop_words(n) for n in tied)]
    known = {name: sum(knows([name], [word]) for word in content) for name in tied}
    most = max(known.values())
    return [name for name in tied if known[name] == most]
