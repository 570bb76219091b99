"""Obsidian properties (YAML frontmatter): split them off a note, parse strictly, normalize once.

Strict means a note Obsidian would show with broken properties is *invalid* here, with the
line to fix: duplicate keys, non-text keys, an unterminated block, YAML syntax errors, and
values of a type no property can hold.  Nothing downstream touches raw YAML.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import dataclass
from typing import Any

import yaml
from frontmatter.default_handlers import YAMLHandler

from vault_recall.server.obsidian.flat_properties import read_flat_properties
from vault_recall.server.obsidian.values import PropertyValue

# The C loader is several times faster on large vaults; the pure one behaves the same.
_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class PropertiesError(Exception):
    """The properties block is broken; `line` is the 1-based line in the note file."""

    def __init__(self, problem: str, line: int) -> None:
        super().__init__(f"line {line}: {problem}")
        self.problem = problem
        self.line = line


@dataclass(frozen=True)
class SplitNote:
    """A note's text cut into its properties block (YAML text, or None) and its body."""

    yaml_text: str | None
    body: str


class _ObsidianHandler(YAMLHandler):
    # Obsidian only recognizes exactly '---' (trailing blanks allowed) as the delimiter line;
    # python-frontmatter's default also takes '----' and longer.
    FM_BOUNDARY = re.compile(r"^---[ \t]*$", re.MULTILINE)


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


class _StrictLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """SafeLoader that refuses duplicate and non-text keys, reporting where they are."""

    def construct_document(self, node: yaml.Node) -> Any:
        # Anchors and aliases let a few lines expand into billions of values ("billion
        # laughs").  Obsidian never writes them, so a note that uses them is invalid.  An
        # alias shows up as the same node reached twice; the C composer gives no other hook.
        seen: set[int] = set()
        pending = [node]
        while pending:
            current = pending.pop()
            if id(current) in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, "anchors and aliases (*name) are not allowed in properties", current.start_mark
                )
            seen.add(id(current))
            if isinstance(current, yaml.SequenceNode):
                pending.extend(current.value)
            elif isinstance(current, yaml.MappingNode):
                pending.extend(item for pair in current.value for item in pair)
        return super().construct_document(node)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        self.flatten_mapping(node)
        seen: set[str] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                raise yaml.constructor.ConstructorError(
                    None, None, f"property name {key!r} is not text (quote it)", key_node.start_mark
                )
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"property {key!r} is defined twice", key_node.start_mark
                )
            seen.add(key)
        mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return mapping

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        # PyYAML's constructors raise bare ValueError/KeyError/… for values such as `0x_`,
        # `!!int abc` or `!!bool maybe`; give them the line they are on, like any YAML error.
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, KeyError, AttributeError, TypeError, OverflowError) as exc:
            raise yaml.constructor.ConstructorError(
                None, None, f"value {str(node.value)[:40]!r} cannot be read ({type(exc).__name__})", node.start_mark
            ) from None

    def construct_yaml_timestamp(self, node: yaml.ScalarNode) -> Any:
        # `2026-02-30` looks like a date to YAML but is none; keep it as the text it is, and
        # let whoever needs a date say so (PyYAML would raise a bare ValueError here).
        try:
            return super().construct_yaml_timestamp(node)
        except (ValueError, AttributeError, TypeError):
            return self.construct_scalar(node)


_StrictLoader.add_constructor("tag:yaml.org,2002:timestamp", _StrictLoader.construct_yaml_timestamp)


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
    try:
        loaded = _HANDLER.load(yaml_text, Loader=_StrictLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        # yaml_text starts right after the opening '---', on the note's first line.
        line = mark.line + 1 if mark is not None else 1
        problem = exc.problem or exc.context or "the properties are not valid YAML"
        raise PropertiesError(_describe_yaml_problem(problem), line) from None
    except yaml.YAMLError as exc:
        raise PropertiesError(f"the properties are not valid YAML ({exc})", 1) from None
    except RecursionError:
        raise PropertiesError("the properties nest too deeply", 1) from None
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


def _line_of_key(yaml_text: str, key: str) -> int:
    for index, line in enumerate(yaml_text.split("\n")):
        if line.startswith(f"{key}:"):
            return index + 1
    return 2


def _describe_yaml_problem(problem: str) -> str:
    # PyYAML's phrases are terse; keep them (they are accurate) but say what the file is.
    return problem if "property" in problem else f"invalid YAML in properties: {problem}"


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
