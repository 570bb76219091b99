"""The MCP clients Vault Recall can configure: where each keeps its config, in which format,
under which key, and what our entry looks like there.

The entry for each client is the smallest one the client documents for a stdio server.
docs/clients.md gives each fact here with its source (the client's docs or source, or our
tests with the real clients): change the two together.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, assert_never

from vault_recall.app.app_errors import JsonEditError
from vault_recall.app.clients.json_edit import parse_object
from vault_recall.app.clients.launch import home_env

SERVER_NAME = "vault-recall"
# Codex reads a bearer token only from an environment variable (it refuses one in config.toml).
TOKEN_ENV = "VAULT_RECALL_TOKEN"
# Our tools, as `serve` lists them (tests/app/clients/test_allow_list.py checks): for clients' allow lists.
TOOL_NAMES = ("list_subjects", "recall_context", "recall_activity", "read_note", "search_notes", "get_backlinks")
CODEX_STARTUP_SECONDS = 20

Entry = dict[str, Any]
Env = dict[str, str]
# Every client this catalogue knows (CLIENTS holds one spec each).
ClientKind = Literal[
    "claude-desktop",
    "claude-code",
    "cursor",
    "vscode",
    "windsurf",
    "codex",
    "zed",
    "gemini",
    "cline",
    "continue",
    "lm-studio",
    "goose",
    "opencode",
    "amazon-q",
    "jetbrains",
]
# The file formats clients keep their config in (entry_edit.py edits each, snippets.py writes each).
ConfigFormat = Literal["json", "toml", "yaml"]
# The deep links a client opens to install a server (snippets.link_snippet).
InstallLink = Literal["cursor", "vscode", "lmstudio"]


@dataclass(frozen=True)
class ClientSpec:
    id: ClientKind
    name: str
    format: ConfigFormat
    container: str  # the key our entry lives under
    shape: Callable[[list[str], Env], Entry]  # argv (command first), env → our entry
    is_list: bool = False  # the container is a list of named entries (Continue)
    cli: Callable[[list[str], Env], list[str]] | None = None  # the client's own add command
    link: InstallLink | None = None  # the client's install link, if it has one
    paste_only: str | None = None  # where to paste, when the client has no config file
    # (url, token) → our entry for `vault-recall http`, for clients that connect by URL
    http: Callable[[str, str], Entry] | None = None
    oauth_login: str | None = None  # how the person starts its OAuth authorization, by URL
    env_key: str = "env"  # where the entry keeps the server's environment variables
    jsonc: bool = False  # the client reads its JSON as JSONC: comments and trailing commas are kept

    def entry(self, argv: list[str], env: Env | None = None) -> Entry:
        """Our entry for `argv`, carrying `env` (default: what this process's config location
        needs, launch.home_env)."""
        return self.shape(argv, home_env() if env is None else env)

    def add_command(self, argv: list[str], env: Env | None = None) -> list[str] | None:
        return None if self.cli is None else self.cli(argv, home_env() if env is None else env)

    def config_file(self, home: Path | None = None, platform: str | None = None) -> Path | None:
        return config_location(self.id, home or Path.home(), platform or sys.platform)

    def found_here(self, home: Path | None = None, platform: str | None = None) -> bool:
        """Whether the client seems installed on this computer: its config file, or the folder
        of its own that holds it, exists (Claude Code's file sits in the home folder itself:
        its `~/.claude` folder counts then)."""
        home = home or Path.home()
        path = self.config_file(home, platform)
        if path is None:
            return False
        folder = path.parent if path.parent != home else home / path.name.removesuffix(".json")
        return path.exists() or folder.is_dir()


def _with_env(entry: Entry, env: Env, key: str = "env") -> Entry:
    return {**entry, key: dict(env)} if env else entry


def _command_args(argv: list[str], env: Env) -> Entry:
    return _with_env({"command": argv[0], "args": argv[1:]}, env)


def _typed_stdio(argv: list[str], env: Env) -> Entry:
    return _with_env({"type": "stdio", "command": argv[0], "args": argv[1:]}, env)


def _claude_code(argv: list[str], env: Env) -> Entry:
    # Claude Code 2.1 connects servers in the background and may send the first prompt before
    # ours is up (then our tools are simply missing); `alwaysLoad` (its stdio entry schema)
    # makes it wait for ours and offer our tools at once.  See docs/clients.md, "Waiting for the server".
    return _with_env({"type": "stdio", "command": argv[0], "args": argv[1:], "alwaysLoad": True}, env)


def _codex(argv: list[str], env: Env) -> Entry:
    # Codex sends its first request without any optional server that has not answered yet
    # (ours takes about a second to start): `required` makes it wait for ours, at most
    # `startup_timeout_sec` (its default: 10 s).  See docs/clients.md, "Waiting for the server".
    entry = {"command": argv[0], "args": argv[1:], "required": True, "startup_timeout_sec": CODEX_STARTUP_SECONDS}
    return _with_env(entry, env)


def _continue(argv: list[str], env: Env) -> Entry:
    return _with_env({"name": SERVER_NAME, "type": "stdio", "command": argv[0], "args": argv[1:]}, env)


def _goose(argv: list[str], env: Env) -> Entry:
    return {
        "name": SERVER_NAME,
        "type": "stdio",
        "cmd": argv[0],
        "args": argv[1:],
        "envs": dict(env),
        "env_keys": [],
        "enabled": True,
        "timeout": 300,
    }


def _opencode(argv: list[str], env: Env) -> Entry:
    return _with_env({"type": "local", "command": list(argv), "enabled": True}, env, "environment")


def _env_flags(flag: str, env: Env) -> list[str]:
    return [part for name, value in env.items() for part in (flag, f"{name}={value}")]


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# Each client's own keys for a Streamable HTTP server with a header (docs/clients.md, "Connecting by URL").
_HTTP: dict[ClientKind, Callable[[str, str], Entry]] = {
    # `alwaysLoad`, as in its stdio entry: Claude Code connects a URL server in the background
    # too, and without it offers our tools only by name, behind its ToolSearch tool.
    "claude-code": lambda url, token: {"type": "http", "url": url, "headers": _bearer(token), "alwaysLoad": True},
    "cursor": lambda url, token: {"url": url, "headers": _bearer(token)},
    "vscode": lambda url, token: {"type": "http", "url": url, "headers": _bearer(token)},
    "windsurf": lambda url, token: {"serverUrl": url, "headers": _bearer(token)},
    # `required`, as in its stdio entry: without it Codex starts without us when the token is
    # missing or refused, and says nothing (docs/clients.md, "Waiting for the server").
    "codex": lambda url, token: {"url": url, "bearer_token_env_var": TOKEN_ENV, "required": True},
    "zed": lambda url, token: {"url": url, "headers": _bearer(token)},
    "gemini": lambda url, token: {"httpUrl": url, "headers": _bearer(token)},
    "opencode": lambda url, token: {"type": "remote", "url": url, "headers": _bearer(token), "enabled": True},
}

# How a client whose URL entry names no token starts its OAuth authorization (docs/http.md,
# "OAuth, for connectors and remote clients"): Claude Code's and Codex's `mcp login` and
# opencode's `mcp auth` are what tests/clients/test_oauth_real_clients.py runs; Gemini CLI's
# `/mcp auth` is its command for it (it also asks by itself when refused, as that test has it).
_OAUTH_LOGIN: dict[ClientKind, str] = {
    "claude-code": "claude mcp login vault-recall (or /mcp in a session)",
    "codex": "codex mcp login vault-recall",
    "gemini": "/mcp auth vault-recall in a session",
    "opencode": "opencode mcp auth vault-recall",
}


CLIENTS: tuple[ClientSpec, ...] = (
    ClientSpec("claude-desktop", "Claude Desktop", "json", "mcpServers", _command_args),
    ClientSpec(
        "claude-code",
        "Claude Code",
        "json",
        "mcpServers",
        _claude_code,
        cli=lambda argv, env: [
            "claude",
            "mcp",
            "add-json",
            "--scope",
            "user",
            SERVER_NAME,
            _json(_claude_code(argv, env)),
        ],
    ),
    ClientSpec("cursor", "Cursor", "json", "mcpServers", _command_args, link="cursor"),
    ClientSpec(
        "vscode",
        "VS Code",
        "json",
        "servers",
        _typed_stdio,
        cli=lambda argv, env: ["code", "--add-mcp", _vscode_json(argv, env)],
        link="vscode",
    ),
    ClientSpec("windsurf", "Windsurf", "json", "mcpServers", _command_args),
    ClientSpec(
        "codex",
        "Codex CLI",
        "toml",
        "mcp_servers",
        _codex,
        cli=lambda argv, env: ["codex", "mcp", "add", *_env_flags("--env", env), SERVER_NAME, "--", *argv],
    ),
    ClientSpec("zed", "Zed", "json", "context_servers", _command_args),
    ClientSpec(
        "gemini",
        "Gemini CLI",
        "json",
        "mcpServers",
        _command_args,
        cli=lambda argv, env: [
            "gemini",
            "mcp",
            "add",
            "-s",
            "user",
            *_env_flags("-e", env),
            SERVER_NAME,
            argv[0],
            "--",
            *argv[1:],
        ],
    ),
    ClientSpec("cline", "Cline", "json", "mcpServers", _command_args),
    ClientSpec("continue", "Continue", "yaml", "mcpServers", _continue, is_list=True),
    ClientSpec("lm-studio", "LM Studio", "json", "mcpServers", _command_args, link="lmstudio"),
    ClientSpec("goose", "Goose", "yaml", "extensions", _goose, env_key="envs"),
    ClientSpec("opencode", "opencode", "json", "mcp", _opencode, env_key="environment", jsonc=True),
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


CLIENTS = tuple(dataclasses.replace(c, http=_HTTP.get(c.id), oauth_login=_OAUTH_LOGIN.get(c.id)) for c in CLIENTS)


def _json(entry: Entry) -> str:
    import json

    return json.dumps(entry, ensure_ascii=False)


def _vscode_json(argv: list[str], env: Env) -> str:
    return _json(_with_env({"name": SERVER_NAME, "command": argv[0], "args": argv[1:]}, env))


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


def _opencode_file(folder: Path) -> Path:
    """opencode's global config: `opencode mcp add` writes `opencode.json` if it exists, else
    `opencode.jsonc` if that does (opencode makes one at its first start when it finds no
    config), else `opencode.json`; opencode reads both, the `.jsonc` last.  Where our entry is
    already, it is edited there."""
    files = [folder / "opencode.json", folder / "opencode.jsonc"]
    for path in reversed(files):
        if _holds_ours(path):
            return path
    return next((path for path in files if path.exists()), files[0])


def _holds_ours(path: Path) -> bool:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return False
    if SERVER_NAME not in text:
        return False
    try:
        holder = parse_object(text, str(path), comments=True).get("mcp")
    except (JsonEditError, RecursionError):
        return False
    return isinstance(holder, dict) and SERVER_NAME in holder


def config_location(client_id: ClientKind, home: Path, platform: str) -> Path | None:
    """The client's user-level config file on `platform`, or None when it has none there."""
    windows = platform.startswith("win")
    mac = platform == "darwin"
    appdata = Path(os.environ.get("APPDATA") or home / "AppData/Roaming") if windows else None
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    match client_id:
        case "claude-desktop":
            if mac:
                return home / "Library/Application Support/Claude/claude_desktop_config.json"
            if appdata is not None:
                # The Microsoft Store (MSIX) build reads a virtualized copy under LOCALAPPDATA.
                local = Path(os.environ.get("LOCALAPPDATA") or home / "AppData/Local")
                for package in sorted(local.glob("Packages/Claude_*")):
                    return package / "LocalCache/Roaming/Claude/claude_desktop_config.json"
                return appdata / "Claude/claude_desktop_config.json"
            return xdg / "Claude/claude_desktop_config.json"  # community Linux builds use this
        case "codex":
            codex_home = os.environ.get("CODEX_HOME")
            return (Path(codex_home) if codex_home else home / ".codex") / "config.toml"
        case "zed":
            return (appdata / "Zed/settings.json") if appdata is not None else xdg / "zed/settings.json"
        case "opencode":
            return _opencode_file(xdg / "opencode")
        case "claude-code":
            # Claude Code keeps its user-scope servers beside its other state when told where.
            folder = os.environ.get("CLAUDE_CONFIG_DIR")
            return Path(folder) / ".claude.json" if folder else home / ".claude.json"
        case "gemini":
            return Path(os.environ.get("GEMINI_CLI_HOME") or home) / ".gemini/settings.json"
        case "goose":
            if appdata is not None:
                return appdata / "Block/goose/config/config.yaml"
            return xdg / "goose/config.yaml"
        case "vscode":
            return _vscode_user_dir(home, platform) / "mcp.json"
        case "cline":
            # Cline moved its settings out of VS Code's storage; older installs still use the old file.
            storage = _vscode_user_dir(home, platform) / "globalStorage/saoudrizwan.claude-dev"
            legacy = storage / "settings/cline_mcp_settings.json"
            current = home / ".cline/data/settings/cline_mcp_settings.json"
            return legacy if legacy.exists() and not current.exists() else current
        case "lm-studio":
            return _lm_studio_home(home) / "mcp.json"
        case "cursor":
            return home / ".cursor/mcp.json"
        case "windsurf":
            return home / ".codeium/windsurf/mcp_config.json"
        case "continue":
            return home / ".continue/config.yaml"
        case "amazon-q":
            return home / ".aws/amazonq/mcp.json"
        case "jetbrains":
            return None  # its settings live in the IDE: pasted by hand (paste_only)
        case _:
            assert_never(client_id)
