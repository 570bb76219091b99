"""How a query picks records — recall_context's `match` — apart from the ranking itself: the
MCP layer declares the argument with it before a call needs the ranking (mcp/tool_arguments.py),
and `serve` answers `initialize` without importing that."""

from __future__ import annotations

from typing import Literal

# "any": the records ranked (relevance.Ranked); "all": those holding every word as written
# (relevance.Strict).
MatchMode = Literal["any", "all"]
