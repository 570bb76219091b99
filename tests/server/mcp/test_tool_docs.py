"""What the model reads about each tool: paragraphs, never our source's line breaks."""

from __future__ import annotations

import re

import anyio

from vault_recall.server.config.call_scope import ServeOptions
from vault_recall.server.mcp.tools import as_paragraphs, build_server


def test_every_tool_description_is_paragraphs_each_on_one_line() -> None:
    tools = anyio.run(build_server(ServeOptions(client="docs")).list_tools)
    assert len(tools) == 6
    for tool in tools:
        text = tool.description or ""
        paragraphs = text.split("\n\n")
        assert len(paragraphs) >= 2, tool.name
        for paragraph in paragraphs:
            assert paragraph and "\n" not in paragraph, (tool.name, paragraph)
            assert paragraph == paragraph.strip() and "  " not in paragraph, (tool.name, paragraph)
        assert max(len(p) for p in paragraphs) > 100, tool.name  # not wrapped at any width


def test_a_wrapped_docstring_becomes_paragraphs() -> None:
    doc = """First line
        goes on here.

        Second paragraph
        also wraps.
        """
    assert as_paragraphs(doc) == "First line goes on here.\n\nSecond paragraph also wraps."


def test_the_instructions_are_paragraphs_too() -> None:
    from vault_recall.server.mcp.instructions import INSTRUCTIONS

    assert not re.search(r"[^\n]\n[^\n]", INSTRUCTIONS)
