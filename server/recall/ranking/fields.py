"""The fields of a note a query word is found in (results.MatchField, the names a record's
`matched` shows: docs/tools.md), and what a hit in each weighs: one table for both ways recall
matches (ranked, bm25.py and record_terms.py; strict, strict_match.py).

- `title`: the file name without `.md`;
- `aliases`: the `aliases` property;
- `heading`: any ATX heading of the body (`#` to `######`), outside code blocks;
- `tags`: the `tags` property and the body's inline `#tags`;
- `body`: the body, without the properties block (headings and inline tags are part of it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import assert_never, get_args

from vault_recall.server.recall.results import MatchField

FIELDS: tuple[MatchField, ...] = get_args(MatchField)  # in the order `matched` lists them


def field_weight(field: MatchField) -> float:
    """How much one hit in `field` counts: a note named, aliased, headed or tagged after a word
    is about it; a body mention may be in passing."""
    match field:
        case "title" | "aliases":
            return 3.0
        case "heading" | "tags":
            return 2.0
        case "body":
            return 1.0
        case _:
            assert_never(field)


# Looked up once per field and term of every record ranked: a dict, made from the one table.
FIELD_WEIGHTS: Mapping[MatchField, float] = {field: field_weight(field) for field in FIELDS}
