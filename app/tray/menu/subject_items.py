"""The subject parts of the tray menu, as data: on a vault with no records, the subjects its
folders, tags and properties already suggest — each one click, with how many notes it takes —
and under *Vault ▸ Subjects from rules ▸* the rules kept for the vault, each one click to
remove, with the proposals beside them.

A rule travels in the item's action as plain words (`rule_action`, `rule_of`), the vault's name
with it, so a click adds exactly the rule the person read, to the vault it was offered for.
Pure functions of the snapshot; actions/rule_changes.py does what the items say.
"""

from __future__ import annotations

from collections.abc import Sequence

from vault_recall.app.tray.menu.items import SEPARATOR, Action, Item, SubjectActionName, TrayState, short
from vault_recall.server.recall.answers.rule_suggestions import SuggestedRule
from vault_recall.server.recall.subject_rules import SubjectRule

# The first menu shows this many proposals itself (one click from the icon each); the rest
# wait one level down, so the menu stays a menu.
FIRST_MENU_SUGGESTIONS = 3
RULES_MENU = "Subjects from rules"
MORE = "More subjects to recall"
LABEL = 80


def rule_words(rule: SubjectRule) -> str:
    """How the menu names a rule's notes: 'folder Projects/', 'tag #k8s', 'categories: Books'."""
    if rule.folder is not None:
        return f"folder {rule.folder}/"
    if rule.tag is not None:
        return f"tag #{rule.tag}"
    if rule.property_name is not None:
        return f"{rule.property_name}: {rule.value}"
    return "daily notes"


def taken_words(rule: SubjectRule, notes: int | None) -> str:
    """The notes a rule takes, as a sentence's subject: '42 notes under Projects/'."""
    count = "" if notes is None else f"{notes:,} "
    noun = "note" if notes == 1 else "notes"
    if rule.folder is not None:
        return f"{count}{noun} under {rule.folder}/"
    if rule.tag is not None:
        return f"{count}{noun} tagged #{rule.tag}"
    if rule.property_name is not None:
        return f"{count}{noun} whose {rule.property_name} is {rule.value}"
    return f"{count}daily {noun}"


def rule_action(name: SubjectActionName, vault: str, rule: SubjectRule) -> Action:
    """('add_rule', vault, subject, kind, …the kind's words): a rule as an item's action."""
    if rule.folder is not None:
        words: tuple[str, ...] = (rule.folder,)
    elif rule.tag is not None:
        words = (rule.tag,)
    elif rule.property_name is not None:
        words = (rule.property_name, rule.value or "")
    else:
        words = ()
    return (name, *(vault, rule.subject, rule.kind, *words))


def rule_of(args: Sequence[str]) -> tuple[str, SubjectRule]:
    """The vault and the rule an action of `rule_action` carries (its name left off)."""
    vault, subject, kind, *words = args
    if kind == "folder":
        return vault, SubjectRule(subject, folder=words[0])
    if kind == "tag":
        return vault, SubjectRule(subject, tag=words[0])
    if kind == "property":
        return vault, SubjectRule(subject, property_name=words[0], value=words[1])
    return vault, SubjectRule(subject, daily_notes=True)


def suggestion_item(vault: str, proposal: SuggestedRule) -> Item:
    rule = proposal.rule
    notes = f" ({proposal.notes:,} note{'s' if proposal.notes != 1 else ''})"
    # A long folder name is cut, never the count: the count is what the person decides by.
    text = short(f"Add subject '{rule.subject}' — {rule_words(rule)}", LABEL - len(notes)) + notes
    return Item(text, rule_action("add_rule", vault, rule))


def offered(state: TrayState) -> tuple[SuggestedRule, ...]:
    """The proposals still worth a click: none the vault has already (the list was made before
    the last change, perhaps), none for a vault the config no longer has active."""
    entry = state.config.vault(state.config.active_vault) if state.config.active_vault else None
    if entry is None:
        return ()
    ways = {rule_words(rule) for rule in entry.subject_rules}
    return tuple(s for s in state.suggestions if rule_words(s.rule) not in ways)


def first_menu_suggestions(state: TrayState) -> list[Item]:
    """On a readable vault with no records: the first proposals, one click each, the rest a
    level down."""
    if state.health is None or state.health.status == "unavailable" or state.health.records:
        return []
    vault = state.config.active_vault or ""
    proposals = offered(state)
    items = [suggestion_item(vault, p) for p in proposals[:FIRST_MENU_SUGGESTIONS]]
    rest = proposals[FIRST_MENU_SUGGESTIONS:]
    if rest:
        items.append(Item(f"{MORE} ({len(rest)})", submenu=tuple(suggestion_item(vault, p) for p in rest)))
    return items


def rules_menu(state: TrayState) -> tuple[Item, ...]:
    """*Vault ▸ Subjects from rules ▸*: each rule of the active vault, a click removes it; then
    the proposals not taken, a click adds one; where neither, how to get proposals."""
    entry = state.config.vault(state.config.active_vault) if state.config.active_vault else None
    if entry is None:
        return (Item("No vault chosen yet", enabled=False),)
    items = [
        Item(
            short(f"Remove '{rule.subject}' — {rule_words(rule)}", LABEL),
            rule_action("remove_rule", entry.name, rule),
        )
        for rule in entry.subject_rules
    ]
    proposals = [suggestion_item(entry.name, p) for p in offered(state)]
    if items and proposals:
        items.append(SEPARATOR)
    items += proposals
    if not items:
        items.append(Item("None yet; proposals: vault-recall subject suggest", enabled=False))
    return tuple(items)
