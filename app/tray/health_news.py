"""What the person is told when the vault's health changes: which note, and what is wrong.

A pure function of two health reports of the same vault.  News is a short summary ("Work:
'Build decision' is broken") and a body naming each note with its reason, at most a few.
"""

from __future__ import annotations

from vault_recall.app.state.health import HealthReport

SHOWN = 3


def _reason(path: str, reason: str) -> str:
    """'Notes/N.md, line 3: x' → 'Notes/N.md — line 3: x' (the path once, first)."""
    rest = reason[len(path) :].lstrip(",: ") if reason.startswith(path) else reason
    return f"{path} — {rest}"


def _title(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else name


def health_news(before: HealthReport, after: HealthReport, vault: str) -> tuple[str, str] | None:
    """(summary, body) worth a notification, or None when nothing the person must know changed."""
    if after.status == "unavailable":
        if before.status == "unavailable" and before.reason == after.reason:
            return None
        return f"{vault} cannot be read", after.reason or ""
    if before.status == "unavailable":
        return f"{vault} can be read again", after.summary(vault)
    known = {p["path"] for p in before.problems} | {t["path"] for t in before.too_large}
    new = [(p["path"], _reason(p["path"], p["reason"])) for p in after.problems if p["path"] not in known]
    new += [
        (t["path"], f"{t['path']} — too large to recall whole ({t['bytes']:,} bytes)")
        for t in after.too_large
        if t["path"] not in known
    ]
    if new:
        count = len(after.problems) + len(after.too_large)
        summary = f"{vault}: '{_title(new[0][0])}' is broken" if len(new) == 1 else f"{vault}: {len(new)} notes broke"
        lines = [line for _, line in new[:SHOWN]]
        if len(new) > SHOWN:
            lines.append(f"… and {len(new) - SHOWN} more")
        if count > len(new):
            lines.append(f"({count} broken notes in all; the tray's Problems menu lists them)")
        return summary, "\n".join(lines)
    if before.status == "degraded" and after.status == "ok":
        return f"{vault} is healthy again", "Every note reads again."
    return None
