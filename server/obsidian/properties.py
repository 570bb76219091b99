"""Obsidian properties (YAML frontmatter): split them off a note, parse as Obsidian does
(YAML 1.2), normalize once.

A block is *invalid* here exactly where Obsidian cannot read it either, with the line to fix:
an unterminated block, YAML syntax errors, a duplicate name.  Everything else Obsidian shows is
read: `yes` and `on` are text, a template's `created: {{date}}` is a mapping, a name written as
a number is that text.  Nothing downstream touches raw YAML.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import dataclass
from typing import Any

import yaml
from frontmatter.default_handlers import YAMLHandler

from vault_recall.server.errors import PropertiesError
from vault_recall.server.obsidian.flat_properties import read_flat_properties
from vault_recall.server.obsidian.note_bytes import DELIMITER_LINE, KEYWORDS, TOP_LEVEL_KEY
from vault_recall.server.obsidian.values import PropertyValue

# The C loader is several times faster on large vaults; the pure one behaves the same.
_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class SplitNote:
    """A note's text cut into its properties block (YAML text, or None) and its body."""

    yaml_text: str | None
    body: str


class _ObsidianHandler(YAMLHandler):
    # Obsidian's delimiter line (note_bytes.DELIMITER); python-frontmatter's default also
    # takes '----' and longer.
    FM_BOUNDARY = DELIMITER_LINE


_HANDLER = _ObsidianHandler()


def split_properties(text: str) -> SplitNote:
    """Cut `text` (already decoded, LF line endings, no BOM) into properties and body.

    Raises PropertiesError when the first line opens a block that never closes.
    """
    if not _HANDLER.detect(text):
        return SplitNote(yaml_text=None, body=text)
    try:
        yaml_text, body = _HANDLER.split(text)
    except ValueError:
        raise PropertiesError("the properties block opened by '---' is never closed by a '---' line", 1) from None
    return SplitNote(yaml_text=yaml_text, body=body)


# Booleans and null are the words note_bytes.KEYWORDS names (null is also '~' and nothing).
_NULL_WORDS = [word for word, value in KEYWORDS.items() if value is None]
# Plain scalars YAML 1.2's core schema reads as something other than text — and nothing else:
# `yes`, `on`, `No`, `012:30`, `2020-08-21` are all text, as Obsidian (a YAML 1.2 reader) shows them.
_CORE_RESOLVERS: list[tuple[str, str, str]] = [
    ("tag:yaml.org,2002:bool", "|".join(word for word, value in KEYWORDS.items() if value is not None), "tTfF"),
    ("tag:yaml.org,2002:int", r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", "-+0123456789"),
    (
        "tag:yaml.org,2002:float",
        r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
        "-+.0123456789",
    ),
    ("tag:yaml.org,2002:null", "|".join(("~", *_NULL_WORDS, "")), "~nN"),
]
# Anchors and aliases can make a few lines stand for billions of values ("billion laughs");
# Obsidian's reader stops such a block too.  Past this many values, a block is refused.
MAX_EXPANDED_VALUES = 10_000


class _Yaml12Loader(_BaseLoader):  # type: ignore[misc, valid-type]
    """Reads a properties block as YAML 1.2's core schema, as Obsidian does, refusing only what
    Obsidian refuses too: duplicate property names (and a block whose aliases expand past
    MAX_EXPANDED_VALUES).

    A name that is not text is the text it is written as (`2024: year` names '2024'; a
    template's `{{date}}` is a mapping whose one name is '{date}'), as Obsidian shows it.
    """

    yaml_implicit_resolvers: dict[Any, Any] = {}  # noqa: RUF012 - replaced, never shared with PyYAML's
    yaml_constructors: dict[Any, Any] = {}  # noqa: RUF012

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._text = text

    def construct_document(self, node: yaml.Node) -> Any:
        _check_expansion(node)
        return super().construct_document(node)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        mapping: dict[str, Any] = {}
        for key_node, value_node in node.value:
            name = self._name(key_node)
            if name in mapping:
                raise yaml.constructor.ConstructorError(
                    None, None, f"property {name!r} is defined twice", key_node.start_mark
                )
            mapping[name] = self.construct_object(value_node, deep=deep)
        return mapping

    def _name(self, key_node: yaml.Node) -> str:
        if isinstance(key_node, yaml.ScalarNode):
            key = self.construct_object(key_node, deep=True)
            return key if isinstance(key, str) else str(key_node.value)
        # A collection as a name: the text it is written as.
        return self._text[key_node.start_mark.index : key_node.end_mark.index]

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, KeyError, AttributeError, TypeError, OverflowError):
            # `!!int abc`, `!!bool maybe`: a tag that does not fit its value; the text stays.
            return str(node.value) if isinstance(node, yaml.ScalarNode) else None

    def construct_core_int(self, node: yaml.ScalarNode) -> int:
        value = str(self.construct_scalar(node))
        if value.startswith("0o"):
            return int(value[2:], 8)
        if value.startswith("0x"):
            return int(value[2:], 16)
        return int(value, 10)  # '012' is twelve in YAML 1.2

    def construct_core_float(self, node: yaml.ScalarNode) -> float:
        value = str(self.construct_scalar(node))
        lowered = value.lower()
        if lowered.endswith(".inf"):
            return float("-inf") if lowered.startswith("-") else float("inf")
        if lowered == ".nan":
            return float("nan")
        return float(value)

    def construct_core_bool(self, node: yaml.ScalarNode) -> bool:
        value = str(self.construct_scalar(node)).lower()
        if value not in ("true", "false"):
            raise ValueError(value)  # `!!bool maybe`: the text stays
        return value == "true"

    def construct_as_written(self, node: yaml.Node) -> Any:
        if isinstance(node, yaml.ScalarNode):
            return self.construct_scalar(node)
        if isinstance(node, yaml.SequenceNode):
            return self.construct_sequence(node, deep=True)
        return self.construct_mapping(node, deep=True)  # type: ignore[arg-type]


