"""Words as recall compares them: Unicode `\\w+` runs of text folded to one form.

Two foldings: `words` (NFKC and casefolding: 'Café', 'CAFÉ' and 'café' are one word), which
the strict `match="all"` compares as it always has; and `fold_for_ranking`, which also takes
accents off ('cafe' finds 'café', 'uber' finds 'über'), which ranked recall compares before
stemming.  (obsidian/resolve.py's `fold` is another: names as Obsidian compares them.)
"""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"\w+")

# Combining accents (the diacritical-mark blocks), taken off after decomposing: letters of
# scripts whose vowel signs are marks of their own (Devanagari, say) are left as they are.
_ACCENTS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def words(text: str) -> list[str]:
    """The words of `text`, in order, normalized so 'Café', 'CAFÉ' and 'café' are one word."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


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
    return _WORD.findall(fold_for_ranking(text))
