"""Each tool's declaration (server/recall/tool_declarations.py) is its contract everywhere: the
schema the SDK advertises, the recall function's parameters, and the one sentence a bad value
gets — the same whether the schema refuses it (MCP) or the recall layer does (every other
caller)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import cast

import anyio
import pytest
from mcp.server.mcpserver.exceptions import ToolError

from vault_recall.server.config.call_scope import ServeOptions
from vault_recall.server.errors import InvalidArgument, show_value
from vault_recall.server.mcp.tools import answer_function, build_server
from vault_recall.server.recall.scope import Scope
from vault_recall.server.recall.tool_contract import Argument, TextFault, ToolContract
from vault_recall.server.recall.tool_declarations import CONTRACTS, TOOLS

# A good value of each required argument, for calls that make one other argument bad.
GOOD: dict[str, object] = {"subject": "build-system", "query": "bazel", "note": "Build decision"}
# A value of each check's problem (its limit filled in).
FAILING: dict[TextFault, Callable[[int], str]] = {
    "blank": lambda limit: " \t",
    "too_long": lambda limit: "x" * (limit + 1),
    "multiline": lambda limit: "a\nb",
    "not_slug": lambda limit: "Build System",
    "not_date": lambda limit: "2026-02-30",
}


def bad_values(contract: ToolContract) -> list[tuple[str, object, str]]:
    """(argument, bad value, the sentence its declaration gives it) for every argument."""
    cases: list[tuple[str, object, str]] = []
    for a in contract.arguments:
        match a.kind:
            case "whole":
                values: list[object] = [a.low - 1, a.high + 1, "lots", 1.5, None]
                if not a.low <= 1 <= a.high:  # the schema reads JSON leniently: true is 1 there
                    values.append(True)
            case "choice":
                values = ["nope", None, 3]
            case "text":
                values = [7, ["a"], {"a": 1}]
        cases += [(a.name, v, a.type_sentence(f"; got {show_value(v)}")) for v in values]
        for check in a.checks:
            value = FAILING[check.fault](check.limit)
            cases.append((a.name, value, a.problem_sentence(check, value, show_value(value))))
    return cases


def arguments_with(contract: ToolContract, name: str, value: object) -> dict[str, object]:
    given = {a.name: GOOD[a.name] for a in contract.arguments if a.required}
    return {**given, name: value}


def test_each_answer_takes_the_declared_arguments_in_order_with_their_defaults() -> None:
    for contract in TOOLS:
        parameters = list(inspect.signature(answer_function(contract.name)).parameters.values())[1:]  # after scope
        assert [p.name for p in parameters] == [a.name for a in contract.arguments], contract.name
        for parameter, argument in zip(parameters, contract.arguments, strict=True):
            if argument.required:
                assert parameter.default is inspect.Parameter.empty, (contract.name, argument.name)
            else:
                assert parameter.default == argument.default, (contract.name, argument.name)


def test_each_schema_says_what_its_declaration_says() -> None:
    tools = {tool.name: tool for tool in anyio.run(build_server(ServeOptions(client="docs")).list_tools)}
    assert list(tools) == [contract.name for contract in TOOLS]
    for contract in TOOLS:
        schema = tools[contract.name].input_schema
        assert list(schema["properties"]) == [a.name for a in contract.arguments]
        assert schema.get("required", []) == [a.name for a in contract.arguments if a.required]
        for a in contract.arguments:
            field = schema["properties"][a.name]
            assert field["description"] == a.about
            assert field.get("default", a.default) == a.default
            assert (field.get("minimum"), field.get("maximum")) == (
                (a.low, a.high) if a.kind == "whole" else (None, None)
            )
            assert tuple(field.get("enum", ())) == a.choices


@pytest.mark.parametrize("contract", TOOLS, ids=lambda c: c.name)
def test_a_bad_value_gets_its_declared_sentence_from_the_recall_layer(contract: ToolContract) -> None:
    cases = bad_values(contract)
    for name, value, sentence in cases:
        # The checks come first: no scope is read before every argument has passed.
        with pytest.raises(InvalidArgument) as refused:
            answer_function(contract.name)(cast(Scope, None), **arguments_with(contract, name, value))
        assert str(refused.value) == sentence
    assert len(cases) >= 3 * len(contract.arguments)


@pytest.mark.parametrize("contract", TOOLS, ids=lambda c: c.name)
def test_a_bad_value_gets_the_same_sentence_over_mcp(contract: ToolContract) -> None:
    server = build_server(ServeOptions(client="cursor"))
    try:
        for name, value, sentence in bad_values(contract):
            with pytest.raises(ToolError) as refused:
                anyio.run(server.call_tool, contract.name, arguments_with(contract, name, value))
            assert str(refused.value) == f"Error executing tool {contract.name}: {sentence}", (name, value)
    finally:
        server.activity.close()


def test_a_required_argument_left_out_is_named() -> None:
    server = build_server(ServeOptions(client="cursor"))
    required = [(c.name, a.name) for c in TOOLS for a in c.arguments if a.required]
    assert required  # the loop below checks something
    try:
        for tool, name in required:
            arguments = {k: v for k, v in arguments_with(CONTRACTS[tool], name, None).items() if k != name}
            with pytest.raises(ToolError) as refused:
                anyio.run(server.call_tool, tool, arguments)
            assert str(refused.value) == f"Error executing tool {tool}: {name} is required"
    finally:
        server.activity.close()


def test_a_declared_argument_reads_as_the_docs_promise() -> None:
    # The sentences tests/e2e/test_arguments.py and docs/tools.md quote, byte for byte.
    budget = cast(Argument, CONTRACTS["recall_context"].argument("budget"))
    assert budget.type_sentence("; got 3") == "budget must be a whole number from 512 to 65536; got 3"
    match = cast(Argument, CONTRACTS["recall_context"].argument("match"))
    assert match.type_sentence("; got null") == "match must be 'any' or 'all'; got null"
