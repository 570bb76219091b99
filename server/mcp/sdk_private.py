"""The MCP SDK's private parts we use, each in one place, because the SDK has no public way yet.

- `lowlevel_server`: the low-level server inside an `MCPServer`, to run it over streams of our
  own (stdio.py answers the lines the SDK's stdio transport would drop; delivery.py watches
  what is written).  `MCPServer.run_stdio_async` runs it only over the SDK's own streams.

(The tests' Streamable HTTP clients take the SDK's private httpx client maker in
tests/support/http_e2e.py.)  tests/server/mcp/test_sdk_private.py fails naming the part when an
SDK release moves one, and the same test keeps every other module off the SDK's private names.  Imports the
SDK only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.lowlevel.server import Server
    from mcp.server.mcpserver import MCPServer


def lowlevel_server(server: MCPServer) -> Server[Any]:
    """The low-level server an `MCPServer` answers through."""
    lowlevel: Server[Any] = server._lowlevel_server
    return lowlevel
