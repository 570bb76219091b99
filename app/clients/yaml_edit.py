"""Surgical edits of a YAML config file (Continue, Goose): set or remove our one entry and leave
every other byte exactly as it was — quotes, list indentation, long lines, comments.

A round-trip parser re-emits the whole file in its own style (dropping quotes that change how a
YAML 1.1 reader types `"yes"` or `"1:20"`, re-indenting lists, wrapping long lines), so it is
used here only to find where things are.  The edit itself is on lines: our entry's lines are
replaced, inserted or removed, nothing else.  The caller parses the result again and refuses
it unless everything but our entry is unchanged.
"""

from __future__ import annotations

import io
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from vault_recall.app.app_errors import YamlEditError


def _load(text: str, what: str) -> Any:
    try:
        return YAML(typ="rt").load(text) if text.strip() else None
    except YAMLError as exc:
        first = str(exc).splitlines()[0]
        raise YamlEditError(f"{what} is not valid YAML ({first}), so it was left untouched") from None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_filler(line: str) -> bool:
    """A blank line or a comment: it belongs to no block by its indentation."""
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _block_end(lines: list[str], start: int, column: int, *, list_items: bool = False) -> int:
    """The index just past the block that begins on line `start` and holds what is indented
    deeper than `column` (and, for a list, the further `- ` items at `column`)."""
    last = start
    for index in range(start + 1, len(lines)):
        line = lines[index]
        if _is_filler(line):
            continue
        deeper = _indent(line) > column
        sibling_item = list_items and _indent(line) == column and line.lstrip(" ").startswith("-")
        if not (deeper or sibling_item):
            break
        last = index
    return last + 1


def _render(value: Any, column: int, unit: int) -> list[str]:
    """`value` in block style, each line indented by `column` spaces (a list's dashes at
    `column` itself)."""
    yaml = YAML(typ="rt")
    yaml.width = 1 << 20  # never wrap our own long paths either
    yaml.indent(mapping=unit, sequence=unit, offset=0)
    out = io.StringIO()
    yaml.dump(value, out)
    return [" " * column + line if line else line for line in out.getvalue().splitlines()]


def _unit(lines: list[str]) -> int:
    """The file's own indentation step (2 when it has none yet)."""
    for line in lines:
        if not _is_filler(line) and _indent(line) > 0:
            return min(_indent(line), 8)
    return 2


def _top_key_line(data: CommentedMap, key: str) -> int:
    line, _ = data.lc.key(key)
    return int(line)


def set_entry(text: str, container: str, name: str, entry: dict[str, Any], *, is_list: bool, what: str) -> str:
    """`text` with our entry (`container.name`, or the `container` list item named `name`) set
    to `entry`; every line outside our entry as it was."""
    data = _load(text, what)
    lines = text.split("\n")
    unit = _unit(lines)
    fresh = _render([entry] if is_list else {name: entry}, unit, unit)
    if data is None:
        # Empty or comments only: keep what is there and add the container below it.
        head = text.rstrip("\n") + "\n" if text.strip() else ""
        return head + "\n".join([f"{container}:", *fresh]) + "\n"
    if not isinstance(data, CommentedMap):
        raise YamlEditError(f"{what} does not hold a mapping at the top, so it was left untouched")
    if container not in data:
        end = len(lines) - 1 if lines[-1] == "" else len(lines)
        return "\n".join([*lines[:end], f"{container}:", *fresh]) + "\n"
    holder = data[container]
    key_line = _top_key_line(data, container)
    if holder is None or (isinstance(holder, CommentedMap | CommentedSeq) and not holder):
        # `container:` with nothing, or `container: {}` / `[]`: the children go below it.
        emptied = _without_empty_flow(lines[key_line])
        if emptied is None or _block_end(lines, key_line, _indent(lines[key_line])) != key_line + 1:
            raise YamlEditError(f"{what} has '{container}' laid out in a way this tool cannot edit; it was untouched")
        return "\n".join([*lines[:key_line], emptied, *fresh, *lines[key_line + 1 :]])
    if is_list:
        if not isinstance(holder, CommentedSeq):
            raise YamlEditError(f"{what} has '{container}' that is not a list, so it was left untouched")
        if holder.fa.flow_style():
            raise YamlEditError(f"{what} writes '{container}' on one line ([…]); it was left untouched")
        return _set_list_item(lines, holder, name, entry, unit, what)
    if not isinstance(holder, CommentedMap):
        raise YamlEditError(f"{what} has '{container}' that is not a mapping, so it was left untouched")
    if holder.fa.flow_style():
        raise YamlEditError(f"{what} writes '{container}' on one line ({{…}}); it was left untouched")
    return _set_map_member(lines, holder, name, entry, unit)


