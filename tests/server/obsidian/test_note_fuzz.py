"""Whatever bytes a note holds, parsing answers with a Note or an InvalidNote: never raises."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from vault_recall.server.obsidian.note import InvalidNote, Note, parse_note
from vault_recall.server.recall.records import as_record

YAMLISH = st.lists(
    st.sampled_from(
        [
            "subject: a",
            "subject: [a, b]",
            "tags:",
            "  - x",
            "- y",
            "key: value",
            "k: 2026-02-30",
            "&a",
            "*a",
            "{",
            "[",
            ": :",
            "'",
            '"',
            "\t",
            "---",
            "",
            "date: 2026-01-01",
            "status: archived",
            "kind: event",
            "!!binary aGk=",
            "? complex",
            "yes: no",
            "1: 2",
            "é: ü",
            "\r",
            "\ufeff",
        ]
    ),
    max_size=12,
).map("\n".join)


@given(st.binary(max_size=400))
def test_random_bytes_never_raise(data: bytes) -> None:
    note = parse_note("F.md", data, 0)
    assert isinstance(note, Note | InvalidNote)


@given(YAMLISH, st.text(max_size=80), st.booleans())
def test_random_properties_never_raise(props: str, body: str, closed: bool) -> None:
    text = "---\n" + props + ("\n---\n" if closed else "\n") + body
    note = parse_note("F.md", text.encode("utf-8", errors="surrogatepass"), 0)
    assert isinstance(note, Note | InvalidNote)
    if isinstance(note, InvalidNote):
        assert note.reason.startswith("F.md")
    else:
        as_record(note)  # record rules never raise either
