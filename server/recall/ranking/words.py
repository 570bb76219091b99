"""Words as recall compares them: Unicode `\\w+` runs of text folded to one form — and, where
a run is written in Chinese, Japanese or Korean, its overlapping pairs of characters.

Two foldings: `words` (NFKC and casefolding: 'Café', 'CAFÉ' and 'café' are one word), which
the strict `match="all"` compares as it always has; and `fold_for_ranking`, which also takes
accents off ('cafe' finds 'café', 'uber' finds 'über'), which ranked recall compares before
stemming.  (obsidian/resolve.py's `fold` is another: names as Obsidian compares them.)

Chinese and Japanese are written without spaces between words, and Korean joins its particles
to the word before ('예산을'): a run of such letters is no word.  As Lucene's CJK analyzer
does, a run of Han, Hiragana, Katakana and Hangul is taken as its overlapping bigrams —
'项目预算' is '项目', '目预', '预算' — and a lone such letter as itself; letters and digits of
other scripts next to it are words of their own ('obsidian启动': 'obsidian', '启动').  A
query's one-letter CJK word is found wherever that letter is written (a lone letter is mostly
a word of its own: '猫', '집'), each bigram where the two letters stand together.
"""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"\w+")

# The letters of the scripts taken as bigrams, as word characters (`\w`) only: Hangul jamo and
# syllables, Han (with its iteration mark, its numerals and the compatibility ideographs;
# full-width and half-width forms are folded to these by NFKC), Hiragana and Katakana (with
# the prolonged sound mark 'ー' and the iteration marks, but not the middle dot '・').
CJK = (
    "\u1100-\u11ff\u3005\u3007\u3021-\u3029\u3038-\u303b\u3041-\u3096\u309d-\u309f\u30a1-\u30fa"
    "\u30fc-\u30ff\u3131-\u318e\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97c\uac00-\ud7a3"
    "\ud7b0-\ud7fb\uf900-\ufaff\U00020000-\U0003ffff"
)
_CJK_RUN = re.compile(f"[{CJK}]+")
# A word character of any other script: what a word outside CJK is made of.
LETTER = rf"[^\W{CJK}]"

# Combining accents (the diacritical-mark blocks), taken off after decomposing: letters of
# scripts whose vowel signs are marks of their own (Devanagari, say) are left as they are.
_ACCENTS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def is_cjk(word: str) -> bool:
    """Is this word (as `words` makes them) a CJK bigram or letter?"""
    return _CJK_RUN.match(word) is not None


def bigrams(run: str) -> list[str]:
    """A run of CJK letters as its overlapping bigrams; a lone letter as itself."""
    if len(run) < 2:
        return [run]
    return [run[at : at + 2] for at in range(len(run) - 1)]


def _split(found: list[str]) -> list[str]:
    """`\\w+` runs as words: each CJK stretch of a run as its bigrams, the rest as it is."""
    split: list[str] = []
    for run in found:
        if _CJK_RUN.search(run) is None:
            split.append(run)
            continue
        at = 0
        for stretch in _CJK_RUN.finditer(run):
            if stretch.start() > at:
                split.append(run[at : stretch.start()])
            split.extend(bigrams(stretch.group()))
            at = stretch.end()
        if at < len(run):
            split.append(run[at:])
    return split


def _words_of(normalized: str) -> list[str]:
    found = _WORD.findall(normalized)
    if normalized.isascii() or _CJK_RUN.search(normalized) is None:
        return found
    return _split(found)


def words(text: str) -> list[str]:
    """The words of `text`, in order, normalized so 'Café', 'CAFÉ' and 'café' are one word."""
    return _words_of(unicodedata.normalize("NFKC", text).casefold())


def words_held(text: str) -> set[str]:
    """The words of `text` a query's word is held as: its words, and each CJK letter of it."""
    normalized = unicodedata.normalize("NFKC", text).casefold()
    held = set(_words_of(normalized))
    if not normalized.isascii():
        held.update(letter for stretch in _CJK_RUN.findall(normalized) for letter in stretch)
    return held


def query_words(query: str) -> list[str]:
    """The distinct words of a query, in the order given."""
    return list(dict.fromkeys(words(query)))


def fold_for_ranking(text: str) -> str:
    """`text` in the form ranked recall compares: NFKC, casefolded, accents off."""
    if text.isascii():
        return text.lower()
    folded = unicodedata.normalize("NFKC", text).casefold()
    if folded.isascii():
        return folded
    return unicodedata.normalize("NFC", _ACCENTS.sub("", unicodedata.normalize("NFD", folded)))


def folded_words(text: str) -> list[str]:
    """The words of fold_for_ranking(text), in order."""
    return _words_of(fold_for_ranking(text))
