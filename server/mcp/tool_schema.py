"""Each declared tool (recall/tool_declarations.py) as the SDK takes a tool: a function whose
signature carries every argument's type, default, bounds and description, from which the SDK
makes the input schema the model sees and validates the arguments of each call.

The schema promises what the recall layer checks again (answers/arguments.py), for callers
other than MCP; the sentence a value the schema refuses gets is mcp/argument_errors.py's, from
the same declaration.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any, Literal, assert_never

from mcp_types import CallToolResult
from pydantic import Field

from vault_recall.server.recall.tool_contract import Argument, ToolContract


def annotation(argument: Argument) -> Any:
    """The argument's type as pydantic reads it, with its bounds and description."""
    match argument.kind:
        case "whole":
            return Annotated[int, Field(ge=argument.low, le=argument.high, description=argument.about)]
        case "choice":
            return Annotated[Literal.__getitem__(argument.choices), Field(description=argument.about)]
        case "text":
            text: Any = str | None if argument.nullable else str
            return Annotated[text, Field(description=argument.about)]
        case _:
            assert_never(argument.kind)


def signature(contract: ToolContract) -> inspect.Signature:
    parameters = [
        inspect.Parameter(
            a.name,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=inspect.Parameter.empty if a.required else a.default,
            annotation=annotation(a),
        )
        for a in contract.arguments
    ]
    return inspect.Signature(parameters, return_annotation=CallToolResult)


def tool_function(
    contract: ToolContract, answer: Callable[[ToolContract, dict[str, Any]], CallToolResult]
) -> Callable[..., CallToolResult]:
    """A function the SDK registers as the tool: its signature is the declared arguments', and
    it hands them, validated, to `answer`."""

    def run(**arguments: Any) -> CallToolResult:
        return answer(contract, arguments)

    run.__name__ = run.__qualname__ = contract.name
    run.__signature__ = signature(contract)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in run.__signature__.parameters.values()}  # type: ignore[attr-defined]
    run.__annotations__["return"] = CallToolResult
    return run
