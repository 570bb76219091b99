"""The smallest MCPServer over stdio: the baseline start-up cost of Python plus the SDK."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("baseline")


@server.tool()
def ping() -> str:
    """Answer at once."""
    return "pong"


server.run("stdio")
