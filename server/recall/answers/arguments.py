"""Checks of tool arguments, as each tool's declaration (recall/tool_declarations.py) says:
each failure is the one sentence declared for it, naming the argument and what is allowed.

The MCP layer's schema refuses most of these before a call gets here; the checks are made
again for every other caller (the CLI, the benchmarks, tests calling the recall layer)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import assert_never

from vault_recall.server.errors import InvalidArgument, show_value
from vault_recall.server.recall.ranking.words import query_words
from vault_recall.server.recall.records import SUBJECT_PATTERN, is_calendar_date
from vault_recall.server.recall.tool_contract import Argument, TextFault, ToolContract


def check_arguments(contract: ToolContract, values: Mapping[str, object]) -> None:
    """Raise InvalidArgument with the sentence of the first argument, in the declared order,
    whose value is bad: of the wrong type or out of range (the sentence the MCP layer gives when
    the schema refuses it), or text that fails one of its checks.  Text left out (None, where
    the argument may be left out) has nothing to check."""
    for argument in contract.arguments:
        value = values[argument.name]
        if argument.nullable and value is None:
            continue
        match argument.kind:
            case "whole":
                if isinstance(value, bool) or not isinstance(value, int) or not argument.low <= value <= argument.high:
                    raise InvalidArgument(argument.type_sentence(f"; got {show_value(value)}"))
            case "choice":
                if value not in argument.choices:
                    raise InvalidArgument(argument.type_sentence(f"; got {show_value(value)}"))
            case "text":
                if not isinstance(value, str):
                    raise InvalidArgument(argument.type_sentence(f"; got {show_value(value)}"))
                _check_text(argument, value)
            case _:
                assert_never(argument.kind)


def _check_text(argument: Argument, value: str) -> None:
    for check in argument.checks:
        if _has(check.fault, value, check.limit):
            raise InvalidArgument(argument.problem_sentence(check, value, show_value(value)))


def _has(fault: TextFault, value: str, limit: int) -> bool:
    match fault:
        case "blank":
            return not value.strip()
        case "too_long":
            return len(value) > limit
        case "multiline":
            return "\n" in value
        case "not_slug":
            return not SUBJECT_PATTERN.fullmatch(value)
        case "not_date":
            return not is_calendar_date(value)
        case _:
            assert_never(fault)


def query_text(query: str | None) -> str | None:
    """The query to match, or None for none: no query, or one with no words (letters or digits)."""
    return query if query is not None and query_words(query) else None
