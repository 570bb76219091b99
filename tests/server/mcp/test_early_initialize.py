"""`initialize` answered before the SDK is loaded (server/mcp/early_initialize.py) is answered
exactly as the SDK answers it, and only where the SDK is certain to accept it: each generated
request goes to both — our function, and the SDK's own low-level server running our tools in
this process — and wherever ours answers, the SDK must give the same JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import anyio
import mcp_types as types
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp.shared.message import SessionMessage

from vault_recall.server.config.call_scope import ServeOptions
from vault_recall.server.mcp import sdk_private
from vault_recall.server.mcp.early_initialize import early_initialize
from vault_recall.server.mcp.tools import build_server

pytestmark = pytest.mark.anyio


def sdk_answer(line: bytes) -> dict[str, Any] | None:
    """What the SDK writes for `line` as the first message, as JSON; None when it writes nothing."""
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:
        return None  # our stdio.py answers such a line itself, never early_initialize
    server = build_server(ServeOptions(client="first-answer"))
    lowlevel = sdk_private.lowlevel_server(server)
    written: list[dict[str, Any]] = []

    async def run() -> None:
        send_in, read_in = anyio.create_memory_object_stream[SessionMessage | Exception](4)
        send_out, read_out = anyio.create_memory_object_stream[SessionMessage](4)
        async with send_in, read_in, send_out, read_out, anyio.create_task_group() as group:
            group.start_soon(lowlevel.run, read_in, send_out, lowlevel.create_initialization_options())
            await send_in.send(SessionMessage(message))
            with anyio.fail_after(30):
                out = await read_out.receive()
            written.append(json.loads(out.message.model_dump_json(by_alias=True, exclude_unset=True)))
            group.cancel_scope.cancel()

    try:
        anyio.run(run)
    finally:
        server.activity.close()
    return written[0] if written else None


def request(params: Any, request_id: Any = 1, **extra: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params, **extra}).encode()


CLIENT = {"name": "client", "version": "1.0"}
text = st.text(max_size=12)
versions = st.sampled_from(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "1999-01-01", ""])
# Requests as real clients send them: mostly answered early.
usual_capabilities: st.SearchStrategy[dict[str, Any]] = st.fixed_dictionaries(
    {},
    optional={
        "roots": st.just({}) | st.fixed_dictionaries({"listChanged": st.booleans()}),
        "sampling": st.just({}) | st.dictionaries(text, st.just({}), max_size=2),
        "elicitation": st.just({}) | st.fixed_dictionaries({"form": st.just({})}),
        "experimental": st.dictionaries(text, st.dictionaries(text, text | st.integers(), max_size=2), max_size=2),
        "extensions": st.dictionaries(text, st.just({}), max_size=2),
    },
)
usual_client = st.fixed_dictionaries({"name": text, "version": text}, optional={"title": text, "websiteUrl": text})
usual = st.fixed_dictionaries(
    {"protocolVersion": versions, "capabilities": usual_capabilities, "clientInfo": usual_client}
)
# And askew: a field of the wrong type, a capability typed by the SDK that we do not restate.
flags: st.SearchStrategy[dict[str, Any]] = st.dictionaries(text, st.booleans() | st.just({}), max_size=2)
capabilities = st.dictionaries(
    st.sampled_from(["roots", "sampling", "elicitation", "experimental", "extensions", "tasks", "other"]),
    st.just({})
    | st.fixed_dictionaries({"listChanged": st.booleans()})
    | st.fixed_dictionaries({"listChanged": st.just("yes")})
    | st.dictionaries(text, st.just({}) | flags | st.integers(), max_size=2)
    | st.integers()
    | st.none(),
    max_size=4,
)
client_info: st.SearchStrategy[dict[str, Any]] = st.fixed_dictionaries(
    {"name": text | st.integers()},
    optional={"version": text | st.none(), "title": text, "websiteUrl": text, "icons": st.just([])},
)
askew = st.fixed_dictionaries(
    {"protocolVersion": versions | st.integers(), "capabilities": capabilities, "clientInfo": client_info},
    optional={"_meta": st.just({"progressToken": 1})},
)
params = usual | askew
ids = st.integers(min_value=-(2**60), max_value=2**60) | text | st.booleans() | st.none() | st.floats(0, 2)


@given(params=params, request_id=ids)
def test_wherever_initialize_is_answered_early_the_sdk_answers_the_same(params: Any, request_id: Any) -> None:
    line = request(params, request_id)
    ours = early_initialize(line)
    if ours is None:
        return  # the SDK answers it, as it always did
    assert ours.line.endswith(b"\n") and ours.line.count(b"\n") == 1
    assert json.loads(ours.line) == sdk_answer(line)


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25", "2026-07-28", "1999-01-01"])
def test_a_plain_initialize_is_answered_early_in_every_version_the_sdk_would(version: str) -> None:
    line = request({"protocolVersion": version, "capabilities": {"roots": {"listChanged": True}}, "clientInfo": CLIENT})
    ours = early_initialize(line)
    assert ours is not None and ours.request_id == 1
    assert json.loads(ours.line) == sdk_answer(line)


@pytest.mark.parametrize(
    "line",
    [
        request({"protocolVersion": "2025-06-18", "capabilities": {"roots": 5}, "clientInfo": CLIENT}),
        request({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "no version"}}),
        request({"protocolVersion": 7, "capabilities": {}, "clientInfo": CLIENT}),
        request({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": CLIENT}, request_id=True),
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode(),
        b"not json",
        b"",
    ],
)
def test_what_the_sdk_might_refuse_or_is_no_initialize_is_left_to_it(line: bytes) -> None:
    assert early_initialize(line) is None


def test_the_protocol_versions_are_the_sdks_own() -> None:
    from mcp_types import version

    assert sdk_private.protocol_versions() == (version.HANDSHAKE_PROTOCOL_VERSIONS, version.LATEST_HANDSHAKE_VERSION)


def test_answering_initialize_loads_no_part_of_the_sdk() -> None:
    # What makes the early answer early: neither the SDK nor pydantic nor anyio is imported.
    line = request({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": CLIENT})
    program = (
        "import sys\n"
        "from vault_recall.server.mcp.early_initialize import early_initialize\n"
        f"assert early_initialize({line!r})\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types', 'pydantic', 'anyio'))\n"
        "print(loaded)\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"
