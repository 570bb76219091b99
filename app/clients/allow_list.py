"""Letting a client run our tools without asking each time: only on an explicit flag
(`install CLIENT --allow-tools`), and with the same safe edit as our entry.

Every tool of ours only reads, but clients ask before running a server's tool: Claude Code's
`claude -p` even refuses them outright unless they are allowed.  Where a client keeps such an
allow list, this adds our tools to it, and `uninstall` takes exactly ours away again:

- Claude Code: `permissions.allow` in `~/.claude/settings.json` (`mcp__vault-recall__TOOL`);
- Gemini CLI: `trust: true` in our entry (no confirmation for this server's tools);
- Cline: `autoApprove` in our entry (the tool names).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from vault_recall.app.app_errors import InstallError, JsonEditError
from vault_recall.app.clients.catalogue import SERVER_NAME, TOOL_NAMES, ClientSpec
from vault_recall.app.clients.install import Plan, read_current, target_of
from vault_recall.app.clients.json_edit import parse_object, remove_member, set_member

CLAUDE_RULES = tuple(f"mcp__{SERVER_NAME}__{tool}" for tool in TOOL_NAMES)


def has_allow_list(spec: ClientSpec) -> bool:
    return spec.id in ("claude-code", "gemini", "cline")


def entry_allowance(spec: ClientSpec) -> dict[str, Any]:
    """The keys our entry itself gets to allow our tools (empty where the list lives elsewhere)."""
    if spec.id == "gemini":
        return {"trust": True}
    if spec.id == "cline":
        return {"autoApprove": list(TOOL_NAMES)}
    return {}


def claude_settings_file(home: Path | None = None) -> Path:
    """Claude Code's user settings (CLAUDE_CONFIG_DIR moves its folder)."""
    folder = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(folder) if folder else (home or Path.home()) / ".claude") / "settings.json"


def plan_claude_allow(path: Path, *, allow: bool) -> Plan:
    """`permissions.allow` with our tools added (allow) or exactly ours removed; every other
    byte of the file as it was."""
    asked = path
    path = target_of(path)
    seen, before = read_current(path)
    text = before or ""
    what = str(path)
    try:
        data = parse_object(text, what)
        permissions = data.get("permissions", {})
        if not isinstance(permissions, dict) or not isinstance(permissions.get("allow", []), list):
            raise InstallError(f"{what} has 'permissions.allow' that is not a list, so it was left untouched")
        current = list(permissions.get("allow", []))
        if allow:
            wanted = current + [rule for rule in CLAUDE_RULES if rule not in current]
        else:
            wanted = [rule for rule in current if rule not in CLAUDE_RULES]
        if wanted == current:
            after = text
        elif allow or wanted:
            after = set_member(text, "permissions", "allow", wanted, what)
        else:  # the list held only ours
            after = remove_member(text, "permissions", "allow", what)
    except JsonEditError as exc:
        raise InstallError(str(exc)) from None
    _verify(text, after, wanted, what)
    redo = lambda: plan_claude_allow(asked, allow=allow)  # noqa: E731 - the same change, from the file as it is then
    if after == text:
        return Plan(path=path, before=before, after=before or "", replaced=False, seen=seen, redo=redo)
    return Plan(path=path, before=before, after=after, replaced=False, seen=seen, redo=redo)


def _verify(before: str, after: str, wanted: list[Any], what: str) -> None:
    """Refuse any edit that changed more than the allow list (the last line of defence)."""
    old = json.loads(before) if before.strip() else {}
    new = json.loads(after) if after.strip() else {}
    for data in (old, new):
        permissions = data.get("permissions")
        if isinstance(permissions, dict):
            permissions.pop("allow", None)
            if not permissions:
                data.pop("permissions")
    if old != new:
        raise InstallError(f"{what} could not be changed without touching other settings; it was left untouched")
    if after != before and (json.loads(after).get("permissions") or {}).get("allow", []) != wanted:
        raise InstallError(f"{what} could not be given our allow rules cleanly; it was left untouched")
