"""The tools' arguments as the model sees them in each tool's input schema: type, bounds and a
one-line description.  The bounds here are what the schema promises; the recall layer checks
the same bounds again (recall/arguments.py), for callers other than MCP."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from vault_recall.server.recall.ranking.match_mode import MatchMode

SubjectArg = Annotated[
    str, Field(description="Subject slug: 1-64 lowercase letters, digits or '-', e.g. 'build-system'.")
]
RecallSubjectArg = Annotated[
    str | None,
    Field(
        description="Subject slug (1-64 lowercase letters, digits or '-', e.g. 'build-system'); "
        "omit it to recall across everything you may see."
    ),
]
QueryArg = Annotated[
    str | None,
    Field(
        description="What you want to know, in words or as a question (at most 500 characters); "
        "omit it for the current records, newest first."
    ),
]
BudgetArg = Annotated[int, Field(ge=512, le=65536, description="Most bytes of compact JSON the whole result may take.")]
LimitArg = Annotated[int, Field(ge=1, le=20, description="Most records to return.")]
OptionalSubjectArg = Annotated[
    str | None,
    Field(description="Only this subject's records (a subject slug); omit to search every note you may see."),
]
OptionalQueryArg = Annotated[
    str | None, Field(description="Words or a question: the events that match it best first (at most 500 characters).")
]
OnOrAfterArg = Annotated[str | None, Field(description="Only events dated on or after this day, YYYY-MM-DD.")]
ActivityLimitArg = Annotated[int, Field(ge=1, le=50, description="Most event records to return.")]
NoteArg = Annotated[
    str, Field(description="Vault path ('Folder/Note', .md optional) or note name, alias or link ('Note#Heading').")
]
SectionArg = Annotated[
    str | None, Field(description="A heading of the note ('Heading' or 'Heading#Subheading'), or '^block-id'.")
]
ReadBudgetArg = Annotated[int, Field(ge=1024, le=65536, description="Most bytes of compact JSON the result may take.")]
PhraseArg = Annotated[str, Field(description="Word or phrase to find, case-insensitive (at most 200 characters).")]
SearchLimitArg = Annotated[int, Field(ge=1, le=100, description="Most line hits to return.")]
SearchBudgetArg = Annotated[
    int, Field(ge=512, le=65536, description="Most bytes of compact JSON the whole result may take.")
]
BacklinkLimitArg = Annotated[int, Field(ge=1, le=200, description="Most linking lines to return.")]
BacklinkBudgetArg = Annotated[
    int, Field(ge=1024, le=65536, description="Most bytes of compact JSON the whole result may take.")
]
OffsetArg = Annotated[
    int,
    Field(ge=0, le=10_000_000, description="Skip this many linking lines: pass the previous answer's `next_offset`."),
]
MatchArg = Annotated[
    MatchMode,
    Field(
        description="'any' (default): records ranked by how well they match, words matched by their stems; "
        "'all': only records holding every query word exactly as written."
    ),
]
