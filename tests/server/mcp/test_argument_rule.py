"""The rule for arguments a tool does not take: near-misses of ours are refused, the rest ignored."""

from __future__ import annotations

from typing import Any

import pytest

from vault_recall.server.mcp.argument_errors import resembles, unknown_arguments

SCHEMA: dict[str, Any] = {"properties": {"subject": {}, "query": {}, "budget": {}, "limit": {}, "match": {}}}
OURS = ["subject", "query", "budget", "limit", "match", "on_or_after", "note", "section"]


@pytest.mark.parametrize(
    ("name", "meant"),
    [
        ("budjet", "budget"),  # one letter wrong
        ("bugdet", "budget"),  # two letters swapped
        ("Budget", "budget"),  # another case
        ("BUDGET", "budget"),
        ("limt", "limit"),  # one letter missing
        ("limits", "limit"),
        ("subjet", "subject"),
        ("querry", "query"),
        ("onOrAfter", "on_or_after"),  # another spelling of one of ours
        ("on-or-after", "on_or_after"),
        ("budget_bytes", "budget"),  # holds one of ours
        ("max_limit", "limit"),
        ("notes", "note"),
    ],
)
def test_a_near_miss_of_one_of_our_parameters_resembles_it(name: str, meant: str) -> None:
    assert resembles(name, meant)


@pytest.mark.parametrize("name", ["wait_for_previous", "explanation", "depth", "top_k", "id", "_meta", "", "x" * 100])
def test_a_name_of_the_clients_own_resembles_none_of_ours(name: str) -> None:
    assert not any(resembles(name, ours) for ours in OURS)


def test_a_near_miss_is_refused_by_name_with_what_the_tool_takes() -> None:
    verdict = unknown_arguments("recall_context", {"subject": "s", "budjet": 1}, SCHEMA, OURS)
    assert verdict.refusal == (
        "recall_context does not take 'budjet' (did you mean 'budget'?); it takes subject, query, budget, limit, match"
    )


def test_another_tools_parameter_is_refused_without_a_guess() -> None:
    verdict = unknown_arguments("recall_context", {"section": "Why"}, SCHEMA, OURS)
    assert verdict.refusal is not None
    assert "does not take 'section';" in verdict.refusal


def test_a_clients_own_argument_is_ignored_and_dropped() -> None:
    verdict = unknown_arguments("recall_context", {"subject": "s", "wait_for_previous": True}, SCHEMA, OURS)
    assert verdict.refusal is None
    assert verdict.ignored == ("wait_for_previous",)


def test_known_arguments_alone_are_neither_refused_nor_ignored() -> None:
    assert unknown_arguments("recall_context", {"subject": "s", "limit": 2}, SCHEMA, OURS) == (
        unknown_arguments("recall_context", {}, SCHEMA, OURS)
    )


def test_a_ten_megabyte_name_gives_a_short_sentence() -> None:
    verdict = unknown_arguments("recall_context", {"budget" + "y" * 10_000_000: 1}, SCHEMA, OURS)
    assert verdict.refusal is not None
    assert len(verdict.refusal) < 200


def test_a_ten_megabyte_name_of_the_clients_own_is_ignored() -> None:
    verdict = unknown_arguments("recall_context", {"z" * 10_000_000: 1}, SCHEMA, OURS)
    assert verdict.refusal is None


def test_many_refused_names_are_counted_past_the_first_few() -> None:
    names = {f"limit{i}": i for i in range(40)}
    verdict = unknown_arguments("recall_context", names, SCHEMA, OURS)
    assert verdict.refusal is not None
    assert "'limit0' (did you mean 'limit'?), 'limit1', 'limit2', 'limit3', 'limit4', 35 more;" in verdict.refusal
    assert len(verdict.refusal) < 200


def test_more_unknown_names_than_any_client_adds_are_refused_together() -> None:
    names = {f"x{i}": i for i in range(10_000)}
    verdict = unknown_arguments("recall_context", names, SCHEMA, OURS)
    assert verdict.refusal == (
        "recall_context does not take 'x0', 'x1', 'x2', 'x3', 'x4', 9,995 more; "
        "it takes subject, query, budget, limit, match"
    )
