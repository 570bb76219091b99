"""The common properties block — flat `name: value` lines, as Obsidian writes them — read
without YAML, giving exactly what the strict YAML reading in properties.py would give.

Most records look like this:

    subject: build-system
    tags:
      - cache
      - ci
    aliases: [Bazel cache]
    date: 2026-03-01

Reading that through PyYAML's Python constructors is most of the cost of checking a record
(recall must check every record of the asked subject, to say which are broken).  Here each
line is matched against a few shapes whose YAML meaning is certain; the moment a line is
anything else — a comment, a tab, an escape, a nested map, a duplicate name, a value YAML
would resolve to a number we do not model — the answer is `None` and the caller reads
the block with YAML as before.  `tests/server/obsidian/test_flat_properties.py` checks the two readings agree
on generated blocks full of such edge cases.
"""

from __future__ import annotations

import re

from vault_recall.server.obsidian.note_bytes import DATE, KEYWORDS, PROPERTY_NAME
from vault_recall.server.obsidian.values import PropertyValue

# A plain (unquoted) scalar that can only be text: starts with a letter of any script, then
# letters, digits, spaces and a few harmless marks.  No ':', '#', ',', brackets or quotes, so
# it holds no comment, no mapping and nothing YAML would treat as flow syntax ('@' is
# reserved only where a value starts).
_PLAIN = r"[^\W\d_][\w.'/()+&@-]*(?: +[\w.'/()+&@-]+)*"
# Inside quotes on one line: anything YAML accepts there but the quote itself and '\\'
# (escapes are left to YAML).  Excluded besides: control characters, NEL and the Unicode line
# and paragraph separators (YAML line breaks), surrogates, the BOM, U+FFFE and U+FFFF.
_UNQUOTABLE = r"\\\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff"
_INT = r"0|[1-9][0-9]{0,17}"
# One scalar, its kind told by the group that matched: double-quoted text, single-quoted text,
# a date, a decimal integer, plain text.
_SCALAR = rf"\"([^\"{_UNQUOTABLE}]*)\"|'([^'{_UNQUOTABLE}]*)'|({DATE})|({_INT})|({_PLAIN})"

_ENTRY = re.compile(rf"({PROPERTY_NAME}):(?: +(.*))?")
_VALUE = re.compile(_SCALAR)
_FLOW_ITEM = re.compile(rf" *(?:{_SCALAR}) *(,|\Z)")
# An item is a scalar, or nothing (`-` alone: a null item, as templates leave them).
_BLOCK_ITEM = re.compile(rf"( *)-(?: +(?:{_SCALAR}))? *")


def read_flat_properties(yaml_text: str) -> dict[str, PropertyValue] | None:
    """The properties of a flat block, or None when the block needs a real YAML reading."""
    properties: dict[str, PropertyValue] = {}
    lines = yaml_text.split("\n")
    index = 0
    count = len(lines)
    while index < count:
        line = lines[index]
        index += 1
        if not line:
            continue
        entry = _ENTRY.fullmatch(line)
        if entry is None:
            return None
        name = entry.group(1)
        if name in properties:
            return None  # a duplicate is an error YAML words (a keyword name is named as written)
        raw = (entry.group(2) or "").rstrip(" ")
        if raw:
            value = _flow_list(raw) if raw[0] == "[" else _scalar(_VALUE.fullmatch(raw))
            if value is _UNSURE:
                return None
            properties[name] = value  # type: ignore[assignment]
            continue
        # `name:` alone: null, or a block list on the lines below (indented or not).
        items: list[PropertyValue] = []
        indent: str | None = None
        while index < count and (item := _BLOCK_ITEM.fullmatch(lines[index])) is not None:
            if indent is not None and item.group(1) != indent:
                return None
            indent = item.group(1)
            items.append(_typed(item.group(2, 3, 4, 5, 6)))
            index += 1
        if index < count and lines[index].startswith((" ", "-")):
            return None  # something nested or oddly indented follows
        properties[name] = items if indent is not None else None
    return properties


class _Unsure:
    """Marks a value this module will not guess at."""


_UNSURE = _Unsure()


def _flow_list(raw: str) -> list[PropertyValue] | _Unsure:
    if not raw.endswith("]"):
        return _UNSURE
    inner = raw[1:-1].strip(" ")
    items: list[PropertyValue] = []
    position = 0
    # Item after item, each followed by ',' or the end; anything else is not ours to read.
    while position < len(inner):
        found = _FLOW_ITEM.match(inner, position)
        if found is None or (found.group(6) == "," and found.end() == len(inner)):
            return _UNSURE  # not a scalar, or a trailing comma
        items.append(_typed(found.group(1, 2, 3, 4, 5)))
        position = found.end()
    return items


def _scalar(found: re.Match[str] | None) -> PropertyValue | _Unsure:
    return _UNSURE if found is None else _typed(found.group(1, 2, 3, 4, 5))


def _typed(groups: tuple[str | None, ...]) -> PropertyValue:
    double, single, date, integer, plain = groups
    if double is None and single is None and date is None and integer is None and plain is None:
        return None  # an empty list item
    if plain is not None:
        return KEYWORDS.get(plain, plain)  # a keyword is no text
    if integer is not None:
        return int(integer)
    # A date is YAML's date read back as ISO text, or (2026-02-30) text YAML kept as is.
    text = double if double is not None else single if single is not None else date
    assert text is not None
    return text
