"""A vault's health, as the person should see it: what recall will find, and what is broken.

Built from the server's own read-only scan, so the tray and `vault-recall health` see exactly
what every client sees.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, assert_never

from vault_recall.server.config.config_file import load_config
from vault_recall.server.errors import ConfigError, VaultUnavailable
from vault_recall.server.obsidian.note import Note
from vault_recall.server.obsidian.resolve import obsidian_uri
from vault_recall.server.recall.finding.scan import each_note
from vault_recall.server.recall.finding.view import could_be_about
from vault_recall.server.recall.packing import json_size
from vault_recall.server.recall.records import MemoryRecord, as_record
from vault_recall.server.recall.results import Status
from vault_recall.server.recall.scope import Exposure
from vault_recall.server.recall.subject_rules import NO_RULES, SubjectRules
from vault_recall.server.recall.tool_declarations import BUDGET
from vault_recall.server.vault.listing import list_notes, vault_name
from vault_recall.server.vault.paths import display

# What a recalled record's envelope costs at most besides the record itself.
_ENVELOPE_BYTES = 400


@dataclass(frozen=True)
class HealthReport:
    status: Status
    vault: str | None
    path: str | None
    reason: str | None = None
    notes: int = 0
    records: int = 0
    subjects: tuple[dict[str, Any], ...] = ()
    problems: tuple[dict[str, str], ...] = ()  # every invalid note, with its reason
    too_large: tuple[dict[str, Any], ...] = ()  # records no recall budget can hold whole
    symlinks: tuple[str, ...] = ()
    ambiguous_names: tuple[dict[str, Any], ...] = ()
    unreadable_folders: tuple[str, ...] = field(default=())
    # Broken notes that may be records: they name a subject, could not be read (a folder
    # too), or a rule may take them.  With none, a vault of no records has no records yet (`no_records_yet`).
    broken_records: int = 0

    @property
    def no_records_yet(self) -> bool:
        """Readable, with no records, and none hidden by a broken note: what tells the person to
        add a subject (a few broken notes of no subject do not change that; a broken record does)."""
        return self.status != "unavailable" and self.records == 0 and self.broken_records == 0

    @property
    def exit_code(self) -> int:
        match self.status:
            case "ok":
                return 0
            case "degraded":
                return 1
            case "unavailable":
                return 2
            case _:
                assert_never(self.status)

    def summary(self, name: str | None = None) -> str:
        """One line: 'Work — 1,204 notes, 87 records, 2 problems' (`name`: the vault's name in
        the config, when it differs from its folder's)."""
        name = name or self.vault
        if self.status == "unavailable":
            return f"{name or 'No vault'} — unavailable: {self.reason}"
        issues = len(self.problems) + len(self.too_large)
        tail = "no problems" if issues == 0 else f"{issues:,} problem{'s' if issues != 1 else ''}"
        return f"{name} — {_count(self.notes, 'note')}, {_count(self.records, 'record')}, {tail}"

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "vault": self.vault,
            "path": self.path,
            "reason": self.reason,
            "notes": self.notes,
            "records": self.records,
            "subjects": list(self.subjects),
            "problems": list(self.problems),
            "too_large": list(self.too_large),
            "symlinks": list(self.symlinks),
            "ambiguous_names": list(self.ambiguous_names),
            "unreadable_folders": list(self.unreadable_folders),
            "broken_records": self.broken_records,
        }


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def _recalled_size(note: Note, vault: str) -> int | None:
    """The size of the note as one recalled record, or None when it plainly fits the largest
    budget: measuring every record would be most of a health check."""
    # At most: six bytes of JSON per character (an escape), twelve per character of the URI
    # (a four-byte character percent-encoded), and 200 for the names, revision and time.
    most = 6 * (len(note.body) + len(note.path) + len(note.title)) + 12 * (len(note.path) + len(vault)) + 200
    if most + _ENVELOPE_BYTES <= BUDGET.high:
        return None
    return json_size(
        {
            "path": note.path,
            "title": note.title,
            "text": note.body,
            "revision": note.revision,
            "modified": note.modified,
            "uri": obsidian_uri(vault, note.path),
        }
    )


def rules_for(vault: Path) -> SubjectRules:
    """The subject rules the config keeps for the vault in that folder (none when the config
    cannot be read: the config's own check says why)."""
    try:
        config = load_config()
    except ConfigError:
        return NO_RULES
    folder = vault.absolute()
    entry = next((v for v in config.vaults if Path(v.path).expanduser().absolute() == folder), None)
    return SubjectRules(entry.subject_rules, vault) if entry is not None else NO_RULES


def check_health(
    vault: Path | None, why_none: str = "no vault is configured", rules: SubjectRules | None = None
) -> HealthReport:
    """What every client would find in the vault, counted — records by their properties and
    by the config's subject rules for that vault (`rules`: read from the config when None)."""
    if vault is None:
        return HealthReport(status="unavailable", vault=None, path=None, reason=why_none)
    rules = rules_for(vault) if rules is None else rules
    name = vault_name(vault)
    try:
        listing = list_notes(vault)
    except VaultUnavailable as exc:
        return HealthReport(status="unavailable", vault=name, path=display(vault), reason=str(exc))
    counts: dict[str, dict[str, Any]] = {}
    too_large: list[dict[str, Any]] = []
    names: dict[str, list[str]] = {}
    found_problems: list[dict[str, str]] = []
    records = broken_records = 0
    everything = Exposure(mode="vault", rules=rules)
    # Note by note, keeping no text: the tray asks for this every minute, on vaults of any size.
    for note, trouble in each_note(vault, listing, rules):
        if trouble is not None:
            found_problems.append({"path": trouble.path, "reason": trouble.reason})
            # Whether it may be a record of some subject, as recall tells it for a client that
            # may see everything: it names a subject, a rule may take it, or it was not read.
            if could_be_about(trouble, None, everything):
                broken_records += 1
        if note is None:
            continue
        names.setdefault(note.title.casefold(), []).append(note.path)
        record = as_record(note, rules) if trouble is None else None
        if not isinstance(record, MemoryRecord):
            continue
        records += 1
        for subject in record.subjects:
            entry = counts.setdefault(subject, {"subject": subject, "active": 0, "archived": 0, "events": 0})
            key = "archived" if record.status == "archived" else "events" if record.kind == "event" else "active"
            entry[key] += 1
        size = _recalled_size(note, name)
        if size is not None and size + _ENVELOPE_BYTES > BUDGET.high:
            too_large.append({"path": note.path, "bytes": size, "limit": BUDGET.high})
    ambiguous = [
        {"name": paths[0].rsplit("/", 1)[-1][:-3], "paths": sorted(paths)} for paths in names.values() if len(paths) > 1
    ]
    problems = tuple(found_problems)
    degraded = bool(problems or too_large)
    return HealthReport(
        status="degraded" if degraded else "ok",
        vault=name,
        path=display(vault),
        notes=len(listing.paths) + len(listing.undecodable),
        records=records,
        subjects=tuple(counts[s] for s in sorted(counts)),
        problems=problems,
        too_large=tuple(too_large),
        symlinks=tuple(display(s) for s in listing.symlinks),
        ambiguous_names=tuple(sorted(ambiguous, key=lambda a: a["name"].casefold())),
        unreadable_folders=tuple(display(f) for f in listing.unreadable_folders),
        broken_records=broken_records,
    )
