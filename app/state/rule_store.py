"""A vault's subject rules as the CLI and the tray change them: added or removed in the config
file (config_store.update_config: locked, atomic), never in the vault.  Every serve and http
process reads the rules again on its next call."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from vault_recall.app.app_errors import RuleChangeError
from vault_recall.app.state.config_store import update_config
from vault_recall.server.config.config_file import Config, VaultEntry
from vault_recall.server.recall.subject_rules import SubjectRule


@dataclass(frozen=True)
class RuleChange:
    vault: str
    changed: tuple[SubjectRule, ...]  # the rules added or removed
    kept: tuple[SubjectRule, ...]  # the vault's rules now


def add_rules(vault: str | None, rules: Iterable[SubjectRule]) -> RuleChange:
    """Add `rules` to the vault named `vault` (None: the active one).  A rule the vault has
    already is kept once."""
    wanted = tuple(rules)
    found: list[RuleChange] = []

    def change(config: Config) -> Config:
        entry = _vault(config, vault)
        added = tuple(rule for rule in dict.fromkeys(wanted) if rule not in entry.subject_rules)
        kept = (*entry.subject_rules, *added)
        found.append(RuleChange(entry.name, added, kept))
        return _with_rules(config, entry, kept)

    update_config(change)
    return found[-1]


def remove_rules(vault: str | None, subject: str, described: str | None = None) -> RuleChange:
    """Remove the vault's rules for `subject` — only the one `described` as the command line
    writes it ('--folder Projects'), when given."""
    found: list[RuleChange] = []

    def change(config: Config) -> Config:
        entry = _vault(config, vault)
        ours = [rule for rule in entry.subject_rules if rule.subject == subject]
        if not ours:
            raise RuleChangeError(
                f"vault {entry.name!r} has no rule for subject {subject!r} (see: vault-recall subject list)"
            )
        if described is not None:
            ours = [rule for rule in ours if rule.describe() == described]
            if not ours:
                raise RuleChangeError(f"subject {subject!r} of vault {entry.name!r} has no rule {described!r}")
        kept = tuple(rule for rule in entry.subject_rules if rule not in ours)
        found.append(RuleChange(entry.name, tuple(ours), kept))
        return _with_rules(config, entry, kept)

    update_config(change)
    return found[-1]


def chosen_vault(config: Config, name: str | None) -> VaultEntry:
    """The vault named `name`, or the active one; one sentence when there is none."""
    return _vault(config, name)


def _vault(config: Config, name: str | None) -> VaultEntry:
    if name is None:
        if config.active_vault is None or config.vault(config.active_vault) is None:
            raise RuleChangeError("there is no active vault: add one first (vault-recall vault add PATH)")
        name = config.active_vault
    entry = config.vault(name)
    if entry is None:
        raise RuleChangeError(f"there is no vault named {name!r} (see: vault-recall vault list)")
    return entry


def _with_rules(config: Config, entry: VaultEntry, rules: tuple[SubjectRule, ...]) -> Config:
    vaults = tuple(dataclasses.replace(v, subject_rules=rules) if v.name == entry.name else v for v in config.vaults)
    return dataclasses.replace(config, vaults=vaults)
