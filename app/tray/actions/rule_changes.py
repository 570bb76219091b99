"""What the menu's subject items do: add a proposed subject rule, or remove one, in Vault
Recall's config (app/state/rule_store.py; never in the vault), and say what changed — how many
notes the subject takes now, from every client's next call — and how to change it again.

Runs on the tray's action worker, as perform.py does; `subject_action` answers False for an
action that is not one of these.  Errors are raised (RuleChangeError, ConfigError, OSError) with
a sentence for the worker's notification.
"""

from __future__ import annotations

from pathlib import Path
from typing import assert_never

from vault_recall.app.desktop.notifications import Notify
from vault_recall.app.state.rule_store import add_rules, remove_rules
from vault_recall.app.tray.menu.items import Action, TrayState, is_subject_action
from vault_recall.app.tray.menu.subject_items import RULES_MENU, rule_of, taken_words
from vault_recall.server.errors import VaultUnavailable
from vault_recall.server.recall.answers.rule_suggestions import notes_taken
from vault_recall.server.recall.subject_rules import SubjectRule, SubjectRules

CHANGE_IT = f"To change it: Vault ▸ {RULES_MENU} in this menu, or vault-recall subject list / remove"


def subject_action(action: Action, state: TrayState, notify: Notify) -> bool:
    """Run a subject action of the menu; False when `action` is not one."""
    name, *args = action
    if not is_subject_action(name):
        return False
    vault, rule = rule_of(args)
    match name:
        case "add_rule":
            _add(vault, rule, state, notify)
        case "remove_rule":
            _remove(vault, rule, notify)
        case _:
            assert_never(name)
    return True


def _add(vault: str, rule: SubjectRule, state: TrayState, notify: Notify) -> None:
    change = add_rules(vault, (rule,))
    if not change.changed:
        notify(f"Subject '{rule.subject}' is there already", f"{CHANGE_IT} {rule.subject}.")
        return
    taken = taken_words(rule, _notes(state, vault, rule))
    notify(
        f"Added subject '{rule.subject}' to {change.vault}",
        f"{taken[:1].upper()}{taken[1:]} are memory records of '{rule.subject}' from every client's next call; "
        f"nothing in your vault changed. {CHANGE_IT} {rule.subject}.",
    )


def _remove(vault: str, rule: SubjectRule, notify: Notify) -> None:
    change = remove_rules(vault, rule.subject, rule.describe())
    notify(
        f"Removed subject '{rule.subject}' from {change.vault}",
        f"Its {taken_words(rule, None)} are not its records any more, from every client's next call (notes "
        f"that name the subject in their own properties keep it); nothing in your vault changed. Add it again "
        f"under Vault ▸ {RULES_MENU}.",
    )


def _notes(state: TrayState, vault: str, rule: SubjectRule) -> int | None:
    """How many notes the rule takes now, read afresh (None when the vault cannot be read)."""
    entry = state.config.vault(vault)
    if entry is None:
        return None
    root = Path(entry.path).expanduser()
    try:
        return notes_taken(root, SubjectRules((rule,), root))[rule.subject]
    except (VaultUnavailable, OSError):
        return None