for _tag, _pattern, _first in _CORE_RESOLVERS:
    _starts = [*_first, ""] if _tag.endswith("null") else list(_first)  # '' resolves the empty value
    _Yaml12Loader.add_implicit_resolver(_tag, re.compile(f"^(?:{_pattern})$"), _starts)
# Core-schema tags a note may also write out (`!!str 5`); any other tag (`!!binary`, `!!set`,
# `!!timestamp`, `!custom`) is kept as the text or collection it is written as, as a YAML 1.2
# reader without those types does.
_Yaml12Loader.add_constructor("tag:yaml.org,2002:str", _Yaml12Loader.construct_yaml_str)
_Yaml12Loader.add_constructor("tag:yaml.org,2002:null", _Yaml12Loader.construct_yaml_null)
_Yaml12Loader.add_constructor("tag:yaml.org,2002:bool", _Yaml12Loader.construct_core_bool)
_Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _Yaml12Loader.construct_core_int)
_Yaml12Loader.add_constructor("tag:yaml.org,2002:float", _Yaml12Loader.construct_core_float)
_Yaml12Loader.add_constructor("tag:yaml.org,2002:seq", _Yaml12Loader.construct_yaml_seq)
_Yaml12Loader.add_constructor("tag:yaml.org,2002:map", _Yaml12Loader.construct_yaml_map)
_Yaml12Loader.add_constructor(None, _Yaml12Loader.construct_as_written)


