"""The subject scan skips notes by their raw bytes; it must answer exactly as the full scan."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.synthetic_vault import SUBJECTS, generate
from tests.support.tricky_notes import TRICKY
from tests.support.vaults import write_vault
from tests.support.whole_vault import scan_subject, scan_vault
from vault_recall.server.obsidian.note import InvalidNote
from vault_recall.server.recall.answers import recall_records
from vault_recall.server.recall.finding.subject_prefilter import plainly_not_about
from vault_recall.server.recall.records import MemoryRecord
from vault_recall.server.recall.scope import Exposure, ExposureMode, Scope
from vault_recall.server.recall.tool_declarations import MatchMode
from vault_recall.server.vault import note_files
from vault_recall.server.vault.listing import VaultListing


def scope(vault: Path, mode: ExposureMode = "records") -> Scope:
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
    vault: Path, mode: ExposureMode, query: str, match: MatchMode, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = recall_records.recall_context(scope(vault, mode), "build-system", query, budget=65536, limit=20, match=match)
    monkeypatch.setattr(recall_records, "each_record", _every_record_of_the_full_scan)
    full = recall_records.recall_context(scope(vault, mode), "build-system", query, budget=65536, limit=20, match=match)
    assert fast == full
    assert fast["status"] == "degraded"


def _every_record_of_the_full_scan(
    root: Path, listing: VaultListing, subject: str | None, **_: object
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