def _without_empty_flow(line: str) -> str | None:
    """`key: {}  # note` → `key:  # note`; `key:` and `key:  # note` as they are; else None."""
    key, _, rest = line.partition(":")
    value, hash_mark, comment = rest.partition("#")
    if value.strip() not in ("", "{}", "[]", "null", "~"):
        return None
    return key + ":" + (" " + hash_mark + comment if hash_mark else "")


def _set_map_member(lines: list[str], holder: CommentedMap, name: str, entry: dict[str, Any], unit: int) -> str:
    column = int(holder.lc.key(next(iter(holder)))[1])
    rendered = _render({name: entry}, column, unit)
    if name in holder:
        if isinstance(holder[name], dict) and dict(holder[name]) == entry:
            return "\n".join(lines)
        start = int(holder.lc.key(name)[0])
        end = _block_end(lines, start, column)
        return "\n".join([*lines[:start], *rendered, *lines[end:]])
    last_key = list(holder)[-1]
    end = _block_end(lines, int(holder.lc.key(last_key)[0]), column)
    return "\n".join([*lines[:end], *rendered, *lines[end:]])


def _dash_column(lines: list[str], holder: CommentedSeq, index: int) -> int:
    line = lines[int(holder.lc.item(index)[0])]
    return _indent(line)


def _set_list_item(
    lines: list[str], holder: CommentedSeq, name: str, entry: dict[str, Any], unit: int, what: str
) -> str:
    found = next((i for i, item in enumerate(holder) if isinstance(item, dict) and item.get("name") == name), None)
    if not holder:
        raise YamlEditError(f"{what} has an empty list laid out in a way this tool cannot edit; it was left untouched")
    column = _dash_column(lines, holder, 0)
    if not lines[int(holder.lc.item(0)[0])].lstrip(" ").startswith("-"):
        raise YamlEditError(f"{what} has a list laid out in a way this tool cannot edit; it was left untouched")
    rendered = _render([entry], column, unit)
    if found is not None:
        if dict(holder[found]) == entry:
            return "\n".join(lines)
        start = int(holder.lc.item(found)[0])
        end = _block_end(lines, start, column)
        return "\n".join([*lines[:start], *rendered, *lines[end:]])
    end = _block_end(lines, int(holder.lc.item(len(holder) - 1)[0]), column)
    return "\n".join([*lines[:end], *rendered, *lines[end:]])


def remove_entry(text: str, container: str, name: str, *, is_list: bool, what: str) -> str:
    """`text` without our entry (unchanged when it is not there)."""
    data = _load(text, what)
    if not isinstance(data, CommentedMap):
        return text
    holder = data.get(container)
    lines = text.split("\n")
    if is_list and isinstance(holder, CommentedSeq) and not holder.fa.flow_style():
        found = next((i for i, item in enumerate(holder) if isinstance(item, dict) and item.get("name") == name), None)
        if found is None:
            return text
        start = int(holder.lc.item(found)[0])
        end = _block_end(lines, start, _dash_column(lines, holder, found))
    elif not is_list and isinstance(holder, CommentedMap) and not holder.fa.flow_style() and name in holder:
        start, column = (int(n) for n in holder.lc.key(name))
        end = _block_end(lines, start, column)
    else:
        return text
    return "\n".join([*lines[:start], *lines[end:]])


def remove_container_if_empty(text: str, container: str, what: str) -> str:
    """`text` without `container:` when it holds nothing (no children, no comments under it)."""
    data = _load(text, what)
    if not isinstance(data, CommentedMap) or container not in data or data[container] not in (None, {}, []):
        return text
    lines = text.split("\n")
    start = _top_key_line(data, container)
    if _without_empty_flow(lines[start]) is None or _block_end(lines, start, _indent(lines[start])) != start + 1:
        return text  # something sits under it after all (a comment kept by the person, say)
    return "\n".join([*lines[:start], *lines[start + 1 :]])
