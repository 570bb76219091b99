"""list_subjects counts the plainest records from their bytes (record_tally.py): whatever it
counts must be exactly the record the full reading makes — or it must step aside."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from tests.support.synthetic_vault import generate, generate_realistic
from tests.support.tricky_notes import TRICKY
from tests.support.vaults import write_vault
from tests.support.whole_vault import scan_vault
from tests.support.yaml_blocks import SCALARS
from vault_recall.server.obsidian.note import InvalidNote, parse_note
from vault_recall.server.recall.answers import subjects
from vault_recall.server.recall.finding.record_tally import RecordFacts, Tally, plain_note
from vault_recall.server.recall.finding.scan import each_tally
from vault_recall.server.recall.records import MemoryRecord, as_record
from vault_recall.server.recall.scope import Exposure, ExposureMode, Scope
from vault_recall.server.vault import note_files
from vault_recall.server.vault.listing import VaultListing, list_notes


def full_reading(data: bytes) -> tuple[tuple[str, ...], str, str] | None:
    """(subjects, status, kind) of the valid record the full reading makes of these bytes."""
    parsed = parse_note("Note.md", data, 0)
    if isinstance(parsed, InvalidNote):
        return None
    record = as_record(parsed)
    return (record.subjects, record.status, record.kind) if isinstance(record, MemoryRecord) else None


def plain_record(data: bytes, length: int) -> RecordFacts | None:
    """The record the plainest-block reading counts of a whole note (None: unsure, or none)."""
    plain = plain_note(data, length)
    return None if plain is None else plain.record


def agrees(data: bytes) -> bool:
    counted = plain_record(data, len(data))
    return counted is None or counted == full_reading(data)


# Values for the four properties the record rules read, good and bad, as YAML may spell them.
SUBJECTS = [
    "build-system",
    "hiring",
    "a",
    "123",
    "null",
    "yes",
    "1e3",
    "Bad Slug",
    "hiring'",
    "'hiring'",
    '"hiring"',
    "[hiring, security]",
    "[hiring, hiring]",
    "[hiring,security]",
    "[hiring, 12]",
    "[]",
    "build_system",
    "-x",
    "x" * 65,
    "ünïcode",
]
STATUSES = ["active", "archived", "Active", "'active'", "null", "done", "active ", "[active]"]
KINDS = ["decision", "event", "Event", '"event"', "note"]
DATES = ["2026-01-05", "2026-02-30", "2026-1-5", '"2026-01-05"', "2026-01-05T10:00", "[2026-01-05]", "20260105"]
NAMES = ["status", "kind", "date", "tags", "aliases", "created", "related", "x-y", "_private", "Subject"]
ODD_NAMES = ["true", "Null", "2024", "a b", "ü", "subject", "status"]  # the last two: duplicates


GOOD = {
    "subject": ["build-system", "hiring", "[hiring, security]"],
    "status": ["active", "archived"],
    "kind": ["decision"],
    "date": ["2026-01-05"],
}
PLAIN = [
    "cache",
    "Straße Canary 01626",
    '"[[Ωmega 01272]]"',
    "[storage, index/dashboard]",
    "2025-03-24",
    "'x'",
    "https://example.com/a_b?c=d&e=f#top",
    "https://m.media-amazon.com/images/M/MV5B@._V1_SX300.jpg",
    "Ridley Scott (1982)",
    "[]",
    # What real vaults write on a line of their own: commas, quotes inside, marks and emoji.
    "Erika Gozar, Juanjo Arranz",
    "Albert O'Shea",
    'Federico "Edo" Granata',
    "Johnny \u2728",
    "the app\u2019s look; a <b> c",
    "\U0001f5c2\ufe0f People",
    "no\u00a0break",
]
ODD_PLAIN = [
    *("x:", "a: b", "a:b", "a :b", "a:: b", "a:[b]", "x:\ty", "10:30", "a # b", "a#b", "@x", "!x", "*x"),
    *(
        "a,",
        "'a' b",
        '"a" b',
        "a, b: c",
        "x\u2028y",
        "x\u0085y",
        "x\ufeffy",
        "x\ufffey",
        "x\uffffy",
        "x\u0080y",
        "> x",
        "| x",
        "%x",
    ),
]


def rarely(draw: st.DrawFn, usual: list[str], odd: list[str]) -> str:
    """Mostly one of `usual`, one time in eight one of `odd`: most notes drawn must be plain
    enough to be counted, and the rest one odd piece away from it."""
    return draw(st.sampled_from(odd)) if draw(st.integers(0, 7)) == 0 else draw(st.sampled_from(usual))


@st.composite
def property_lines(draw: st.DrawFn, name: str) -> list[str]:
    odd_values = {"subject": SUBJECTS, "status": STATUSES, "kind": KINDS, "date": DATES}.get(name, [])
    odd_values = odd_values + SCALARS + ODD_PLAIN * 8  # the near misses of the line grammar, often
    value = rarely(draw, GOOD.get(name, PLAIN), odd_values)
    shape = rarely(draw, ["line"], ["block", "alone", "odd"])
    if shape == "line":
        return [f"{name}:{rarely(draw, [' '], ['  ', ''])}{value}{rarely(draw, [''], [' ', '  '])}"]
    if shape == "alone":
        return [f"{name}:"]
    if shape == "block":
        indents = draw(st.lists(st.sampled_from(["  "] * 6 + ["", " ", "    "]), min_size=1, max_size=3))
        usual_items = ["build-system", "hiring", "Überblick 916", "12", "null", '"[[People]]"', "", "https://x.y/z"]
        items = st.sampled_from(usual_items) | st.sampled_from(SCALARS) | st.sampled_from(ODD_PLAIN)
        colon = rarely(draw, [":"], [": ", ":  "])
        return [f"{name}{colon}"] + [f"{indent}- {draw(items)}".rstrip(rarely(draw, [""], [" "])) for indent in indents]
    return [draw(st.sampled_from(["", "# note", "  nested: 1", "\t", "...", "  continued", "- x", "---x: 1"]))]


@st.composite
def notes(draw: st.DrawFn) -> bytes:
    names = draw(st.lists(st.sampled_from(NAMES), max_size=4, unique=True))
    if not draw(st.integers(0, 7)):
        names.insert(draw(st.integers(0, len(names))), draw(st.sampled_from(ODD_NAMES)))
    if draw(st.integers(0, 7)):
        names.insert(draw(st.integers(0, len(names))), "subject")
    lines = [line for name in names for line in draw(property_lines(name))]
    newline = rarely(draw, ["\n", "\r\n"], ["\r", "\n\r"])
    opening = rarely(draw, ["---"], ["--- ", "----"])
    closing = rarely(draw, ["---"], ["--- ", "...", "---x"])
    text = newline.join([opening, *lines, closing]) + rarely(draw, [newline], [""])
    body = draw(st.sampled_from(["# Title\n\nbody\n", "", "café ☕\n", "\u2028 odd break\n"]))
    bom = rarely(draw, ["", "\ufeff"], ["\ufeff\ufeff"])
    return (bom + text + body).encode("utf-8") + rarely(draw, [""], ["\xff not UTF-8\n"]).encode("latin-1")


@given(notes())
def test_a_counted_note_is_the_record_the_full_reading_makes(data: bytes) -> None:
    assert agrees(data), (data, plain_record(data, len(data)), full_reading(data))
    if plain_note(data, len(data)) is not None:  # a plain block is always one YAML reads
        assert not isinstance(parse_note("Note.md", data, 0), InvalidNote), data


def _holds_a_number(value: object) -> bool:
    if isinstance(value, list):
        return any(_holds_a_number(item) for item in value)
    if isinstance(value, dict):
        return any(_holds_a_number(item) for item in value.values())
    return isinstance(value, int | float) and not isinstance(value, bool)


# Numbers in each place a value can stand: the lines the grammar's rule must see.
NUMBERED = [
    b"---\ntags: [1e3, 0x1F]\n---\n",
    b"---\ntags: [a, 12]\n---\n",
    b"---\naliases:\n  - 1e400\n---\n",
    b"---\nrank:  7\n---\n",
    b"---\r\nrank: 7\r\n---\r\n",
]


@example(NUMBERED[0])
@example(NUMBERED[1])
@example(NUMBERED[2])
@example(NUMBERED[3])
@example(NUMBERED[4])
@given(notes())
def test_a_plain_block_said_to_hold_no_number_holds_none_to_the_full_reading(data: bytes) -> None:
    # unheld.py counts a note without parsing it only when no value could be a number, whose
    # text ('0x1F': '31') need not be in the bytes: that must be what YAML reads.
    plain = plain_note(data, len(data))
    assume(plain is not None)
    assert plain is not None
    parsed = parse_note("Note.md", data, 0)
    assert not isinstance(parsed, InvalidNote)
    assert plain.may_hold_numbers(data) or not _holds_a_number(parsed.properties), data


@pytest.mark.parametrize(
    "data",
    [
        b"---\nsubject: hiring\nsubject: hiring\n---\n",  # a duplicate name: YAML refuses it
        b"---\nsubject: hiring\nkind: event\n---\n",  # an event needs a date
        b"---\nsubject: hiring\ndate: 2026-02-30\n---\n",  # no such day
        b"---\nsubject: hiring\ntrue: 1\n---\n",  # a name YAML reads as a boolean
        b"---\nsubject: hiring\n---\ncaf\xe9\n",  # a body that is not UTF-8
        b"---\nsubject: null\n---\n",
        b"---\nsubject:\n  - hiring\n - security\n---\n",  # items indented unalike
        b"---\nsubject: hiring\nx: a\xc2\x85b\n---\n",  # NEL: a line break to YAML
        b'---\nsubject: hiring\nx: "a\xe2\x80\xa8b"\n---\n',  # a line separator inside quotes
        b'---\nsubject: hiring\nx: "\\u0041"\n---\n',  # an escape
        b"---\nsubject: hiring\nx: 'it''s'\n---\n",
        b"---\nsubject: hiring\n---",  # no line after the closing dashes
        # Text YAML refuses: ': ' inside a plain value, ':' ending it, a reserved first character,
        # an alias never anchored — in a value and in a list item.
        b"---\nsubject: hiring\nx: a: b\n---\n",
        b"---\nsubject: hiring\nx: see:\n---\n",
        b"---\nsubject: hiring\nx: @home\n---\n",
        b"---\nsubject: hiring\nx: `cmd`\n---\n",
        b"---\nsubject: hiring\nx: *nowhere\n---\n",
        b"---\nsubject: hiring\ntags:\n  - see:\n---\n",
        b"---\nsubject: hiring\ntags:\n  - @home\n---\n",
    ],
)
def test_what_the_rules_or_yaml_could_read_otherwise_is_left_to_the_full_reading(data: bytes) -> None:
    assert plain_record(data, len(data)) is None


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"---\nsubject: hiring\n---\n# T\n", (("hiring",), "active", "decision")),
        (
            b"\xef\xbb\xbf---\r\nsubject: [hiring, security, hiring]\r\nstatus: archived\r\n---\r\n",
            (("hiring", "security"), "archived", "decision"),
        ),
        (
            b"---\ncreated: 2025-01-13\naliases:\n  - \xc3\x9cberblick 916\nsubject:\n- build-system\n"
            b'related: "[[\xce\xa9mega 01272]]"\nkind: event\ndate: 2026-03-01\n---\n',
            (("build-system",), "active", "event"),
        ),
        (b"---\nsubject: hiring\ntags:\ndate: 2024-02-29\n---\ncaf\xc3\xa9\n", (("hiring",), "active", "decision")),
        # A quoted slug is text, whatever it spells (note_bytes.slugs_named, as the prefilter reads it).
        (b"---\nsubject: '123'\n---\n", (("123",), "active", "decision")),
        # Blanks after the dashes: the delimiter lines every reader takes from note_bytes.
        (b"--- \nsubject: hiring\n---\t\r\nbody\n", (("hiring",), "active", "decision")),
    ],
)
def test_the_plainest_records_are_counted_from_their_bytes(data: bytes, expected: tuple[object, ...]) -> None:
    assert plain_record(data, len(data)) == expected == full_reading(data)


@pytest.fixture(scope="module")
def vaults(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("tally")
    synthetic, realistic = root / "synthetic", root / "realistic"
    generate(synthetic, 400, seed=5, invalid=12)
    write_vault(synthetic / "Tricky", TRICKY)
    generate_realistic(realistic, 600, seed=17)
    return synthetic, realistic


def test_generated_notes_agree_and_most_records_are_counted_from_bytes(vaults: tuple[Path, Path]) -> None:
    for vault in vaults:
        records = counted = 0
        for path in list_notes(vault).paths:
            data = (vault / path).read_bytes()
            assert agrees(data), path
            records += full_reading(data) is not None
            counted += plain_record(data, len(data)) is not None
        # The shortcut is what makes list_subjects fast: most records must take it.
        assert records and counted >= 0.9 * records, (vault.name, counted, records)


def _every_record_of_the_full_scan(root: Path, listing: VaultListing, *_: object) -> Iterator[Tally | InvalidNote]:
    full = scan_vault(root)
    yield from full.invalid
    for record in full.records:
        yield Tally(record.subjects, record.status, record.kind, record.note.mtime_ns)


@pytest.mark.parametrize("mode", ["records", "subjects", "vault"])
def test_list_subjects_answers_as_the_full_scan(
    vaults: tuple[Path, Path], mode: ExposureMode, monkeypatch: pytest.MonkeyPatch
) -> None:
    for vault in vaults:
        scope = Scope(client="t", vault=vault, exposure=Exposure(mode=mode, subjects=frozenset({"build-system"})))
        fast = subjects.list_subjects(scope)
        with monkeypatch.context() as patched:
            patched.setattr(subjects, "each_tally", _every_record_of_the_full_scan)
            full = subjects.list_subjects(scope)
        assert fast == full and fast["subjects"]


def test_without_readv_the_tally_is_the_same(vaults: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    vault = vaults[0]
    with_readv = list(each_tally(vault, list_notes(vault)))
    monkeypatch.setattr(note_files, "_HAS_READV", False)
    assert list(each_tally(vault, list_notes(vault))) == with_readv


@pytest.mark.parametrize(
    "block",
    [
        "aliases:\n- Erika Gozar, Juanjo Arranz\ntags:\n- \npublish: true\n",  # obsidian-hub's people
        'aliases:\n- Albert O\'Shea\n- Federico "Edo" Granata\n- Johnny \u2728\n',
        "description: Learn how to change parts of the Obsidian app\u2019s appearance, without a theme.\n",
        "permalink: bases\naliases:\n  - Bases\ndescription: Edit, sort, and filter files; views <b>.\r\n",
        "title: \U0001f5c2\ufe0f People\n",
    ],
)
def test_what_real_vaults_write_on_a_line_is_of_the_plainest_shape(block: str) -> None:
    """Commas, quotes inside, '’', emoji: plain text to YAML on a line of its own, so such a
    note is told from its bytes — as the valid ordinary note the full reading makes."""
    data = f"---\n{block}---\nbody\n".encode()
    assert plain_note(data, len(data)) is not None
    assert not isinstance(parse_note("Note.md", data, 0), InvalidNote)
