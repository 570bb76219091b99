"""The MCP clients Vault Recall can configure: where each keeps its config, in which format,
under which key, and what our entry looks like there.

Facts from `shared/design/clients.md`; the entry for each client is the smallest one the
client documents for a stdio server.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SERVER_NAME = "vault-recall"
# Codex reads a bearer token only from an environment variable (it refuses one in config.toml).
TOKEN_ENV = "VAULT_RECALL_TOKEN"

Entry = dict[str, Any]


@dataclass(frozen=True)
class ClientSpec:
    id: str
    name: str
    format: str  # json | toml | yaml
    container: str  # the key our entry lives under
    entry: Callable[[list[str]], Entry]  # argv (command first) → our entry
    is_list: bool = False  # the container is a list of named entries (Continue)
    cli: Callable[[list[str]], list[str]] | None = None  # argv → the client's own add command
    link: str | None = None  # deep-link style: cursor | vscode | lmstudio
    paste_only: str | None = None  # where to paste, when the client has no config file
    # (url, token) → our entry for `vault-recall http`, for clients that connect by URL
    http: Callable[[str, str], Entry] | None = None

    def config_file(self, home: Path | None = None, platform: str | None = None) -> Path | None:
        return config_location(self.id, home or Path.home(), platform or sys.platform)


def _command_args(argv: list[str]) -> Entry:
    return {"command": argv[0], "args": argv[1:]}


def _typed_stdio(argv: list[str]) -> Entry:
    return {"type": "stdio", "command": argv[0], "args": argv[1:]}


def _continue(argv: list[str]) -> Entry:
    return {"name": SERVER_NAME, "type": "stdio", "command": argv[0], "args": argv[1:]}


def _goose(argv: list[str]) -> Entry:
    return {
        "name": SERVER_NAME,
        "type": "stdio",
        "cmd": argv[0],
        "args": argv[1:],
        "envs": {},
        "env_keys": [],
        "enabled": True,
        "timeout": 300,
    }


def _opencode(argv: list[str]) -> Entry:
    return {"type": "local", "command": list(argv), "enabled": True}


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# Each client's own keys for a Streamable HTTP server with a header (see shared/design/clients.md).
_HTTP: dict[str, Callable[[str, str], Entry]] = {
    "claude-code": lambda url, token: {"type": "http", "url": url, "headers": _bearer(token)},
    "cursor": lambda url, token: {"url": url, "headers": _bearer(token)},
    "vscode": lambda url, token: {"type": "http", "url": url, "headers": _bearer(token)},
    "windsurf": lambda url, token: {"serverUrl": url, "headers": _bearer(token)},
    "codex": lambda url, token: {"url": url, "bearer_token_env_var": TOKEN_ENV},
    "zed": lambda url, token: {"url": url, "headers": _bearer(token)},
    "gemini": lambda url, token: {"httpUrl": url, "headers": _bearer(token)},
    "opencode": lambda url, token: {"type": "remote", "url": url, "headers": _bearer(token), "enabled": True},
}


CLIENTS: tuple[ClientSpec, ...] = (
    ClientSpec("claude-desktop", "Claude Desktop", "json", "mcpServers", _command_args),
    ClientSpec(
        "claude-code",
        "Claude Code",
        "json",
        "mcpServers",
        _typed_stdio,
        cli=lambda argv: ["claude", "mcp", "add", "--scope", "user", SERVER_NAME, "--", *argv],
    ),
    ClientSpec("cursor", "Cursor", "json", "mcpServers", _command_args, link="cursor"),
    ClientSpec(
        "vscode",
        "VS Code",
        "json",
        "servers",
        _typed_stdio,
        cli=lambda argv: ["code", "--add-mcp", _vscode_json(argv)],
        link="vscode",
    ),
    ClientSpec("windsurf", "Windsurf", "json", "mcpServers", _command_args),
    ClientSpec(
        "codex",
        "Codex CLI",
        "toml",
        "mcp_servers",
        _command_args,
        cli=lambda argv: ["codex", "mcp", "add", SERVER_NAME, "--", *argv],
    ),
    ClientSpec("zed", "Zed", "json", "context_servers", _command_args),
    ClientSpec(
        "gemini",
        "Gemini CLI",
        "json",
        "mcpServers",
        _command_args,
        cli=lambda argv: ["gemini", "mcp", "add", "-s", "user", SERVER_NAME, argv[0], "--", *argv[1:]],
    ),
    ClientSpec("cline", "Cline", "json", "mcpServers", _command_args),
    ClientSpec("continue", "Continue", "yaml", "mcpServers", _continue, is_list=True),
    ClientSpec("lm-studio", "LM Studio", "json", "mcpServers", _command_args, link="lmstudio"),
    ClientSpec("goose", "Goose", "yaml", "extensions", _goose),
    ClientSpec("opencode", "opencode", "json", "mcp", _opencode),
    ClientSpec("amazon-q", "Amazon Q CLI", "json", "mcpServers", _command_args),
    ClientSpec(
        "jetbrains",
        "JetBrains AI Assistant",
        "json",
        "mcpServers",
        _command_args,
        paste_only="Settings → Tools → AI Assistant → Model Context Protocol (MCP) → Add → As JSON",
    ),
)


CLIENTS = tuple(dataclasses.replace(c, http=_HTTP.get(c.id)) for c in CLIENTS)


def _vscode_json(argv: list[str]) -> str:
    import json

    return json.dumps({"name": SERVER_NAME, "command": argv[0], "args": argv[1:]}, ensure_ascii=False)


def client_spec(client_id: str) -> ClientSpec | None:
    return next((c for c in CLIENTS if c.id == client_id), None)


def _vscode_user_dir(home: Path, platform: str) -> Path:
    if platform == "darwin":
        return home / "Library/Application Support/Code/User"
    if platform.startswith("win"):
        return Path(os.environ.get("APPDATA") or home / "AppData/Roaming") / "Code/User"
    return Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "Code/User"


def _lm_studio_home(home: Path) -> Path:
    """LM Studio's home folder: a pointer file names it, older installs used ~/.cache/lm-studio."""
    pointer = home / ".lmstudio-home-pointer"
    try:
        named = pointer.read_text(encoding="utf-8").strip()
    except OSError:
        named = ""
    if named:
        return Path(named)
    legacy = home / ".cache/lm-studio"
    return legacy if legacy.is_dir() else home / ".lmstudio"


