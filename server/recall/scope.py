"""One call's scope, as the recall logic takes it: which vault, and what this client may see.

Built from the config on every call by `config/call_scope.py`; the recall logic never reads
the config itself, so every tool is a plain function of a Scope and its arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, assert_never

from vault_recall.server.errors import NotExposed
from vault_recall.server.recall.subject_rules import NO_RULES, SubjectRules

# What a client sees: records of every subject, records of listed subjects, or every note.
ExposureMode = Literal["records", "subjects", "vault"]


@dataclass(frozen=True)
class Exposure:
    """What a client may see: memory records of every subject (`records`, the default),
    of listed subjects only, or the whole vault.

    `rules`: the vault's subject rules (subject_rules.py), read from the config with the rest.
    Which notes are records — and so which a client that sees records may see — is told by a
    note's own properties and by these, so every decision of what a client sees carries them."""

    mode: ExposureMode = "records"
    subjects: frozenset[str] = frozenset()
    rules: SubjectRules = NO_RULES

    def allows_subject(self, subject: str) -> bool:
        match self.mode:
            case "subjects":
                return subject in self.subjects
            case "records" | "vault":
                return True
            case _:
                assert_never(self.mode)

    def allows_record_subjects(self, subjects: tuple[str, ...] | None) -> bool:
        """May a note about `subjects` be shown?  None: a broken note whose subject is unreadable,
        shown only where it cannot reveal a subject the client was not given."""
        match self.mode:
            case "subjects":
                return subjects is not None and any(s in self.subjects for s in subjects)
            case "records" | "vault":
                return True
            case _:
                assert_never(self.mode)

    def require_subject(self, subject: str, client: str) -> None:
        if not self.allows_subject(subject):
            shared = ", ".join(sorted(self.subjects))
            raise NotExposed(f"subject {subject!r} is not shared with client {client!r} (it may see: {shared})")


@dataclass(frozen=True)
class Scope:
    """Resolved for one call.  `vault` is None when no vault is configured; `why` says so.
    `languages`: the languages the vault's notes are written in (stemming, stop words).
    `notice`: a sentence every answer from this vault carries (the bundled sample vault's)."""

    client: str
    vault: Path | None
    exposure: Exposure
    why: str | None = None
    languages: tuple[str, ...] = ("english",)
    notice: str | None = None