def _check_expansion(root: yaml.Node) -> None:
    """Refuse a block whose aliases make it stand for more than MAX_EXPANDED_VALUES values, or
    for itself (an alias inside the value it names)."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()

    def size(node: yaml.Node, depth: int) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in on_path:
            raise yaml.constructor.ConstructorError(
                None, None, "an alias (*name) refers to the value it is in", node.start_mark
            )
        if depth > 200:
            raise RecursionError
        on_path.add(key)
        total = 1
        if isinstance(node, yaml.SequenceNode):
            total += sum(size(child, depth + 1) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            total += sum(size(child, depth + 1) for pair in node.value for child in pair)
        on_path.discard(key)
        sizes[key] = total
        if total > MAX_EXPANDED_VALUES:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"anchors and aliases (*name) expand to more than {MAX_EXPANDED_VALUES:,} values",
                node.start_mark,
            )
        return total

    size(root, 0)


def parse_properties(yaml_text: str) -> dict[str, PropertyValue]:
    """Parse a properties block strictly and normalize its values.

    Line numbers in errors count from the note's first line (the opening '---').
    """
    # The common flat block is read without YAML (same result, several times faster); anything
    # that module is not certain about comes back None and is read here.
    flat = read_flat_properties(yaml_text)
    if flat is not None:
        return flat
    return parse_yaml_properties(yaml_text)


def parse_yaml_properties(yaml_text: str) -> dict[str, PropertyValue]:
    """`parse_properties` through YAML always (the reference the flat reading is tested against)."""
    stand_ins = _stand_ins(yaml_text)
    loader = _Yaml12Loader(yaml_text.translate(stand_ins) if stand_ins else yaml_text)
    try:
        loaded = loader.get_single_data()
        if stand_ins:
            loaded = _put_back(loaded, {ord(v): chr(k) for k, v in stand_ins.items()})
    except yaml.MarkedYAMLError as exc:
        mark, problem = _where_and_what(exc)
        # yaml_text starts right after the opening '---', on the note's first line.
        line = mark.line + 1 if mark is not None else 1
        raise PropertiesError(_describe_yaml_problem(problem, yaml_text, line), line) from None
    except yaml.YAMLError as exc:
        raise PropertiesError(f"the properties are not valid YAML ({exc})", 1) from None
    except RecursionError:
        raise PropertiesError("the properties nest too deeply", 1) from None
    finally:
        loader.dispose()
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise PropertiesError("properties must be 'name: value' lines", 2)
    normalized: dict[str, PropertyValue] = {}
    for key, value in loaded.items():
        try:
            normalized[key] = normalize_value(key, value)
        except ValueError as exc:
            raise PropertiesError(str(exc), _line_of_key(yaml_text, key)) from None
        except RecursionError:
            raise PropertiesError(f"property {key!r} nests too deeply", _line_of_key(yaml_text, key)) from None
    return normalized


# YAML 1.1 (libyaml) takes NEL and the Unicode line and paragraph separators for line breaks;
# YAML 1.2 (Obsidian) takes them for ordinary characters.  They are handed to libyaml as
# private-use characters the block does not hold, and put back in what it reads.
_NOT_BREAKS = "\x85\u2028\u2029"


def _stand_ins(text: str) -> dict[int, str] | None:
    if not any(c in text for c in _NOT_BREAKS):
        return None
    free = (chr(code) for code in range(0xE000, 0xF900) if chr(code) not in text)
    return {ord(c): next(free) for c in _NOT_BREAKS}


def _put_back(value: Any, table: dict[int, str]) -> Any:
    """`value` with the stand-ins turned back into the characters they stood for."""
    if isinstance(value, str):
        return value.translate(table)
    if isinstance(value, list):
        return [_put_back(item, table) for item in value]
    if isinstance(value, dict):
        return {_put_back(k, table): _put_back(v, table) for k, v in value.items()}
    return value


# What a '[', '{' or quote opened and never closed is, in the words of the error (PyYAML names
# the construct it was in, and where it started, as the error's context).
_NEVER_CLOSED = {
    "while parsing a flow sequence": "its '[' is never closed with ']'",
    "while parsing a flow mapping": "its '{' is never closed with '}'",
    "while scanning a quoted scalar": "its quote is never closed",
}


def _where_and_what(exc: yaml.MarkedYAMLError) -> tuple[yaml.Mark | None, str]:
    """Where the person's mistake is, and what it is.  A '[' (or '{', or a quote) left open
    is found wrong only where the text stops making sense, often on a later line that is
    fine: `tags: [k8s, argo` on line 3 fails at line 4's `owner:`.  Such an error is placed
    where the construct was opened."""
    context, start, stop = exc.context, exc.context_mark, exc.problem_mark
    never_closed = _NEVER_CLOSED.get(context or "")
    if never_closed is not None and start is not None and stop is not None and stop.line > start.line:
        return start, never_closed
    return stop or start, exc.problem or context or "the properties are not valid YAML"


def _line_of_key(yaml_text: str, key: str) -> int:
    for index, line in enumerate(yaml_text.split("\n")):
        if line.startswith(f"{key}:"):
            return index + 1
    return 2


def _describe_yaml_problem(problem: str, yaml_text: str, line: int) -> str:
    """PyYAML's phrase (terse, but accurate), with the property it is in when one is written
    at or above that line."""
    if "property" in problem:
        return problem
    lines = yaml_text.split("\n")[:line]
    for text in reversed(lines):
        found = TOP_LEVEL_KEY.match(text)
        if found:
            return f"property {found.group(2)!r} is not valid YAML: {problem}"
    return f"invalid YAML in properties: {problem}"


def normalize_value(key: str, value: Any) -> PropertyValue:
    """One normalization for every property value: dates become ISO strings, sets lists.

    Raises ValueError for a type no property can hold (YAML's !!binary, say).
    """
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        # YAML's .nan and .inf have no JSON form: keep them as the text they were written as.
        return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, list | tuple | set):
        items = sorted(value, key=str) if isinstance(value, set) else value
        return [normalize_value(key, item) for item in items]
    if isinstance(value, dict):
        return {str(k): normalize_value(key, v) for k, v in value.items()}
    raise ValueError(f"property {key!r} holds a {type(value).__name__} value, which Obsidian cannot show")
