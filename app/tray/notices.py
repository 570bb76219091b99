"""How the tray words what went wrong in a notification: a summary naming what failed, and
the reason as a sentence."""

from __future__ import annotations

# What a failed action was, for its notification's summary (the body says why).
_ACTION_WORDS = {
    "use": "Switching the vault",
    "use_path": "Switching the vault",
    "install": "Installing",
    "uninstall": "Uninstalling",
    "endpoint": "The HTTP endpoint",
    "toggle": "The setting",
    "expose": "Changing what the client sees",
    "expose_toggle": "Changing what the client sees",
    "add_client": "Adding the client",
    "help": "Opening the help",
    "show_activity": "Showing the activity",
    "oauth_approve": "Approving the app",
    "oauth_deny": "Denying the app",
    "oauth_revoke": "Revoking the app",
}


def as_sentence(text: str) -> str:
    """`text` as a notification body shows it: a capital first, a full stop last."""
    text = text.strip()
    return (text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")) if text else ""


def failure_summary(action: str) -> str:
    """A notification's summary for a menu action that failed (its body says why)."""
    return f"{_ACTION_WORDS.get(action, 'That')} did not work"
