"""Every call checks the notes a client holds for changes, and whether it may still see each;
`seen_from_bytes` tells that from a note's bytes where they are plain enough, without parsing.
It must say what parsing and `view.in_view` say for every note it answers for, in every
exposure — and answer for most notes, or the check proves nothing."""

from __future__ import annotations

import pytest

from tests.support.synthetic_vault import generate
from tests.support.tricky_notes import ODD, TRICKY
from tests.support.vaults import record, write_vault
from vault_recall.server.obsidian.note import parse_note
from vault_recall.server.recall.finding.view import in_view, seen_from_bytes
from vault_recall.server.recall.scope import Exposure
from vault_recall.server.vault.listing import list_notes

# Beside the shared odd notes: a note with no bytes at all.
EMPTY = {"Empty.md": ""}
EXPOSURES = [
    Exposure(mode="records"),
    Exposure(mode="subjects", subjects=frozenset({"build-system"})),
    Exposure(mode="subjects", subjects=frozenset({"hiring"})),
    Exposure(mode="vault"),
]


@pytest.fixture(scope="module")
def notes(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, bytes]]:
    root = tmp_path_factory.mktemp("seen") / "v"
    generate(root, 150, seed=23, invalid=5)
    write_vault(root / "Tricky", TRICKY)
    write_vault(root / "Odd", {**ODD, **EMPTY})
    return [(path, (root / path).read_bytes()) for path in list_notes(root).paths]


@pytest.mark.parametrize("exposure", EXPOSURES, ids=lambda e: f"{e.mode}-{'-'.join(sorted(e.subjects))}")
def test_what_the_bytes_tell_is_what_parsing_tells(notes: list[tuple[str, bytes]], exposure: Exposure) -> None:
    told = 0
    for path, data in notes:
        seen = seen_from_bytes(exposure, data)
        if seen is None:
            continue
        told += 1
        note, trouble = in_view(exposure, parse_note(path, data, 0))
        assert seen == (note is not None or trouble is not None), (path, exposure.mode)
    assert told > 0.6 * len(notes), f"{told} of {len(notes)} told from their bytes"  # the tricky ones parsed


def test_a_record_a_client_may_see_and_one_it_may_not_are_told_apart() -> None:
    data = record("build-system", "Bazel.\n").encode()
    assert seen_from_bytes(Exposure(mode="subjects", subjects=frozenset({"build-system"})), data) is True
    assert seen_from_bytes(Exposure(mode="subjects", subjects=frozenset({"hiring"})), data) is False
    assert seen_from_bytes(Exposure(mode="records"), b"No properties.\n") is False
    assert seen_from_bytes(Exposure(mode="records"), b"caf\xe9\n") is None  # not UTF-8: parsed
