"""The MCP SDK's private parts we use are where server/mcp/sdk_private.py takes them, and no
other module of ours touches a private part of the SDK: an SDK release that moves one fails
here, naming it, instead of breaking `serve` or the tests somewhere less clear."""

from __future__ import annotations

import importlib
import inspect
import logging
import re

import pytest

from tests.support.paths import REPO_ROOT
from vault_recall.server.config.call_scope import ServeOptions
from vault_recall.server.mcp import sdk_private
from vault_recall.server.mcp.tools import build_server

# A private module of the SDK (`mcp.shared._httpx_utils`), or a private attribute of its objects
# that we know of: what only sdk_private.py may name.
PRIVATE_MODULE = re.compile(r"\b(?:from|import)\s+mcp(?:_types)?(?:\.\w+)*\._\w+")
PRIVATE_ATTRIBUTES = (
    "configure_logging",
    "_lowlevel_server",
    "_tool_manager",
    "_tool_input_schema",
    "_stream_protocols",
    "_httpx_utils",
)


def test_the_low_level_server_is_inside_an_mcp_server_where_we_take_it() -> None:
    server = build_server(ServeOptions(client="sdk"))
    try:
        assert hasattr(server, "_lowlevel_server"), "the SDK's MCPServer has no _lowlevel_server any more"
        lowlevel = sdk_private.lowlevel_server(server)
        run = inspect.signature(lowlevel.run)
        assert list(run.parameters)[:3] == ["read_stream", "write_stream", "initialization_options"], (
            f"the SDK's low-level Server.run takes {list(run.parameters)} now"
        )
        assert callable(getattr(lowlevel, "create_initialization_options", None)), (
            "the SDK's low-level Server has no create_initialization_options any more"
        )
    finally:
        server.activity.close()


def test_an_mcp_server_made_where_logging_is_configured_leaves_it_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = importlib.import_module("mcp.server.mcpserver.server")
    assert callable(getattr(module, "configure_logging", None)), (
        "mcp.server.mcpserver.server has no configure_logging any more (MCPServer's logging set-up)"
    )
    called: list[str] = []
    monkeypatch.setattr(module, "configure_logging", called.append)
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])
    unconfigured = build_server(ServeOptions(client="sdk"))
    unconfigured.activity.close()
    assert called == ["WARNING"], "the SDK no longer configures logging from MCPServer.__init__"
    monkeypatch.setattr(root, "handlers", [logging.NullHandler()])
    configured = build_server(ServeOptions(client="sdk"))
    configured.activity.close()
    assert called == ["WARNING"]  # left alone: serve and http configure it before
    assert module.configure_logging == called.append  # put back


def test_the_sdk_still_makes_its_http_client_where_we_take_it() -> None:
    try:
        module = importlib.import_module("mcp.shared._httpx_utils")
    except ImportError:
        pytest.fail("the SDK has no mcp.shared._httpx_utils any more (create_mcp_http_client)")
    make = getattr(module, "create_mcp_http_client", None)
    assert make is not None, "mcp.shared._httpx_utils has no create_mcp_http_client any more"
    assert {"headers", "auth"} <= set(inspect.signature(make).parameters)


def test_no_module_but_sdk_private_names_a_private_part_of_the_sdk() -> None:
    # The server's one place, the tests' one place (their HTTP clients), and this test.
    allowed = {
        REPO_ROOT / "server" / "mcp" / "sdk_private.py",
        REPO_ROOT / "tests" / "support" / "http_e2e.py",
        REPO_ROOT / "tests" / "server" / "mcp" / "test_sdk_private.py",
    }
    found = []
    for folder in ("server", "app", "tests", "bench"):
        for path in sorted((REPO_ROOT / folder).rglob("*.py")):
            if path in allowed:
                continue
            text = path.read_text(encoding="utf-8")
            if PRIVATE_MODULE.search(text) or any(f".{name}" in text for name in PRIVATE_ATTRIBUTES):
                found.append(path.relative_to(REPO_ROOT).as_posix())
    assert found == [], "only server/mcp/sdk_private.py (and tests/support/http_e2e.py) may use the SDK's private parts"
