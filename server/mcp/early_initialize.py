"""`initialize` answered before the MCP SDK is loaded.

A client starts `vault-recall serve` and waits for the answer to `initialize` before it lists
the tools; importing the SDK (its two generations of protocol models, its client, its HTTP
parts) takes most of a second, longer than everything else a start does.  So serve.py loads
the SDK on a thread while this module, which imports nothing but the standard library, reads
the first line: when it is an `initialize` the SDK is certain to accept, it is answered here at
once, exactly as the SDK will answer it (tests/server/mcp/test_early_initialize.py checks both,
field by field, over generated requests).  The SDK is then given the same line, so its session
starts as it always does, and its own answer to that id is dropped (stdio.py).

Anything else — another method first, a request whose shape the SDK might refuse, unknown
capability fields of an unknown type — is left to the SDK untouched: only slower, never
answered differently.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from vault_recall.server import __version__
from vault_recall.server.mcp.instructions import INSTRUCTIONS
from vault_recall.server.mcp.sdk_private import protocol_versions

SERVER_NAME = "vault-recall"
# What our MCPServer declares (no list ever changes: the tools are fixed, prompts and resources
# none); tests/server/mcp/test_early_initialize.py compares it with the SDK's own.
CAPABILITIES: dict[str, Any] = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}
_MAX_ID = 2**53 - 1  # JSON numbers every client reads exactly
# Capability fields whose whole value the SDK takes as any object of objects (extensions,
# experimental), or that real clients send empty ({"sampling": {}}): beyond these shapes the
# SDK validates nested types this module does not restate, so it answers itself.
_OBJECT_OF_OBJECTS = ("experimental", "extensions")
_EMPTY_OR_FLAGS = ("sampling", "elicitation")
_CLIENT_INFO_TEXT = ("name", "version", "title", "description", "websiteUrl")


@dataclass(frozen=True)
class EarlyInitialize:
    """The answer to a first line that was an `initialize`: its id, and the line to write."""

    request_id: int | str
    line: bytes


def _is_object_of_objects(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, dict) for v in value.values())


def _capabilities_certain(capabilities: Any) -> bool:
    """Whether the SDK's ClientCapabilities takes `capabilities` (conservatively)."""
    if not isinstance(capabilities, dict):
        return False
    for name, value in capabilities.items():
        if name in _OBJECT_OF_OBJECTS:
            if not _is_object_of_objects(value):
                return False
        elif name in _EMPTY_OR_FLAGS:
            if not _is_object_of_objects(value) or any(inner for inner in value.values()):
                return False
        elif name == "roots":
            if not isinstance(value, dict) or set(value) - {"listChanged"}:
                return False
            if "listChanged" in value and not isinstance(value["listChanged"], bool):
                return False
        else:
            return False  # tasks, or a field this SDK may type: left to it
    return True


def _client_info_certain(info: Any) -> bool:
    if not isinstance(info, dict) or set(info) - set(_CLIENT_INFO_TEXT):
        return False
    return all(isinstance(info.get(key), str) for key in ("name", "version")) and all(
        isinstance(value, str) for value in info.values()
    )


def _request_id(message: dict[str, Any]) -> int | str | None:
    found = message.get("id")
    if isinstance(found, bool):
        return None
    if isinstance(found, int) and -_MAX_ID <= found <= _MAX_ID:
        return found
    return found if isinstance(found, str) else None


def early_initialize(line: bytes) -> EarlyInitialize | None:
    """The answer to `line` when it is an `initialize` request the SDK is certain to accept;
    None for anything else (the SDK then reads it as it reads every line)."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or set(message) != {"jsonrpc", "id", "method", "params"}:
        return None
    if message["jsonrpc"] != "2.0" or message["method"] != "initialize":
        return None
    request_id = _request_id(message)
    params = message["params"]
    if request_id is None or not isinstance(params, dict):
        return None
    if set(params) != {"protocolVersion", "capabilities", "clientInfo"}:
        return None
    asked = params["protocolVersion"]
    if not isinstance(asked, str) or not _capabilities_certain(params["capabilities"]):
        return None
    if not _client_info_certain(params["clientInfo"]):
        return None
    versions = protocol_versions()
    if versions is None:
        return None  # the SDK moved its table: it answers itself
    handshake, latest = versions
    result = {
        "capabilities": CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "protocolVersion": asked if asked in handshake else latest,
        "serverInfo": {"name": SERVER_NAME, "version": __version__},
    }
    answer = {"jsonrpc": "2.0", "id": request_id, "result": result}
    return EarlyInitialize(request_id, json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
