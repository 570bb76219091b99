"""Generated property blocks full of YAML's edge cases, and YAML's own reading of them: what the
flat reading (server/obsidian/flat_properties.py), the strict YAML 1.2 reading and the record
tally are each checked against."""

from __future__ import annotations

from hypothesis import strategies as st

from vault_recall.server.errors import PropertiesError
from vault_recall.server.obsidian.properties import parse_yaml_properties

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
