"""The smallest MCPServer over stdio: the baseline cost of Python plus the SDK — to start, and
to answer a read by path (the file's text as it is, nothing checked), the least any Python MCP
server can take for it."""

import json
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent

server = MCPServer("baseline")


@server.tool()
def ping() -> str:
    """Answer at once."""
    return "pong"


@server.tool(structured_output=False)
def read(path: str) -> CallToolResult:
    """The text of the file at this absolute path, as text and as structured content (as
    Vault Recall's read_note answers)."""
    answer = {"path": path, "text": Path(path).read_text(encoding="utf-8")}
    compact = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=compact)], structured_content=answer)


server.run("stdio")
