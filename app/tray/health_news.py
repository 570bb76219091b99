"""What the person is told when the vault's health changes: which note or folder, and what is
wrong.

A pure function of two health reports of the same vault.  News is a short summary ("Work:
'Build decision' is broken", "Work: the folder Private/ cannot be read") and a body naming each
note with its reason, at most a few.  A vault that became unreadable is one notice, which also
says how many notes recalled in the last day went with it (the tray counts them), never one per note.
"""

from __future__ import annotations

from vault_recall.app.state.health import HealthReport
from vault_recall.app.tray.notices import as_sentence, plural, problem_line, problem_summary

SHOWN = 3


def health_news(
    before: HealthReport, after: HealthReport, vault: str, gone_recalled: int = 0
) -> tuple[str, str] | None:
    """(summary, body) worth a notification, or None when nothing the person must know changed.
    `gone_recalled`: the notes clients recalled in the last day that went out of reach with the vault."""
    if after.status == "unavailable":
        if before.status == "unavailable" and before.reason == after.reason:
            return None
        return unreadable_news(vault, after.reason or "", gone_recalled)
    if before.status == "unavailable":
        return f"{vault} can be read again", after.summary(vault)
    known = {p["path"] for p in before.problems} | {t["path"] for t in before.too_large}
    new = [(p["path"], problem_line(p["path"], p["reason"])) for p in after.problems if p["path"] not in known]
    new += [
        (t["path"], f"{t['path']} — too large to recall whole ({t['bytes']:,} bytes)")
        for t in after.too_large
        if t["path"] not in known
    ]
    if new:
        count = len(after.problems) + len(after.too_large)
        summary = problem_summary(vault, new[0][0]) if len(new) == 1 else f"{vault}: {len(new)} notes broke"
        lines = [line for _, line in new[:SHOWN]]
        if len(new) > SHOWN:
            lines.append(f"… and {len(new) - SHOWN} more")
        if count > len(new):
            lines.append(f"({count} broken notes in all; the tray's Problems menu lists them)")
        return summary, "\n".join(lines)
    if before.status == "degraded" and after.status == "ok":
        return f"{vault} is healthy again", "Every note reads again."
    return None


# Where the person chooses another vault: the menu's, or (in `vault-recall status`) the command.
CHOOSE_IN_MENU = "under Vault"
CHOOSE_BY_COMMAND = "with vault-recall vault use NAME"


def unreadable_news(vault: str, reason: str, gone_recalled: int, choose: str = CHOOSE_IN_MENU) -> tuple[str, str]:
    """The one notice for a vault that cannot be read: the tray's notification, and the
    line `vault-recall status` prints (with `choose` naming the command instead of the menu)."""
    return f"{vault} cannot be read", unreadable_body(reason, gone_recalled, choose)


def unreadable_body(reason: str, gone_recalled: int, choose: str = CHOOSE_IN_MENU) -> str:
    """Why the vault cannot be read, what that takes with it, and what to do."""
    took = (
        f" It took with it the {plural(gone_recalled, 'note')} clients recalled in the last day."
        if gone_recalled
        else ""
    )
    return (
        f"{as_sentence(reason)}{took} Until it can be read again, clients get 'unavailable'. Put the folder "
        f"back (or plug its disk in), or choose another vault {choose}."
    )
