"""What the tray tells a person, in plain words: each notice says what happened, what happens
next and what to do — shared by the menu, the notifications and `vault-recall status`, so a
person reads the same sentence wherever they look.

Pure functions of data; nothing here reads the disk or the clock.
"""

from __future__ import annotations

from collections.abc import Sequence

from vault_recall.server.obsidian.note import note_title

# What a failed action was, for its notification's summary (the body says why).
_ACTION_WORDS = {
    "use": "Switching the vault",
    "use_path": "Switching the vault",
    "install": "Installing",
    "install_http": "Installing by URL",
    "connect": "Connecting the client",
    "uninstall": "Uninstalling",
    "endpoint": "The HTTP endpoint",
    "toggle": "The setting",
    "expose": "Changing what the client sees",
    "expose_toggle": "Changing what the client sees",
    "add_client": "Adding the client",
    "add_rule": "Adding the subject",
    "remove_rule": "Removing the subject",
    "help": "Opening the help",
    "show_activity": "Showing the activity",
    "oauth_approve": "Approving the app",
    "oauth_deny": "Denying the app",
    "oauth_revoke": "Revoking the app",
}

PAUSED = "Recall is paused: clients get 'unavailable'"
SAMPLE = "This is the sample vault: example notes, not yours"
NO_RECORDS = "No memory records yet: what is a record?"
# The same notices as `vault-recall status` prints them: what the menu's click does, as a command.
PAUSED_BANNER = f"{PAUSED} — click to resume"
PAUSED_STATUS = f"{PAUSED} — resume: vault-recall resume"
# The notifications of the *Pause recall* click: what happens now, and how to undo it.
PAUSED_NOTICE = (
    "Recall is paused",
    "Every client's calls answer 'unavailable' until you resume: click the icon, then "
    f"'{PAUSED_BANNER}' at the top of the menu, or run vault-recall resume.",
)
RESUMED_NOTICE = ("Recall resumed", "Every client's next call reads the vault again. Nothing else to do.")


def as_sentence(text: str) -> str:
    """`text` as a notification body shows it: a capital first, a full stop last."""
    text = text.strip()
    return (text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")) if text else ""


def failure_summary(action: str) -> str:
    """A notification's summary for a menu action that failed (its body says why)."""
    return f"{_ACTION_WORDS.get(action, 'That')} did not work"


def plural(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def joined(names: Sequence[str]) -> str:
    """'Cursor', 'Cursor and Zed', 'Cursor, Zed and Codex CLI'; past three, '… and 2 other clients'."""
    if len(names) > 3:
        return f"{', '.join(names[:2])} and {len(names) - 2} other clients"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def is_folder_problem(path: str) -> bool:
    """A problem about a folder (one that cannot be read), not a note: its path ends in '/'."""
    return path.endswith("/")


def without_path(path: str, reason: str) -> str:
    """'Notes/N.md, line 3: x' → 'line 3: x' (where the note is already named)."""
    return reason[len(path) :].lstrip(",: ") if reason.startswith(path) else reason


FOLDER_FIX = (
    "Make it readable for you (its permissions, in your file manager), or move its notes to a folder you can read"
)


def problem_summary(vault: str, path: str) -> str:
    """A notification's summary for one new problem: the note by its title, a folder by its path."""
    if is_folder_problem(path):
        return f"{vault}: the folder {path} cannot be read"
    return f"{vault}: '{note_title(path)}' is broken"


def problem_line(path: str, reason: str) -> str:
    """One problem as a line of a notification or of `status`: where it is, then what is wrong."""
    if is_folder_problem(path):
        return f"{as_sentence(reason)} {FOLDER_FIX}."
    return f"{path} — {without_path(path, reason)}"


def menu_problem_line(path: str, reason: str) -> str:
    """One problem as the Problems menu shows it (the note's title first: it opens the note)."""
    if is_folder_problem(path):
        return f"Folder {path} cannot be read (its notes are missing)"
    return f"{note_title(path)} — {without_path(path, reason)}"
