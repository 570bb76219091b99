"""What the person is told when the vault's health changes: which note or folder, and what is
wrong.

A pure function of two health reports of the same vault.  News is a short summary ("Work:
'Build decision' is broken", "Work: the folder Private/ cannot be read") and a body naming each
note with its reason, at most a few.  A vault that became unreadable is one notice, which also
says how many notes recalled in the last day went with it (the tray counts them), never one per note.
"""

from __future__ import annotations

from vault_recall.app.state.health import HealthReport
from vault_recall.app.tray.notices import as_sentence, is_folder_problem, plural, problem_line, problem_summary

SHOWN = 3
# What happens to a broken note, and what the person does about it.
NOTE_NEXT = (
    "Clients still get the rest of the vault, and are told of this note when it could matter to what they "
    "ask. Fix that line (Problems in the menu opens the note): the tray sees the fix by itself."
)
NOTES_NEXT = (
    "Clients still get the rest of the vault, and are told of these notes when they could matter to what "
    "they ask. Fix the lines named (Problems in the menu opens each note): the tray sees the fixes by itself."
)


def _counted(paths: list[str]) -> str:
    """'2 broken notes', '1 broken note and 1 unreadable folder': a folder is not a note."""
    folders = sum(1 for path in paths if is_folder_problem(path))
    notes = len(paths) - folders
    parts = [plural(notes, "broken note")] if notes else []
    return " and ".join(parts + ([plural(folders, "unreadable folder")] if folders else []))


def _broke(notes: int, count: int) -> str:
    """'4 notes broke', '1 note broke and 1 folder cannot be read'."""
    folders = count - notes
    said = [f"{plural(notes, 'note')} broke"] if notes else []
    if folders:
        said.append(f"{plural(folders, 'folder')} cannot be read")
    return " and ".join(said)


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
        every = [p["path"] for p in after.problems] + [t["path"] for t in after.too_large]
        new_notes = sum(1 for path, _ in new if not is_folder_problem(path))
        summary = problem_summary(vault, new[0][0]) if len(new) == 1 else f"{vault}: {_broke(new_notes, len(new))}"
        lines = [line for _, line in new[:SHOWN]]
        if len(new) > SHOWN:
            lines.append(f"… and {len(new) - SHOWN} more")
        broken = sum(1 for p in after.problems if p["path"] not in known and not is_folder_problem(p["path"]))
        if broken:
            lines.append(NOTE_NEXT if broken == 1 else NOTES_NEXT)
        if len(every) > len(new):
            lines.append(f"({_counted(every)} in all; the tray's Problems menu lists them)")
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


def switched_news(report: HealthReport, vault: str) -> tuple[str, str]:
    """The notice once the vault the person chose (*Use your vault*, *Vault ▸*) is checked: what
    clients get from it now, and, when the icon is not green, why and what to do."""
    summary = f"Vault Recall now recalls from {vault}"
    if report.status == "unavailable":
        return summary, unreadable_body(report.reason or "", 0)
    said = f"{report.summary(vault)}."
    if report.no_records_yet:
        return summary, (
            f"{said} The icon is amber: no note is a memory record yet, so clients have nothing to recall. "
            "Add a subject its notes suggest (one click, in the menu), or see 'what is a record?' there."
        )
    if report.status == "degraded":
        return summary, (
            f"{said} The icon is amber for its broken notes: Problems in the menu lists them. Clients get the "
            "rest from their next call."
        )
    return summary, f"{said} Every client's next call reads it."
