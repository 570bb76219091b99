"""Talking to real `vault-recall serve` subprocesses through the MCP SDK's stdio client."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import CallToolResult, TextContent

from tests.support.paths import SAMPLE_VAULT


def vault_recall_command() -> list[str]:
    """The installed console script beside this interpreter (what client configs launch)."""
    script = Path(sys.executable).with_name("vault-recall")
    return [str(script)] if script.exists() else [sys.executable, "-m", "vault_recall.app"]


def serve_params(client: str, vault: Path | None, *, prefix: Sequence[str] = ()) -> StdioServerParameters:
    command = [*prefix, *vault_recall_command(), "serve", "--client", client]
    if vault is not None:
        command += ["--vault", str(vault)]
    return StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))


@asynccontextmanager
async def serving(client: str, vault: Path | None, *, prefix: Sequence[str] = ()) -> AsyncIterator[Client]:
    async with Client(serve_params(client, vault, prefix=prefix), read_timeout_seconds=30) as session:
        yield session


def text_of(result: CallToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def call(session: Client, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    """Call a tool that must succeed; checks the text is the compact JSON of the structured result."""
    result = await session.call_tool(tool, args or {})
    assert not result.is_error, text_of(result)
    payload: dict[str, Any] = json.loads(text_of(result))
    assert payload == result.structured_content
    assert text_of(result) == json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    return payload


async def call_error(session: Client, tool: str, args: dict[str, Any]) -> str:
    """Call a tool that must fail as a tool error; returns its message."""
    result = await session.call_tool(tool, args)
    assert result.is_error, text_of(result)
    return text_of(result)


def copy_sample_vault(dest: Path) -> Path:
    shutil.copytree(SAMPLE_VAULT, dest, symlinks=True)
    return dest


def use_sample_vault(tmp_path: Path) -> Path:
    """A copy of the sample vault, made the configured and active vault 'Sample'."""
    from vault_recall.app.state.config_store import update_config
    from vault_recall.server.config.config_file import VaultEntry

    vault = copy_sample_vault(tmp_path / "Sample vault")
    update_config(lambda c: dataclasses.replace(c, vaults=(VaultEntry("Sample", str(vault)),), active_vault="Sample"))
    return vault


def paths(payload: Mapping[str, Any]) -> list[str]:
    return [r["path"] for r in payload["records"]]
