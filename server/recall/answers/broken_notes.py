"""Which notes whose properties cannot be read a recall across the whole vault takes, and which
of them could answer a query: what recall_records.py asks of a broken note before it ranks it or
names its problem (docs/tools.md, `problems`)."""

from __future__ import annotations

import re
from collections.abc import Callable

from vault_recall.server.obsidian.note import InvalidNote, Note, note_title
from vault_recall.server.recall.answers.search import searched_text
from vault_recall.server.recall.ranking.query_terms import term_counts
from vault_recall.server.recall.ranking.relevance import Ordering, Ranked
from vault_recall.server.recall.ranking.words import fold_for_ranking


def shown_anyway(trouble: InvalidNote) -> Note | None:
    """A note whose properties cannot be read, as the whole vault still takes it: its title and
    body, as Obsidian shows them, ranked as an ordinary note — the person's page in
    obsidian-hub whose `aliases: - @name` YAML refuses is the page asked for by that name.
    Not one whose block names a `subject`, `status` or `kind` (it may be another subject's
    record, archived, or an event: only its problem is told), nor a template, nor one that
    could not be read — nor one whose text holds a NUL: a UTF-16 note read as UTF-8 is no text
    to return."""
    shown = trouble.readable
    if shown is None or shown.template or trouble.mentions_subject or trouble.mentions_state:
        return None
    return None if "\x00" in shown.body else shown


def asked_words(fresh: Ordering) -> Callable[[str], bool] | None:
    """For a ranked recall with meaningful words: whether a folded text holds one of them, in
    any form ranking finds (only records that do are ranked)."""
    if not isinstance(fresh, Ranked) or not fresh.query.required:
        return None
    query, memo, required = fresh.query, fresh.memo, fresh.query.required

    def holds(folded: str) -> bool:
        counts = term_counts(folded, query, memo)
        return any(counts[i] for i in required)

    return holds


def block_holds(note: Note, asked: Callable[[str], bool]) -> bool:
    """Whether the values in the properties block of a note shown without it hold a word `asked`
    looks for (its aliases and tags would have been ranked; a key's name never is)."""
    if note.yaml_text is None:
        return False
    return asked(fold_for_ranking(_PROPERTY_NAME.sub("", note.yaml_text)))


# A properties line's leading `name:`, as loosely as a block YAML refused can be read.
_PROPERTY_NAME = re.compile(r"^[ \t]*[^\s:#\-][^:\n]*:", re.MULTILINE)


def could_hold_any(trouble: InvalidNote, asked: Callable[[str], bool]) -> bool:
    """Whether a broken note's text — every line of the file, its properties block too, and its
    file name — holds a word `asked` looks for, folded as ranking folds it (a note that could
    not be read at all might hold anything)."""
    note = trouble.readable
    if note is None:
        return True
    return asked(fold_for_ranking(f"{note_title(trouble.path)}\n{searched_text(note)}"))
