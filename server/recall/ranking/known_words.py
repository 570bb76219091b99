"""Whether a language knows a word: a word it knows is never taken for a misspelling.

The word lists are those of `pyspellchecker` (pure Python, every platform; MIT), one per
language recall supports: a sorted JSON object of words and their counts, gzipped, 90 KB to
1.3 MB each.  A list is read the first time a call needs it (a respelling is being considered,
spelling.py) and kept, decompressed, for the process: it is the language's data, never the
vault's.  Looked up as it is, by bisecting its sorted lines: no set of half a million strings.

A language's list holds words as written ('informação', 'straße'): a query word is looked up
as written (lowercased) and as folded for ranking ('informacao').
"""

from __future__ import annotations

import functools
import gzip
from collections.abc import Iterable
from importlib.resources import files

# Each language recall supports (languages.py), by the name of its list.
LIST_NAMES = {
    "english": "en",
    "german": "de",
    "french": "fr",
    "spanish": "es",
    "italian": "it",
    "portuguese": "pt",
    "dutch": "nl",
}
_LINE = b'\n"'  # each word's line starts so: '\n"word": count,'
_END = b'":'


@functools.cache
def word_list(language: str) -> bytes:
    """The language's word list as packaged: b'{\\n"a": 123,\\n"aachen": 50, …}', its words
    sorted by their UTF-8 bytes (tests/server/recall/ranking/test_known_words.py checks it).
    Empty for a language without one."""
    name = LIST_NAMES.get(language)
    if name is None:
        return b""
    return gzip.decompress((files("spellchecker") / "resources" / f"{name}.json.gz").read_bytes())


def listed(data: bytes, word: bytes) -> bool:
    """Whether `word` is one of the sorted list's words: a bisection over its lines."""
    low, high = 0, len(data)  # the word's line, if listed, starts in [low, high)
    while low < high:
        middle = (low + high) // 2
        start = data.find(_LINE, middle, high + len(_LINE) - 1)  # the first line starting in [middle, high)
        if start < 0:
            high = middle
            continue
        end = data.find(_END, start + len(_LINE))
        found = data[start + len(_LINE) : end]
        if found == word:
            return True
        if found < word:
            low = start + 1
        else:
            high = start
    return False


def knows(languages: Iterable[str], forms: Iterable[str]) -> bool:
    """Whether one of `languages` knows a word, given in any of `forms`."""
    wanted = [form.encode("utf-8") for form in dict.fromkeys(forms) if form]
    return any(listed(word_list(language), word) for language in languages for word in wanted)
