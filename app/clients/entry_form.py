"""Which form an entry of ours in a client's file has: one the client starts (`serve` over
stdio), one it reaches by URL (`vault-recall http`), or both at once — what older installs left
when they merged one form into the other, and what Codex refuses to start with.

Switching forms replaces our entry whole (install.py): keys of the other form never stay
behind.  Only the keys that mean the same in both forms, and that a person may have set, are
carried over.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

Form = Literal["stdio", "url", "both", "neither"]

# Keys that exist only in an entry the client starts as a process, in any client's format.
STDIO_KEYS = frozenset({"command", "args", "cmd", "env", "envs", "env_keys", "environment", "cwd", "env_vars"})
# Keys that hold the endpoint's address.
URL_KEYS = ("httpUrl", "url", "serverUrl")  # in Gemini CLI's order: `httpUrl` first
# A `type` naming the transport (Claude Code, VS Code, Continue, Goose, opencode).
_STDIO_TYPES = frozenset({"stdio", "local"})
_URL_TYPES = frozenset({"http", "streamable-http", "streamable_http", "streamableHttp", "sse", "remote"})

# What a person may set on our entry that means the same whichever form it has, so it survives a
# switch: whether the client waits for us and how long (Codex `required`, `startup_timeout_sec`;
# Claude Code `alwaysLoad`), whether it is on, its tool filters and timeouts, and the allow
# lists' keys (`trust`, `autoApprove`).  Everything else of the old form goes with it.
FORM_FREE_KEYS = frozenset(
    {
        *("required", "startup_timeout_sec", "alwaysLoad", "enabled", "disabled", "timeout"),
        *("tool_timeout_sec", "enabled_tools", "disabled_tools", "includeTools", "excludeTools"),
        *("trust", "autoApprove", "alwaysAllow", "description"),
    }
)


def form_of(entry: Mapping[str, Any]) -> Form:
    """The form `entry` has, as its keys (and its `type`, where it has one) say."""
    kind = entry.get("type")
    started = bool(STDIO_KEYS & entry.keys()) or kind in _STDIO_TYPES
    reached = any(key in entry for key in URL_KEYS) or kind in _URL_TYPES
    if started and reached:
        return "both"
    return "stdio" if started else "url" if reached else "neither"


def carried_over(old: Mapping[str, Any]) -> dict[str, Any]:
    """What of an entry of the other form a switch keeps: the person's form-free settings."""
    return {key: value for key, value in old.items() if key in FORM_FREE_KEYS}


def url_of(entry: Mapping[str, Any]) -> str | None:
    """The endpoint's address a URL entry names (`url`, Gemini's `httpUrl`, Windsurf's `serverUrl`)."""
    for key in URL_KEYS:
        value = entry.get(key)
        if isinstance(value, str) and value:
            return value
    return None
