"""Words as recall compares them: Unicode `\\w+` runs, NFKC-normalized and casefolded."""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """The words of `text`, in order, normalized so 'Café', 'CAFÉ' and 'café' are one word."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def query_words(query: str) -> list[str]:
    """The distinct words of a query, in the order given."""
    return list(dict.fromkeys(words(query)))
