"""Checks of tool arguments: each failure is one sentence naming the argument and what is allowed."""

from __future__ import annotations

from vault_recall.server.errors import InvalidArgument, show_value
from vault_recall.server.recall.ranking.words import query_words
from vault_recall.server.recall.records import SUBJECT_PATTERN

MAX_QUERY_CHARS = 500


def check_subject(subject: str) -> str:
    if not isinstance(subject, str) or not SUBJECT_PATTERN.fullmatch(subject):
        raise InvalidArgument(
            f"subject {show_value(subject)} is not a subject slug: use 1-64 lowercase letters, digits "
            "or '-' (call list_subjects to see the subjects there are)"
        )
    return subject


def check_query(query: str | None) -> str | None:
    """The query to match, or None for none: no query, or one with no words (letters or digits)."""
    if query is None:
        return None
    if not isinstance(query, str):
        raise InvalidArgument(f"query must be text (words to look for); got {show_value(query)}")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidArgument(f"query is {len(query)} characters long; the limit is {MAX_QUERY_CHARS}")
    return query if query_words(query) else None


def check_range(name: str, value: int, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidArgument(f"{name} must be a whole number from {low} to {high}; got {show_value(value)}")
    return value


def check_choice(name: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        allowed = " or ".join(repr(c) for c in choices)
        raise InvalidArgument(f"{name} must be {allowed}; got {show_value(value)}")
    return value