def config_location(client_id: str, home: Path, platform: str) -> Path | None:
    """The client's user-level config file on `platform`, or None when it has none there."""
    windows = platform.startswith("win")
    mac = platform == "darwin"
    appdata = Path(os.environ.get("APPDATA") or home / "AppData/Roaming") if windows else None
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    if client_id == "claude-desktop":
        if mac:
            return home / "Library/Application Support/Claude/claude_desktop_config.json"
        if appdata is not None:
            # The Microsoft Store (MSIX) build reads a virtualized copy under LOCALAPPDATA.
            local = Path(os.environ.get("LOCALAPPDATA") or home / "AppData/Local")
            for package in sorted(local.glob("Packages/Claude_*")):
                return package / "LocalCache/Roaming/Claude/claude_desktop_config.json"
            return appdata / "Claude/claude_desktop_config.json"
        return xdg / "Claude/claude_desktop_config.json"  # community Linux builds use this
    if client_id == "codex":
        codex_home = os.environ.get("CODEX_HOME")
        return (Path(codex_home) if codex_home else home / ".codex") / "config.toml"
    if client_id == "zed":
        return (appdata / "Zed/settings.json") if appdata is not None else xdg / "zed/settings.json"
    if client_id == "opencode":
        return xdg / "opencode/opencode.json"
    if client_id == "goose":
        if appdata is not None:
            return appdata / "Block/goose/config/config.yaml"
        return xdg / "goose/config.yaml"
    if client_id == "vscode":
        return _vscode_user_dir(home, platform) / "mcp.json"
    if client_id == "cline":
        # Cline moved its settings out of VS Code's storage; older installs still use the old file.
        storage = _vscode_user_dir(home, platform) / "globalStorage/saoudrizwan.claude-dev"
        legacy = storage / "settings/cline_mcp_settings.json"
        current = home / ".cline/data/settings/cline_mcp_settings.json"
        return legacy if legacy.exists() and not current.exists() else current
    if client_id == "lm-studio":
        return _lm_studio_home(home) / "mcp.json"
    fixed = {
        "claude-code": home / ".claude.json",
        "cursor": home / ".cursor/mcp.json",
        "windsurf": home / ".codeium/windsurf/mcp_config.json",
        "gemini": home / ".gemini/settings.json",
        "continue": home / ".continue/config.yaml",
        "amazon-q": home / ".aws/amazonq/mcp.json",
    }
    return fixed.get(client_id)
