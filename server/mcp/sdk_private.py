"""The MCP SDK's private parts we use, each in one place, because the SDK has no public way yet.

- `lowlevel_server`: the low-level server inside an `MCPServer`, to run it over streams of our
  own (stdio.py answers the lines the SDK's stdio transport would drop; delivery.py watches
  what is written).  `MCPServer.run_stdio_async` runs it only over the SDK's own streams.
- `protocol_versions`: the protocol versions the SDK negotiates in `initialize`, read from its
  `mcp_types/version.py` by itself, without `mcp_types`' package (which loads every protocol
  model): early_initialize.py answers `initialize` before the SDK is loaded.
- `logging_left_alone`: `MCPServer.__init__` calls its module's `configure_logging`, which
  imports rich (when installed) and makes a console and a handler for `logging.basicConfig`,
  which drops them when the process configured logging already — as `serve` and `http` do
  before they make their server.  Skipped then: rich's import was ~87 % of making the server.

(The tests' Streamable HTTP clients take the SDK's private httpx client maker in
tests/support/http_e2e.py.)  tests/server/mcp/test_sdk_private.py fails naming the part when an
SDK release moves one, and the same test keeps every other module off the SDK's private names.  Imports the
SDK only.
"""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.lowlevel.server import Server
    from mcp.server.mcpserver import MCPServer


def lowlevel_server(server: MCPServer) -> Server[Any]:
    """The low-level server an `MCPServer` answers through."""
    lowlevel: Server[Any] = server._lowlevel_server
    return lowlevel


_LOGGING_SETUP = "configure_logging"  # what MCPServer.__init__ calls, in its own module


@contextmanager
def logging_left_alone() -> Iterator[None]:
    """While an `MCPServer` is made: its own logging set-up skipped when the root logger has a
    handler already (it would change nothing then: `basicConfig` leaves such a logger as it is)."""
    from mcp.server.mcpserver import server as module

    if not logging.getLogger().handlers:
        yield
        return
    configure = getattr(module, _LOGGING_SETUP)
    setattr(module, _LOGGING_SETUP, _configured_already)
    try:
        yield
    finally:
        setattr(module, _LOGGING_SETUP, configure)


def _configured_already(level: str = "INFO") -> None:
    """The SDK's `configure_logging` where the process configured logging itself."""


def protocol_versions() -> tuple[tuple[str, ...], str] | None:
    """The versions `initialize` negotiates and the one it counter-offers, as the SDK's
    `mcp_types.version` says; None when the SDK no longer keeps them there as plain data."""
    found = importlib.util.find_spec("mcp_types")
    if found is None or not found.submodule_search_locations:
        return None
    path = Path(next(iter(found.submodule_search_locations))) / "version.py"
    spec = importlib.util.spec_from_file_location("_vault_recall_mcp_versions", path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except (OSError, SyntaxError, ImportError):
        return None
    handshake = getattr(module, "HANDSHAKE_PROTOCOL_VERSIONS", None)
    latest = getattr(module, "LATEST_HANDSHAKE_VERSION", None)
    if not isinstance(handshake, tuple) or not all(isinstance(v, str) for v in handshake):
        return None
    return (handshake, latest) if isinstance(latest, str) else None
