"""Notes a ranked recall can count without parsing them: across the whole vault, or among
records (a subject's, or every one a client sees).

Asked for meaningful words, such a recall answers with the notes that hold one; every other
current note only counts towards BM25's statistics — one more record, and its length.  Most
notes of a vault hold none of a query's words, and parsing each (decoding, the properties
block, the record rules, every field's counts) was most of the call's time.  So a note is
first shown as bytes, and counted from them when they tell all of that for certain:

- nothing of the query: no term's gate (query_terms.Scan: what a text must hold for a term to
  be found in it) in its title (its file name, folded), nor in its body as evidence_of folds
  it (the bytes lowered, when ASCII) — evidence_of looks at headings and inline tags only
  when the body holds a term — nor in its properties block: its aliases and tags, plain or
  quoted text without escapes, are in the block lowered when it is ASCII, and in the block
  folded whole (fold_for_ranking) when it is not, each value set off by marks that compose
  with nothing (but a number among them is read as the number's text, '0x1F' as '31':
  note.NUMBER_WORD says which words that can make, PlainNote.may_hold_numbers which blocks);
- valid, and current: no properties block (and no BOM), or one of the plainest shape
  (record_tally.py), as a record that is an active decision or an ordinary note with no
  `status` or `kind` (what `ruled_record` makes of one: an active decision) — across the
  whole vault whatever rules take it (ranking reads no subject; a subject rule makes an
  ordinary note the same active decision), unless a daily-notes rule dates it; among records
  one its path's folder rules take, when no tag or property rule's text is in its bytes and
  no daily-notes rule dates it — so the rules are decided on the bytes already read.  A
  record of that shape the recall does not take (archived, an event, of another subject, an
  ordinary note no rule takes) is skipped: it is neither counted nor a problem;
- its length as evidence_of measures it: the body after the block with LF line endings, and
  the title.

Anything less plain is parsed as before.  tests/server/recall/answers/test_recall_shortcuts.py
compares the answers with the straightforward way's, test_unheld.py each note with its parse.

The other notes a recall across the whole vault takes without reading them as records are the
broken ones, whose properties cannot be read: which it takes, and which of them could answer a
query — what recall_records.py asks of a broken note before it ranks it or names its problem
(docs/tools.md, `problems`).  They are at the end of this module.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from vault_recall.server.obsidian.note import NUMBER_WORD, InvalidNote, Note, note_title
from vault_recall.server.obsidian.note_bytes import BLOCK_STARTS, BOM_STARTS, lf_text
from vault_recall.server.recall.answers.search import searched_text
from vault_recall.server.recall.finding.looking import Told, Verdict
from vault_recall.server.recall.finding.record_tally import plain_note
from vault_recall.server.recall.ranking.query_terms import term_counts
from vault_recall.server.recall.ranking.relevance import Ordering, Ranked
from vault_recall.server.recall.ranking.words import fold_for_ranking
from vault_recall.server.recall.records import is_current
from vault_recall.server.recall.subject_rules import SubjectRules


@dataclass(frozen=True, slots=True)
class Unheld:
    """A valid, current note holding no word of the query: its length (body and title)."""

    length: int


def unheld_look(
    gates: tuple[str, ...], rules: SubjectRules, records: Callable[[tuple[str, ...]], bool] | None = None
) -> Callable[[str, bytes], Verdict[Unheld]]:
    """For scan.each_looked_at: a note's Unheld (Told) when its bytes tell it for certain (see
    the module's docstring); "skip" for a valid record that is no active decision, holding no
    gate (the recall keeps none); else "parse".  `gates`: every gate of the
    query's terms.

    `records`, for scan.each_record (a recall of a subject's records, or of every record the
    client sees): which records' subjects the recall takes.  Then only a record of the
    plainest shape holding no gate is told — skipped when it is not one the recall takes (it
    names its own subject: no subject rule changes it) — or an ordinary note whose subjects
    its path's folder rules give (no tag or property rule's text in its bytes, no daily-notes
    rule dating it), skipped when the recall does not take them; any other note is parsed."""
    # Bytes are searched only when ASCII (the note's, or its block's): only ASCII gates can be
    # there.  A CJK question's bigrams are not looked for in every English note's bytes.
    wanted = tuple(gate.encode("ascii") for gate in gates if gate.isascii())
    # The subjects the rules give an ordinary note are its path's (SubjectRules.subjects_of)
    # when no tag or property rule's text is in its bytes, and the record they make of it an
    # active decision unless its own status or kind say otherwise (records.ruled_record) —
    # or a daily rule's date makes it an event: those few notes are parsed.
    text_rules = rules.text_rules
    dailies = rules.daily is not None
    numbers_matter = any(NUMBER_WORD.fullmatch(gate) for gate in gates)

    def look(path: str, data: bytes) -> Verdict[Unheld]:
        # The cheapest looks first: a note holding a gate is parsed, whatever else it is.
        title = note_title(path)
        folded_title = fold_for_ranking(title)
        for gate in gates:  # loops, not any(): run for every note of the vault
            if gate in folded_title:
                return "parse"
        ascii_text = data.isascii()
        if ascii_text:
            # Block and body folded at once (fold of ASCII text lowers it); a gate, all word
            # characters, cannot run across the '---' line between them.
            lowered = data.lower()
            for gate_bytes in wanted:
                if gate_bytes in lowered:
                    return "parse"
        opens_block = data.startswith(BLOCK_STARTS)
        plain = plain_note(data, len(data)) if opens_block else None
        if records is not None:
            if plain is not None and plain.record is not None:
                subjects, status, kind = plain.record
                if not is_current(status, kind) or not records(subjects):
                    return "skip"  # a valid record the recall does not take: nothing to count or report
            elif (
                (opens_block and plain is None)
                or (text_rules and rules.text_may_match(data))
                or (dailies and rules.daily_date(path) is not None)
            ):
                return "parse"  # unsure of its block, or a tag, property or daily rule may take it
            else:
                # An ordinary note: a record only of the subjects its path gives (its own
                # status or kind are looked at below).
                taken = rules.by_path(path)
                if not taken or not records(taken):
                    # No record, or one the recall does not take: skipped when surely valid.
                    return "skip" if plain is not None else "parse"
        else:
            if plain is not None and plain.record is not None and not is_current(*plain.record[1:]):
                return "skip"  # a valid record that is not current: never counted, never a problem
            # Across the whole vault an ordinary note is ranked whatever subjects the rules give
            # it (ranking reads none), as the same active decision — unless a daily rule dates it.
            if dailies and rules.daily_date(path) is not None:
                return "parse"
        if opens_block and plain is None:
            return "parse"
        body_start = 0
        if plain is not None:
            body_start = plain.body_start
            if plain.own_state:
                return "parse"  # an ordinary note's own status or kind: ruled_record reads them
            if numbers_matter and plain.may_hold_numbers(data):
                return "parse"  # a number among its values is read as the number's text ('0x1F': '31')
        elif data.startswith(BOM_STARTS):
            return "parse"  # a BOM before no block, or UTF-16: read whole
        if ascii_text:
            crlf = data.count(b"\r\n", body_start) if b"\r" in data else 0  # a memchr first
            return Told(Unheld(len(data) - body_start - crlf + len(title)))
        if body_start:
            # Its aliases and tags: plain or quoted text without escapes, each in the block as
            # written — folded as the block is folded.
            block = data[:body_start]
            if block.isascii():
                lowered_block = block.lower()
                for gate_bytes in wanted:
                    if gate_bytes in lowered_block:
                        return "parse"
            else:
                # Folded whole, each value is folded in it as alone: the block's values are set
                # off by blanks, quotes, ',', '[', ']' and line breaks, which compose with
                # nothing (and plain_note has proven the block UTF-8).
                folded_block = fold_for_ranking(block.decode("utf-8"))
                for gate in gates:
                    if gate in folded_block:
                        return "parse"
        try:
            body = lf_text(data[body_start:].decode("utf-8"))
        except UnicodeDecodeError:
            return "parse"
        folded = fold_for_ranking(body)  # as evidence_of folds the body: with no gate in it, it looks no further
        for gate in gates:
            if gate in folded:
                return "parse"
        return Told(Unheld(len(body) + len(title)))

    return look


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
