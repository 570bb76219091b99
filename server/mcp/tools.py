"""The MCP layer: the server, registering each tool as the recall layer declares it
(recall/tool_declarations.py: its description for the model, its arguments and their checks).

Each call resolves the scope for this call, calls the one pure function its declaration names,
and returns its dict as both structured content and the compact JSON text the budget is
measured on.
"""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Annotated, Any, Literal, assert_never

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from vault_recall.server import __version__
from vault_recall.server.activity.writer import ActivityWriter, Call, record_activity
from vault_recall.server.config.call_scope import ServeOptions
from vault_recall.server.errors import RecallError
from vault_recall.server.mcp.argument_errors import describe_validation_error, unknown_arguments
from vault_recall.server.mcp.delivery import AtOnce, Delivery
from vault_recall.server.mcp.early_initialize import SERVER_NAME
from vault_recall.server.mcp.instructions import CHANGED_SINCE_NOTE, INSTRUCTIONS
from vault_recall.server.mcp.sdk_private import logging_left_alone
from vault_recall.server.recall.tool_contract import Argument, ToolContract
from vault_recall.server.recall.tool_declarations import CONTRACTS, TOOLS

if TYPE_CHECKING:  # the recall layer is imported on the first call, not to answer `initialize`
    from vault_recall.server.config.config_file import ActivitySettings
    from vault_recall.server.recall.answers.changed_since import HandedOutNotes, Pending
    from vault_recall.server.recall.results import Envelope

READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, destructive_hint=False, open_world_hint=False)


class CallState:
    """One call as its tool function and call_tool share it: who it is for (on stdio always the
    process's --client; the HTTP endpoint serves many clients, one per bearer token), and what
    its answer reserved (changed_since.Pending), for call_tool to hand to the transport, and
    the activity settings of the config the call read, for its event."""

    __slots__ = ("activity", "options", "pending")

    def __init__(self, options: ServeOptions) -> None:
        self.options = options
        self.pending: Pending | None = None
        self.activity: ActivitySettings | None = None


# Set by call_tool, read by the tool function on the worker thread the SDK runs it on
# (contextvars travel there; the object is shared, so what the thread puts in it comes back).
_call_state: ContextVar[CallState | None] = ContextVar("vault_recall_call_state", default=None)


class RecallServer(MCPServer):
    """MCPServer that records one activity event per call and words argument errors as one
    plain sentence instead of pydantic's report."""

    def __init__(self, options: ServeOptions, **kwargs: Any) -> None:
        with logging_left_alone():  # the process's own logging stands (sdk_private.py)
            super().__init__(**kwargs)
        self.options = options
        self.activity = ActivityWriter()
        # How an answer's reservation is settled: at once here; the stdio and HTTP transports
        # put in their own, which commit it only once the answer is handed over.
        self.delivery: Delivery = AtOnce()
        self._handed_out: HandedOutNotes | None = None
        self._handed_out_lock = threading.Lock()

    @property
    def handed_out(self) -> HandedOutNotes:
        """Paths and revisions of the notes each client was given, never text (changed_since.py).
        Made on the first call, so that answering `initialize` imports none of the recall layer."""
        with self._handed_out_lock:
            if self._handed_out is None:
                from vault_recall.server.recall.answers.changed_since import HandedOutNotes

                self._handed_out = HandedOutNotes()
            return self._handed_out

    def options_for(self, context: Context[Any, Any] | None) -> ServeOptions:
        """Who is calling: the process's own --client here; the HTTP endpoint overrides this."""
        return self.options

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        started = time.perf_counter()
        options = self.options_for(context)
        state = CallState(options)
        current = _call_state.set(state)
        outcome: CallToolResult | InputRequiredResult | None = None
        error: str | None = None
        try:
            outcome = await self._call_with_clear_errors(name, arguments, context)
        except ToolError as exc:
            error = str(exc)
            raise
        finally:
            _call_state.reset(current)
            recorded = False
            try:
                result = outcome.structured_content if isinstance(outcome, CallToolResult) else None
                call = Call(options, name, arguments, result, error, started, client_info_of(context), state.activity)
                await self.record(call)
                recorded = True
            finally:
                if state.pending is not None:
                    if outcome is not None and recorded:
                        self.delivery.hold(state.pending, context)  # told once the answer is handed over
                    else:
                        state.pending.release()  # cancelled or failed after it was built: told next time
        return outcome

    async def record(self, call: Call) -> None:
        """Hand the call's activity event to the writer thread, here and now (no await: a call
        cancelled meanwhile is still recorded)."""
        record_activity(self.activity, call)

    async def _call_with_clear_errors(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None
    ) -> CallToolResult | InputRequiredResult:
        schemas = {tool.name: tool.input_schema for tool in await self.list_tools()}
        schema = schemas.get(name)
        if schema is not None:
            unknown = unknown_arguments(name, arguments, schema, our_parameters(schemas.values()))
            if unknown.refusal:
                raise ToolError(f"Error executing tool {name}: {unknown.refusal}")
            if unknown.ignored:  # arguments a client adds for itself: the tool never sees them
                ignored = set(unknown.ignored)
                arguments = {k: v for k, v in arguments.items() if k not in ignored}
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            contract = CONTRACTS.get(name)
            if isinstance(exc.__cause__, ValidationError) and contract is not None:
                sentence = describe_validation_error(exc.__cause__, contract)
                raise ToolError(f"Error executing tool {name}: {sentence}") from None
            raise


