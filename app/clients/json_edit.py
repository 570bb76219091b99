"""Surgical edits of a JSON config file: set or remove one member of one top-level object, and
leave every other byte exactly as the person (or their client) wrote it.

Strict JSON, unless the client reads its file as JSONC (`comments=True`: opencode): then
comments and trailing commas are read past and kept.  The edit is found on a copy of the text
in which each comment and trailing comma is blanked to spaces — every other byte at the same
place — and made on the text itself.  A file a client reads strictly that holds a comment does
not parse here, and the caller refuses it rather than risk rewriting what it cannot read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from vault_recall.app.app_errors import JsonEditError
from vault_recall.server.config.config_file import no_duplicate_keys
from vault_recall.server.errors import DuplicateKey

_DECODER = json.JSONDecoder()
_WHITESPACE = re.compile(r"[ \t\n\r]*")
# Strings first, so a `//` or a `,}` inside one is left alone.
_COMMENTS = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_TRAILING_COMMAS = re.compile(r'"(?:[^"\\\n]|\\.)*"|,(?=[ \t\n\r]*[}\]])')


def _blanked(text: str) -> str:
    """`text` with its comments and trailing commas turned to spaces (line breaks kept), every
    other character where it was."""

    def blank(match: re.Match[str]) -> str:
        found = match.group()
        return found if found.startswith('"') else re.sub(r"[^\n]", " ", found)

    # An unclosed block comment is left as it is: the JSON parser then says where it is.
    return _TRAILING_COMMAS.sub(blank, _COMMENTS.sub(blank, text))


def _scanned(text: str, comments: bool) -> str:
    return _blanked(text) if comments else text


@dataclass(frozen=True)
class _Member:
    key: str
    key_start: int  # index of the key's opening quote
    value_start: int
    value_end: int  # index just past the value


def _skip(text: str, position: int) -> int:
    match = _WHITESPACE.match(text, position)
    return match.end() if match else position


def _members(text: str, open_brace: int) -> tuple[list[_Member], int]:
    """The members of the object whose '{' is at `open_brace`, and the index of its '}'."""
    members: list[_Member] = []
    position = _skip(text, open_brace + 1)
    if text[position] == "}":
        return members, position
    while True:
        key_start = position
        key, position = json.decoder.scanstring(text, position + 1)  # type: ignore[attr-defined]
        position = _skip(text, position)
        position = _skip(text, position + 1)  # past ':'
        value_start = position
        _, position = _DECODER.raw_decode(text, value_start)
        members.append(_Member(key, key_start, value_start, position))
        position = _skip(text, position)
        if text[position] == "}":
            return members, position
        position = _skip(text, position + 1)  # past ','


def _line_indent(text: str, position: int) -> str:
    line_start = text.rfind("\n", 0, position) + 1
    line = text[line_start:position]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _indent_unit(text: str) -> str:
    for line in text.splitlines():
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) != len(line):
            return line[: len(line) - len(stripped)]
    return "  "


def _render(value: Any, base: str, unit: str, newline: str) -> str:
    return json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", newline + base)


def parse_object(text: str, what: str, comments: bool = False) -> dict[str, Any]:
    """Parse `text` as a JSON object (empty text is an empty object), or raise JsonEditError;
    with `comments`, as JSONC."""
    if not text.strip():
        return {}
    try:
        data = json.loads(_scanned(text, comments), object_pairs_hook=no_duplicate_keys)
    except DuplicateKey as exc:
        raise JsonEditError(
            f"{what} has the key {exc.key!r} twice in one object, so which one counts is unclear; it was left untouched"
        ) from None
    except json.JSONDecodeError as exc:
        raise JsonEditError(
            f"{what} is not plain JSON (line {exc.lineno}: {exc.msg}; comments and trailing commas "
            "are not supported), so it was left untouched"
        ) from None
    if not isinstance(data, dict):
        raise JsonEditError(f"{what} does not hold a JSON object at the top, so it was left untouched")
    return data


def set_member(text: str, container: str, name: str, value: Any, what: str = "the file", comments: bool = False) -> str:
    """`text` with `container.name` set to `value`; everything else byte for byte."""
    data = parse_object(text, what, comments)
    newline = "\r\n" if "\r\n" in text else "\n"
    if not text.strip():
        return json.dumps({container: {name: value}}, indent=2, ensure_ascii=False) + "\n"
    unit = _indent_unit(text)
    scan = _scanned(text, comments)
    top = _skip(scan, 0)
    members, top_close = _members(scan, top)
    holder = next((m for m in members if m.key == container), None)
    if holder is None:
        return _insert(text, top, top_close, members, container, {name: value}, unit, newline)
    if not isinstance(data.get(container), dict):
        raise JsonEditError(f"{what} has '{container}' that is not an object, so it was left untouched")
    inner, inner_close = _members(scan, holder.value_start)
    existing = next((m for m in inner if m.key == name), None)
    if existing is not None:
        if data[container][name] == value:
            return text  # already so: not a byte changes
        base = _line_indent(text, existing.key_start)
        if "\n" not in text.strip():
            return text[: existing.value_start] + json.dumps(value, ensure_ascii=False) + text[existing.value_end :]
        rendered = _render(value, base, unit, newline)
        return text[: existing.value_start] + rendered + text[existing.value_end :]
    return _insert(text, holder.value_start, inner_close, inner, name, value, unit, newline)


def _insert(
    text: str, open_brace: int, close: int, members: list[_Member], key: str, value: Any, unit: str, newline: str
) -> str:
    name = json.dumps(key, ensure_ascii=False)
    if "\n" not in text.strip():
        # A one-line file stays one line.
        member = f"{name}: {json.dumps(value, ensure_ascii=False)}"
        if members:
            return text[: members[-1].value_end] + ", " + member + text[members[-1].value_end :]
        return text[: open_brace + 1] + member + text[close:]
    if members:
        base = _line_indent(text, members[-1].key_start)
        addition = "," + newline + base + name + ": " + _render(value, base, unit, newline)
        return text[: members[-1].value_end] + addition + text[members[-1].value_end :]
    outer = _line_indent(text, open_brace)
    base = outer + unit
    member = newline + base + name + ": " + _render(value, base, unit, newline)
    between = text[open_brace + 1 : close]
    if between.strip():  # comments in an object without members (JSONC): they stay, after ours
        return text[: open_brace + 1] + member + between + text[close:]
    return text[: open_brace + 1] + member + newline + outer + text[close:]


def _commented(text: str, scan: str, open_brace: int, close: int) -> bool:
    """Whether the object between these braces holds comments or trailing commas (JSONC)."""
    return text[open_brace + 1 : close] != scan[open_brace + 1 : close]


def _cut_only_member(text: str, member: _Member) -> str:
    """`text` without an object's only member — its line, and a comma after it — leaving the
    comments beside it, as installing into an object of comments alone put it there."""
    start, end = member.key_start, member.value_end
    line_break = text.rfind("\n", 0, start)
    if line_break >= 0 and not text[line_break + 1 : start].strip(" \t"):
        start = line_break - 1 if line_break > 0 and text[line_break - 1] == "\r" else line_break
    comma = re.match(r"[ \t]*,", text[end:])
    return text[:start] + text[end + (comma.end() if comma else 0) :]


def remove_member(text: str, container: str, name: str, what: str = "the file", comments: bool = False) -> str:
    """`text` without `container.name` (unchanged when it is not there)."""
    data = parse_object(text, what, comments)
    if not isinstance(data.get(container), dict) or name not in data[container]:
        return text
    scan = _scanned(text, comments)
    top = _skip(scan, 0)
    members, _ = _members(scan, top)
    holder = next(m for m in members if m.key == container)
    inner, inner_close = _members(scan, holder.value_start)
    index = next(i for i, m in enumerate(inner) if m.key == name)
    target = inner[index]
    if len(inner) == 1:
        if _commented(text, scan, holder.value_start, inner_close):
            return _cut_only_member(text, target)
        return text[: holder.value_start] + "{}" + text[inner_close + 1 :]
    if index > 0:
        return text[: inner[index - 1].value_end] + text[target.value_end :]
    return text[: target.key_start] + text[inner[1].key_start :]


def remove_top_member(text: str, key: str, what: str = "the file", comments: bool = False) -> str:
    """`text` without the top-level member `key` (unchanged when it is not there)."""
    data = parse_object(text, what, comments)
    if key not in data:
        return text
    scan = _scanned(text, comments)
    top = _skip(scan, 0)
    members, close = _members(scan, top)
    index = next(i for i, m in enumerate(members) if m.key == key)
    target = members[index]
    if len(members) == 1:
        if _commented(text, scan, top, close):
            return _cut_only_member(text, target)
        return text[: top + 1] + text[close:]
    if index > 0:
        return text[: members[index - 1].value_end] + text[target.value_end :]
    return text[: target.key_start] + text[members[1].key_start :]
