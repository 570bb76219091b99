"""The subject scan skips notes by their raw bytes; it must answer exactly as the full scan."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.synthetic_vault import SUBJECTS, generate
from tests.support.vaults import write_vault
from tests.support.whole_vault import scan_subject, scan_vault
from vault_recall.server.obsidian.note import InvalidNote
from vault_recall.server.recall import context
from vault_recall.server.recall.records import MemoryRecord
from vault_recall.server.recall.scope import Exposure, Scope
from vault_recall.server.recall.subject_prefilter import plainly_not_about
from vault_recall.server.vault import note_files
from vault_recall.server.vault.listing import VaultListing

TRICKY = {
    "Quoted.md": '---\n"subject": build-system\n---\ncache\n',
    "Flow.md": "---\n{subject: build-system, x: 1}\n---\ncache\n",
    "List.md": "---\nsubject:\n  - release-process\n  - build-system\n---\ncache\n",
    "Other list.md": "---\nsubject: [hiring, security]\n---\ncache\n",
    "Commented.md": "---\nsubject: hiring # not ours\n---\ncache\n",
    "Tagged.md": "---\nsubject: !!str build-system\n---\ncache\n",
    "Broken ours.md": "---\nsubject: build-system\nsubject: build-system\n---\ncache\n",
    "Broken other.md": "---\nsubject: hiring\nx: 1\nx: 2\n---\ncache\n",
    "Unreadable.md": "---\nsubject: {{\n---\ncache\n",
    "Unterminated.md": "---\nsubject: build-system\ncache\n",
    "Latin1.md": b"---\nsubject: build-system\n---\ncaf\xe9 cache\n",
    "UTF16.md": "---\nsubject: build-system\nx: 1\nx: 2\n---\ncache\n".encode("utf-16"),
    "BOM.md": b"\xef\xbb\xbf---\r\nsubject: build-system\r\n---\r\ncache\r\n",
    "Plain.md": "subject: build-system in the body only, cache\n",
    "Nested.md": "---\nmeta:\n  subject: build-system\n---\ncache\n",
    "Indented other.md": "---\n  subject: hiring\n---\ncache\n",
    # A `subject:` line inside a value opened above it is not the note's subject.
    "Flow before.md": "---\nmeta: {\nsubject: hiring\n}\nsubject: Not A Slug\n---\ncache\n",
    "Quoted before.md": '---\ndesc: "text\nsubject: hiring"\nsubject: [Bad Slug]\n---\ncache\n',
    "Flat before.md": '---\ntags: [a, "b"]\naliases:\n  - "Q"\nsubject: hiring\n---\ncache\n',
    # '---x' is a property name, not the end of the block.
    "Dashes key.md": "---\n---x: 1\nsubject: security\n---\ncache\n",
    # YAML escapes spell names and slugs the bytes do not show.
    "Escaped key.md": '---\n"\\x73ubject": "\\x62uild-system"\n---\ncache\n',
    "Continued.md": "---\nsubject: hiring\n  more words\n---\ncache\n",
    "Quoted slug.md": "---\nsubject: 'hiring'\n---\ncache\n",
    "CR only.md": b"---\rsubject: build-system\r---\rcache\r",
    "Closed at the end.md": "---\nsubject: build-system\n---",
    "Alias names ours.md": "---\nsubject: hiring\naliases: [build-system]\n---\ncache\n",
    # Slugs YAML reads as other things: the record is broken, and could be about anything.
    "Numbered.md": "---\nsubject: 123\n---\ncache\n",
    "Null.md": "---\nsubject: null\n---\ncache\n",
    "Yes.md": "---\nx: 1\nsubject: yes\n---\ncache\n",
    "Listed off.md": "---\nsubject: [hiring, off]\n---\ncache\n",
    "Short date.md": "---\nsubject: 2026-1-5\n---\ncache\n",
    # Quotes that do not close a slug.
    "Stray quote.md": "---\nsubject: hiring'\n---\ncache\n",
    "Doubled quote.md": "---\nsubject: 'hiring'''\n---\ncache\n",
    "Quoted on.md": "---\nsubject: 'hiring\nx'\n---\ncache\n",
    "Quoted comma.md": "---\nsubject: [hiring, 'a,b']\n---\ncache\n",
    # A value carried on over a blank line, or a line break YAML knows and '\n' is not.
    "Blank then more.md": "---\nsubject: hiring\n\n  more\n---\ncache\n",
    "CRLF blank then more.md": b"---\nx: 1\nsubject: hiring\r\n\r\n  more\r\n---\r\ncache\r\n",
    "NEL then more.md": b"---\nsubject: hiring\n\xc2\x85  more\n---\ncache\n",
    "Lone CR closing.md": b"---\n  subject: Bad Slug\n---\rbody\nsubject: hiring\n---\n",
    # '--- x' ends the block where a broken note's subject is looked for.
    "Dashes line.md": "---\nx:\n  subject: a\n--- x\nsubject: hiring\n---\n",
    "Two BOMs.md": b"\xef\xbb\xbf\xef\xbb\xbf---\nsubject: build-system\n---\nbody \xff\n",
    # YAML 1.2: numbers a 1.1 reader took for text, and text a 1.1 reader took for booleans.
    "Exponent.md": "---\nsubject: 1e3\n---\ncache\n",
    "Octal.md": "---\nsubject: 0o17\n---\ncache\n",
    "Yes slug.md": "---\nsubject: yes\n---\ncache\n",
    "On in list.md": "---\nsubject: [build-system, on]\n---\ncache\n",
    # Obsidian reads these; only the record's own fields can make them problems.
    "Template.md": "---\nsubject: build-system\ncreated: {{date}}\naliases:\n  - LawList: x\n---\ncache\n",
    "Template subject.md": "---\nsubject: {{subject}}\n---\ncache\n",
    "Number name.md": "---\n2024: year\nsubject: build-system\n---\ncache\n",
    "Anchored.md": "---\nx: &s build-system\nsubject: *s\n---\ncache\n",
    # Properties longer than the start a scan reads first.
    "Long properties.md": "---\npadding: " + "a" * 70_000 + "\nsubject: build-system\n---\ncache\n",
}


def scope(vault: Path, mode: str = "records") -> Scope:
    return Scope(client="t", vault=vault, exposure=Exposure(mode=mode, subjects=frozenset({"build-system"})))


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fast") / "v"
    generate(root, 400, seed=3, invalid=12)
    write_vault(root / "Tricky", TRICKY)
    return root


@pytest.mark.parametrize("subject", [*SUBJECTS, "nobody", None])
def test_the_subject_scan_finds_the_same_records_and_problems(vault: Path, subject: str) -> None:
    full = scan_vault(vault)
    fast = scan_subject(vault, subject)
    expected = sorted(r.note.path for r in full.records if subject is None or subject in r.subjects)
    assert sorted(r.note.path for r in fast.records) == expected
    relevant = {n.path for n in full.invalid if _about(n, subject)}
    assert {n.path for n in fast.invalid if _about(n, subject)} == relevant


def _about(note: InvalidNote, subject: str | None) -> bool:
    return note.mentions_subject and (subject is None or note.subjects is None or subject in note.subjects)


@pytest.mark.parametrize("mode", ["records", "subjects", "vault"])
@pytest.mark.parametrize(("query", "match"), [("cache", "all"), ("cache deploy", "all"), ("cache zzz", "any")])
def test_recall_answers_as_it_did_with_the_full_scan(
    vault: Path, mode: str, query: str, match: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = context.recall_context(scope(vault, mode), "build-system", query, budget=65536, limit=20, match=match)
    monkeypatch.setattr(context, "each_record", _every_record_of_the_full_scan)
    full = context.recall_context(scope(vault, mode), "build-system", query, budget=65536, limit=20, match=match)
    assert fast == full
    assert fast["status"] == "degraded"


def _every_record_of_the_full_scan(
    root: Path, listing: VaultListing, subject: str | None
) -> Iterator[MemoryRecord | InvalidNote]:
    full = scan_vault(root)
    yield from full.invalid
    yield from full.records


def test_the_any_subject_scan_keeps_every_record(vault: Path) -> None:
    full = scan_vault(vault)
    fast = scan_subject(vault, None)
    assert sorted(r.note.path for r in fast.records) == sorted(r.note.path for r in full.records)
    mentions = {n.path for n in full.invalid if n.mentions_subject}
    assert {n.path for n in fast.invalid if n.mentions_subject} == mentions


def test_without_readv_the_scan_finds_the_same(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Windows has no os.readv: each start is then read into a fresh buffer.
    with_readv = scan_subject(vault, "build-system")
    monkeypatch.setattr(note_files, "_HAS_READV", False)
    without = scan_subject(vault, "build-system")
    assert [r.note.path for r in without.records] == [r.note.path for r in with_readv.records]
    assert [n.path for n in without.invalid] == [n.path for n in with_readv.invalid]
    assert with_readv.records


@pytest.mark.parametrize(
    ("subject", "data"),
    [
        (None, b"---\r\ncreated: 2025-01-13\r\n---\r\nbody\r\n"),
        (b"hiring", b"---\r\ncreated: 2025-01-13\r\nsubject: security\r\ntags: [a, b]\r\n---\r\nbody\r\n"),
    ],
)
def test_a_crlf_block_is_judged_on_its_bytes_like_any_other(subject: bytes | None, data: bytes) -> None:
    # The block's last '\r' sits just before the closing line's '\n': a CRLF, not a lone CR.
    assert plainly_not_about(subject, data)