def our_parameters(schemas: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every parameter any of our tools takes (a name one of them takes is never ignored)."""
    names: list[str] = []
    for schema in schemas:
        names += list(schema.get("properties", {}))
    return list(dict.fromkeys(names))


def client_info_of(context: Context[Any, Any] | None) -> tuple[str | None, str | None]:
    """The name and version the client reported (it may report none, or anything)."""
    try:
        params = context.session.client_params if context is not None else None
    except (AttributeError, LookupError, RuntimeError):
        return None, None
    info = getattr(params, "client_info", None)
    if info is None:
        return None, None
    return str(info.name)[:200], str(info.version)[:200]


def as_paragraphs(docstring: str) -> str:
    """A docstring as the model should read it: paragraphs separated by a blank line, each on
    one line, so a client wraps it to its own width instead of showing our source's 88 columns."""
    paragraphs = inspect.cleandoc(docstring).split("\n\n")
    return "\n\n".join(" ".join(line.strip() for line in p.splitlines() if line.strip()) for p in paragraphs)


def as_result(payload: Mapping[str, object]) -> CallToolResult:
    """The result both as structured content and as the compact JSON the budget measures: any
    tool's result (recall/results.py) as JSON, where its type ends."""
    from vault_recall.server.recall.packing import compact_json

    return CallToolResult(content=[TextContent(type="text", text=compact_json(payload))], structured_content=payload)


def build_server(options: ServeOptions, server_class: type[RecallServer] = RecallServer) -> RecallServer:
    """The server with each declared tool (recall/tool_declarations.py) registered."""
    server = server_class(
        options, name=SERVER_NAME, instructions=INSTRUCTIONS, version=__version__, log_level="WARNING"
    )

    def answer(contract: ToolContract, arguments: dict[str, Any]) -> CallToolResult:
        return answer_call(server, options, contract, arguments)

    for contract in TOOLS:
        # The description is what the model reads, as paragraphs (a client wraps them itself).
        description = as_paragraphs(contract.description) + "\n\n" + CHANGED_SINCE_NOTE
        function = tool_function(contract, answer)
        server.add_tool(function, description=description, annotations=READ_ONLY, structured_output=False)
    return server


def answer_call(
    server: RecallServer, options: ServeOptions, contract: ToolContract, arguments: dict[str, Any]
) -> CallToolResult:
    """Answer one call: resolve the scope for it, call the tool's recall function with the
    arguments in their declared order, and tell what changed since with it."""
    from vault_recall.server.config.call_scope import current_call
    from vault_recall.server.recall.answers.changed_since import now_stamp, tell_changes
    from vault_recall.server.vault.vault_settings import one_reading

    fn = answer_function(contract.name)
    values = [arguments[a.name] for a in contract.arguments]
    budget = arguments.get("budget") if contract.budgeted else None
    state = _call_state.get()
    read = current_call(state.options if state is not None else options)
    scope = read.scope
    if state is not None:
        state.activity = read.activity
    started = now_stamp()
    # The answer and the changes told with it see the vault's settings as read once.
    with one_reading():
        try:
            payload = fn(scope, *values)
        except RecallError as exc:
            raise ToolError(str(exc)) from None
        pending = tell_changes(server.handed_out, scope, payload, budget, started)
    if pending is not None:
        if state is None:  # called outside call_tool: nothing stands between answer and caller
            pending.commit()
        else:
            state.pending = pending
    return as_result(payload)


def answer_function(tool: str) -> Callable[..., Envelope]:
    """The recall function answering `tool` (it has the tool's name), its module imported on
    the tool's first call: not to answer `initialize`, and a read_note never waits for the
    ranking only a recall needs."""
    match tool:
        case "recall_context":
            from vault_recall.server.recall.answers.recall_records import recall_context

            return recall_context
        case "recall_activity":
            from vault_recall.server.recall.answers.recall_records import recall_activity

            return recall_activity
        case "list_subjects":
            from vault_recall.server.recall.answers.subjects import list_subjects

            return list_subjects
        case "read_note":
            from vault_recall.server.recall.answers.reading import read_note

            return read_note
        case "search_notes":
            from vault_recall.server.recall.answers.search import search_notes

            return search_notes
        case "get_backlinks":
            from vault_recall.server.recall.answers.backlinks import get_backlinks

            return get_backlinks
    raise LookupError(f"no recall function answers {tool!r}")


# Each declared tool as the SDK takes a tool: a function whose signature carries every
# argument's type, default, bounds and description, from which the SDK makes the input schema
# the model sees and validates each call's arguments.  The schema promises what the recall
# layer checks again (answers/arguments.py) for callers other than MCP; the sentence a value
# the schema refuses gets is argument_errors.py's, from the same declaration.


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
