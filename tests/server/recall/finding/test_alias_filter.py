"""An alias is looked up among the notes whose bytes could hold it; however YAML writes it,
read_note must find the notes a reading of every note finds."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.reference_tools import outcome, reference_read
from tests.support.vaults import write_vault
from vault_recall.server.obsidian.note import parse_note
from vault_recall.server.obsidian.resolve import fold
from vault_recall.server.recall.answers import reading
from vault_recall.server.recall.finding.text_prefilter import alias_filter
from vault_recall.server.recall.scope import Exposure, Scope

NFD = "Cafe\u0301 plan"
ALIASED: dict[str, str | bytes] = {
    "Flow.md": "---\nsubject: build-system\naliases: [Templater, Other]\n---\nbody\n",
    "Block.md": "---\nsubject: build-system\naliases:\n  - TEMPLATER guide\n---\nbody\n",
    "Escaped.md": '---\nsubject: build-system\naliases: ["\\x54emplater notes"]\n---\nbody\n',
    "Unicode escape.md": '---\nsubject: build-system\naliases: ["Caf\\u00e9 notes"]\n---\nbody\n',
    "Folded.md": "---\nsubject: build-system\naliases:\n  - a long alias\n    folded over lines\n---\nbody\n",
    "Decomposed.md": f"---\nsubject: build-system\naliases: [{NFD}]\n---\nbody\n",
    "Ligature.md": "---\nsubject: build-system\naliases: [\ufb01le notes]\n---\nbody\n",
    "Anchor.md": "---\nsubject: build-system\nx: &a Anchored alias\naliases: [*a]\n---\nbody\n",
    "Nested.md": "---\nsubject: build-system\nmeta:\n  aliases: [Nested alias]\n---\nbody\n",
    "Private.md": "---\nsubject: hiring\naliases: [Templater]\n---\nbody\n",
    "Plain.md": "---\naliases: [Plain alias, Templater]\n---\nno subject\n",
    "Twin one.md": "---\nsubject: build-system\naliases: [Twin]\n---\n",
    "Twin two.md": "---\nsubject: build-system\naliases: [twin]\n---\n",
}
ARGUMENTS = [
    "Templater",
    "templater guide",
    "Templater notes",
    "Café plan",
    "CAFÉ NOTES",
    NFD,
    "a long alias folded over lines",
    "file notes",
    "Anchored alias",
    "Nested alias",
    "Plain alias",
    "Twin",
    "Nowhere alias",
]


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_vault(tmp_path_factory.mktemp("aliases") / "v", ALIASED)


@pytest.mark.parametrize("argument", ARGUMENTS)
def test_an_alias_is_found_as_the_reading_of_every_note_finds_it(vault: Path, argument: str) -> None:
    for mode in ("records", "subjects", "vault"):
        scope = Scope(client="t", vault=vault, exposure=Exposure(mode=mode, subjects=frozenset({"build-system"})))
        assert outcome(reading.read_note, scope, argument, None, 16384) == outcome(
            reference_read, scope, argument, None, 16384
        ), mode


def test_the_aliases_written_in_every_way_are_found_at_all(vault: Path) -> None:
    everything = Scope(client="t", vault=vault, exposure=Exposure(mode="vault"))
    for argument, path in [
        ("Templater notes", "Escaped.md"),
        ("Café notes", "Unicode escape.md"),
        ("Café plan", "Decomposed.md"),
        ("a long alias folded over lines", "Folded.md"),
        ("file notes", "Ligature.md"),
        ("Anchored alias", "Anchor.md"),
    ]:
        assert reading.read_note(everything, argument)["path"] == path, argument


ALIAS_TEXT = st.lists(
    st.sampled_from(["a", "B", " ", "é", "e\u0301", "\ufb01", "ß", "K", "\u212a", "-"]), min_size=1, max_size=12
).map("".join)


@given(ALIAS_TEXT, st.sampled_from(["[{}]", "\n  - {}", ' "{}"', " '{}'", " {}"]))
def test_a_note_with_an_alias_always_passes_the_byte_test_for_it(alias: str, written: str) -> None:
    data = f"---\naliases:{written.format(alias)}\n---\nbody\n".encode()
    note = parse_note("A.md", data, 0)
    for found in getattr(note, "aliases", ()):
        assert alias_filter(fold(found))(data), found
