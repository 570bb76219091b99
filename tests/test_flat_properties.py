"""The flat reading of properties must give exactly what YAML gives, or step aside (None)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.synthetic_vault import generate
from vault_recall.server.obsidian.flat_properties import read_flat_properties
from vault_recall.server.obsidian.properties import (
    PropertiesError,
    parse_properties,
    parse_yaml_properties,
    split_properties,
)

SAMPLE_VAULT = Path(__file__).resolve().parent.parent / "assets" / "sample-vault"

# Pieces chosen to sit on every edge the flat reading must see: YAML 1.1 keywords, numbers in
# every base, dates real and not, quotes with escapes, comments, flow and block syntax,
# anchors, tags, tabs, control characters and the Unicode line breaks.
PLAIN_NAMES = ["subject", "tags", "aliases", "status", "kind", "date", "a", "_x", "my-key", "y", "Tags"]
NAMES = PLAIN_NAMES * 4 + ["Yes", "null", "on", "two words", "Café", "<<", "?", '"quoted"', "'q'", "1", "a:b", "-x"]
# Values the flat reading takes (each must read as YAML reads it) ...
TAKEN = [
    "build-system",
    "x",
    "Yes",
    "no",
    "ON",
    "off",
    "True",
    "FALSE",
    "null",
    "Null",
    "NULL",
    "nil",
    "0",
    "7",
    "2026-03-01",
    "2026-02-30",
    "0000-01-01",
    "9999-99-99",
    "Café",
    "naïve idea",
    "a b  c",
    "it's",
    "e.g.",
    "a/b",
    "a(x)",
    "a+b",
    "R&D",
    "x-",
    "ｆｕｌｌ",
    '"q"',
    '"a # b"',
    '"x, y"',
    '""',
    "'single'",
    "'a \" b'",
    '"\U0001f600"',
    '" padded "',
    "'[[Plan]]'",
    '"[[Plan|shown]]"',
]
# ... and values it must leave to YAML.
LEFT = [
    "~",
    "012",
    "0x1F",
    "0o17",
    "0b101",
    "1_000",
    "190:20:30",
    "1e3",
    "1.5",
    "-3",
    "+4",
    ".inf",
    ".NaN",
    "2026-1-5",
    "2026-03-01T10:00:00",
    "2026-03-01 10:00",
    "٣",
    '"a\\"b"',
    '"\\u00e9"',
    "'it''s'",
    "''",
    "a # comment",
    "#tag",
    "a: b",
    "a:b",
    "{a: 1}",
    "&anchor x",
    "*alias",
    "!!str 5",
    "!tag x",
    "|",
    ">",
    "-",
    "- x",
    "?",
    "%",
    "@x",
    "`x`",
    "x\ty",
    "\tx",
    "a\x07b",
    "a\x85b",
    "a\u2028b",
    "\ufeffx",
    "\U0001f600",
    "x ",
    " x",
    ",",
    "x,",
    "[",
    "]",
    "a]",
    "[[Plan]]",
    "(x)",
    "a\u00a0b",
    '"a\x85b"',
    '"a\x07b"',
    '"a\ufffeb"',
    "'a\u2028b'",
    '"\ufeffx"',
    '"x\ty"',
]
SCALARS = TAKEN * 3 + LEFT


@st.composite
def flow_list(draw: st.DrawFn) -> str:
    items = draw(st.lists(st.sampled_from(SCALARS), max_size=3))
    separator = draw(st.sampled_from([", "] * 4 + [",", " , ", ",  "]))
    trailing = draw(st.sampled_from([""] * 4 + [",", " "]))
    return "[" + draw(st.sampled_from(["", " "])) + separator.join(items) + trailing + "]"


@st.composite
def block_lines(draw: st.DrawFn) -> list[str]:
    name = draw(st.sampled_from(NAMES))
    shape = draw(st.sampled_from(["scalar"] * 3 + ["flow"] * 2 + ["block"] * 2 + ["empty", "odd"]))
    spaces = draw(st.sampled_from([" "] * 6 + ["  ", ""]))
    trailing = draw(st.sampled_from([""] * 6 + [" ", "  ", "\t"]))
    if shape == "scalar":
        return [f"{name}:{spaces}{draw(st.sampled_from(SCALARS))}{trailing}"]
    if shape == "flow":
        return [f"{name}:{spaces}{draw(flow_list())}{trailing}"]
    if shape == "empty":
        return [f"{name}:{trailing}"]
    if shape == "block":
        indent = draw(st.sampled_from(["", "  ", "    "]))
        indents = draw(st.lists(st.sampled_from([indent] * 8 + ["", "  ", " "]), min_size=1, max_size=3))
        dash = draw(st.sampled_from(["- "] * 6 + ["-  ", "-"]))
        return [f"{name}:"] + [f"{indent}{dash}{draw(st.sampled_from(SCALARS))}" for indent in indents]
    return [draw(st.sampled_from(["", "# a comment", "  nested: 1", "\t", " ", "...", "%YAML 1.1", "  continued"]))]


@st.composite
def blocks(draw: st.DrawFn) -> str:
    lines = [line for part in draw(st.lists(block_lines(), max_size=3)) for line in part]
    return "\n" + "\n".join(lines) + ("\n" if draw(st.booleans()) else "")


def exact(value: object) -> str:
    # repr keeps True apart from 1 and 1 apart from '1'; dict order is YAML's key order.
    return repr(value)


def yaml_reading(text: str) -> str:
    try:
        return exact(parse_yaml_properties(text))
    except PropertiesError as exc:
        return f"error: {exc}"


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blocks())
def test_the_flat_reading_agrees_with_yaml_or_steps_aside(text: str) -> None:
    flat = read_flat_properties(text)
    if flat is not None:
        assert exact(flat) == yaml_reading(text), text


def test_every_piece_in_every_place_reads_as_yaml_reads_it() -> None:
    # Exhaustive over the pieces (the random blocks above combine them): each value as a
    # scalar, in a flow list, in a block list; each name with a plain value.
    checked = 0
    for value in TAKEN + LEFT:
        for text in (f"\nk: {value}\n", f"\nk: [x, {value}]\n", f"\nk: [{value}]\n", f"\nk:\n  - {value}\n"):
            flat = read_flat_properties(text)
            if flat is not None:
                checked += 1
                assert exact(flat) == yaml_reading(text), text
    for name in NAMES:
        flat = read_flat_properties(f"\n{name}: x\n")
        if flat is not None:
            checked += 1
            assert exact(flat) == yaml_reading(f"\n{name}: x\n"), name
    assert checked > 3 * len(TAKEN)  # most of the taken pieces were read flat, in every place


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\nsubject: build-system\n", {"subject": "build-system"}),
        ("\ntags:\n  - cache\n  - ci\n", {"tags": ["cache", "ci"]}),
        ("\ntags:\n- cache\n", {"tags": ["cache"]}),
        ('\naliases: [Bazel cache, "x, y"]\n', {"aliases": ["Bazel cache", "x, y"]}),
        (
            "\ndate: 2026-03-01\nstatus: archived\npriority: 2\n",
            {"date": "2026-03-01", "status": "archived", "priority": 2},
        ),
        ("\ndone: yes\nnote:\n", {"done": "yes", "note": None}),  # YAML 1.2: 'yes' is text
        ("\ndone: true\nYes: on\n", {"done": True, "Yes": "on"}),
        # As templates leave them: empty items, and '@' within a value.
        (
            "\naliases:\n  -\ntags:\n- \n- x\nby: Ann @ Lab\n",
            {"aliases": [None], "tags": [None, "x"], "by": "Ann @ Lab"},
        ),
        ("\n", {}),
    ],
)
def test_common_blocks_are_read_flat(text: str, expected: dict[str, object]) -> None:
    assert read_flat_properties(text) == expected
    assert exact(read_flat_properties(text)) == exact(parse_yaml_properties(text))


@pytest.mark.parametrize(
    "text",
    [
        "\nsubject: a\nsubject: b\n",  # duplicate: YAML's error names the line
        "\nsubject: hiring # a comment\n",
        "\nn: 012\n",  # twelve in YAML 1.2 (octal in 1.1): not a value read flat
        "\nt: 2026-03-01T10:00:00\n",
        '\na: "caf\\u00e9"\n',
        "\nmeta:\n  subject: x\n",
        "\ntags:\n  - a\n - b\n",
        "\nx: [a, b,]\n",
        "\nx:\ty\n",
        "\n" + "k" * 1025 + ": x\n",  # YAML refuses names over 1024 characters
    ],
)
def test_anything_less_plain_is_left_to_yaml(text: str) -> None:
    assert read_flat_properties(text) is None


def _blocks_of(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        try:
            split = split_properties(text)
        except PropertiesError:
            continue
        if split.yaml_text is not None:
            found.append(split.yaml_text)
    return found


def test_the_sample_and_generated_vaults_read_the_same_both_ways(tmp_path: Path) -> None:
    generate(tmp_path / "v", 300, seed=11)
    texts = _blocks_of(SAMPLE_VAULT) + _blocks_of(tmp_path / "v")
    flat = 0
    for text in texts:
        reading = read_flat_properties(text)
        if reading is not None:
            flat += 1
            assert exact(reading) == yaml_reading(text)
        assert exact(parse_properties(text)) == yaml_reading(text)
    # The generated vault writes properties the way Obsidian does: all of them are flat.
    assert flat >= len(texts) - 2
