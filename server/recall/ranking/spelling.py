"""A misspelt query word: the nearest word the records hold.

Only for a meaningful query word no record holds in any form ("pestisides"): the words of the
records in question are looked at, and the nearest by plain edit distance (Levenshtein: one
letter added, dropped or changed) is taken — at most 1 for a word of up to 7 letters, 2 for a
longer one, never for a word under 4 letters or holding digits (too many words are that
near).  Ties go to the word more records hold, then the alphabet.

Failing that, a word of the same family the stemmer parts is taken: "registration" (stem
`registr`) for "registered" (`regist`), "specification" for "specify" — one's stem begins the
other's, in a language of the call, and the shorter is at least RELATED_AT letters (a shorter
one joins unrelated words: `integ` of "integer" begins `integr` of "integration").  Longest
shared stem first, then the word more records hold, then the alphabet.

The answer names both (`matched`: "pestisides → pesticides"), so nobody takes a guess for what
was asked; a misspelling's guess marks the answer `weak_match` (record_terms.satisfies), a word of the
family does not: it is the word asked in another form, as a stem is.  Nor does the nearest word
when it is the asked word in the other English spelling ("pseudonymized → pseudonymised",
"color → colour", "center → centre": same_word_spelt_otherwise): no guess either.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterable

from vault_recall.server.recall.ranking.word_scans import EVERY_WORD
from vault_recall.server.recall.ranking.words import LETTER

SHORTEST = 4  # letters of a word worth correcting
LONG_AT = 8  # letters from which two edits are allowed
RELATED_AT = 6  # letters of a stem that begins another word's stem for the two to be one family

Stems = Callable[[str], Iterable[tuple[str, str]]]  # a folded word → its (language, stem) pairs


def allowed_distance(word: str) -> int:
    """How many edits a word may be from its correction: 0 when it is not to be corrected."""
    if len(word) < SHORTEST or not word.isalpha():
        return 0
    return 2 if len(word) >= LONG_AT else 1


def edit_distance(a: str, b: str, most: int) -> int:
    """Levenshtein distance of `a` and `b`, or `most + 1` once it is known to exceed `most`."""
    if abs(len(a) - len(b)) > most:
        return most + 1
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        if min(current) > most:
            return most + 1
        previous = current
    return previous[-1]


def nearest(word: str, vocabulary: Counter[str], allowed: Callable[[str], bool] | None = None) -> str | None:
    """The word of `vocabulary` (word → how many records hold it) nearest to `word`, within
    allowed_distance, of those `allowed` allows (asked only of words that near); None when
    there is none or `word` is not to be corrected."""
    most = allowed_distance(word)
    if not most:
        return None
    near: list[tuple[int, int, str]] = []
    pieces = gates(word)  # a word that near holds one: most are ruled out before measuring
    for candidate, holding in vocabulary.items():
        if candidate == word or abs(len(candidate) - len(word)) > most or not any(p in candidate for p in pieces):
            continue
        distance = edit_distance(word, candidate, most)
        if distance <= most:
            near.append((distance, -holding, candidate))
    return next((found for _, _, found in sorted(near) if allowed is None or allowed(found)), None)


# British spellings and the American ones they stand for, as patterns on a folded word: -ise/-ize
# and -yse/-yze ("organised", "analyse"), -our/-or after three letters ("colour", not "four"),
# -tre/-bre ("centre", "fibre"), a doubled l before a suffix ("travelled", "modelling"),
# -ogue ("catalogue"), -cence/-fence ("licence", "defence").  Applied to both words: two words
# spelt alike but for these are one word.
_AMERICAN = [
    (re.compile(r"(?<=[iy])s(?=(?:e|es|ed|ing|er|ers|ation|ations|able)$)"), "z"),
    (re.compile(r"(?<=\w{3})our(?=(?:|s|ed|ing|ite|ites|ful|less|able)$)"), "or"),
    (re.compile(r"(?<=[tb])re(?=(?:|s|d)$)"), "er"),
    (re.compile(r"(?<=[aeiou])ll(?=(?:ed|ing|er|ers|ation|ations)$)"), "l"),
    (re.compile(r"ogue(?=(?:|s)$)"), "og"),
    (re.compile(r"(?<=[cf])ence(?=(?:|s)$)"), "ense"),
]


def _american(word: str) -> str:
    for pattern, replacement in _AMERICAN:
        word = pattern.sub(replacement, word)
    return word


def same_word_spelt_otherwise(word: str, other: str) -> bool:
    """Whether two different folded words are one English word in its British and American
    spellings ("pseudonymised", "pseudonymized") — not a guess at a misspelling."""
    return word != other and _american(word) == _american(other)


def spelt_otherwise(word: str, vocabulary: Counter[str]) -> str | None:
    """The word of `vocabulary` that is `word` in its other English spelling, the one more
    records hold first; None when there is none."""
    found = [
        (-holding, candidate) for candidate, holding in vocabulary.items() if same_word_spelt_otherwise(word, candidate)
    ]
    return min(found)[1] if found else None


def relatable(word: str) -> bool:
    """Whether a word may be taken for another of its family (long enough, letters only)."""
    return len(word) >= RELATED_AT and word.isalpha()


def related(word: str, vocabulary: Counter[str], stems: Stems) -> str | None:
    """The word of `vocabulary` of the same family as `word` that the stemmer parts from it
    (the module's docstring); None when there is none."""
    if not relatable(word):
        return None
    own = list(stems(word))
    best: tuple[int, int, str] | None = None
    for candidate, holding in vocabulary.items():
        if candidate == word or candidate[:RELATED_AT] != word[:RELATED_AT]:
            continue
        for language, stem in stems(candidate):
            for other_language, asked in own:
                shorter, longer = sorted((stem, asked), key=len)
                if (
                    language == other_language
                    and len(shorter) >= RELATED_AT
                    and longer.startswith(shorter)
                    and (best is None or (-len(shorter), -holding, candidate) < best)
                ):
                    best = (-len(shorter), -holding, candidate)
    return None if best is None else best[2]


def gates(word: str) -> tuple[str, ...]:
    """What a text must hold for a word of it to be taken for `word`, so that a record holding
    none need not be read for its words.  A word within `most` edits of `word` holds one of
    `most + 1` pieces of it unchanged (each edit changes one piece at most); a word of its
    family, and its other English spelling, begin with its first three letters."""
    found = [word[:3]]
    if most := allowed_distance(word):
        bounds = [round(at * len(word) / (most + 1)) for at in range(most + 2)]
        found += [word[start:end] for start, end in itertools.pairwise(bounds)]
    return tuple(dict.fromkeys(found))


_A_LETTER = re.compile(LETTER)


def near_words(texts: Iterable[str], words: Iterable[str]) -> Counter[str]:
    """Of the records' words (each record's text, folded), those as long as a correction of one
    of `words` can be, or starting as one of its family must, with how many records hold each —
    only those holding a gate of one of `words` (gates): the only ones `nearest`, `related` and
    `spelt_otherwise` take, a word holding none being no correction.  Found where a gate is
    written, not by splitting every word of the text: most of a text's words hold none."""
    words = list(words)
    found = sorted({gate for word in words for gate in gates(word)}, key=len, reverse=True)
    if not found:
        return Counter()
    pattern = re.compile("|".join(re.escape(gate) for gate in found))
    lengths = {
        n for word in words if (most := allowed_distance(word)) for n in range(len(word) - most, len(word) + most + 1)
    }
    starts = {word[:RELATED_AT] for word in words if relatable(word)}
    counted: Counter[str] = Counter()
    for text in texts:
        held: set[str] = set()
        end = 0  # where the last word found ends: a gate written before it is in it
        for match in pattern.finditer(text):
            if match.start() < end:
                continue
            start = match.start()
            while start and _A_LETTER.match(text, start - 1):
                start -= 1
            word_match = EVERY_WORD.match(text, match.start())
            end = word_match.end() if word_match is not None else match.end()
            word = text[start:end]
            if (len(word) in lengths or word[:RELATED_AT] in starts) and word.isalpha():
                held.add(word)
        counted.update(held)
    return counted
