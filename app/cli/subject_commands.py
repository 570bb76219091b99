"""`vault-recall subject …`, its arguments and its handlers: the subject rules of a vault —
which of its notes are records of a subject without naming one — added, listed, removed and
proposed.  Kept in the config, never in the vault; every client's next call reads them."""

from __future__ import annotations

import argparse
from pathlib import Path

from vault_recall.app.app_errors import CommandError, RuleChangeError
from vault_recall.app.state.rule_store import add_rules, chosen_vault, remove_rules
from vault_recall.server.config.config_file import VaultEntry, load_config
from vault_recall.server.config.rule_entries import clean_folder, rule_problem
from vault_recall.server.recall.records import SUBJECT_PATTERN
from vault_recall.server.recall.subject_rules import SubjectRule, SubjectRules


def subject_add(args: argparse.Namespace) -> int:
    subject = _slug(args.subject)
    rules = _rules_from(args, subject)
    vault = _vault(args.vault)
    root = Path(vault.path).expanduser()
    for rule in rules:
        if rule.folder is not None and not (root / rule.folder).is_dir():
            raise CommandError(f"vault {vault.name!r} has no folder {rule.folder!r} (written from the vault's top)")
    if any(rule.daily_notes for rule in rules):
        from vault_recall.server.vault.vault_settings import vault_settings

        if vault_settings(root).daily is None:
            raise CommandError(
                f"vault {vault.name!r} does not use daily notes (no Daily notes or Periodic Notes setting)"
            )
    try:
        change = add_rules(vault.name, rules)
    except RuleChangeError as exc:
        raise CommandError(str(exc)) from None
    counts = _counts(root, SubjectRules(tuple(r for r in change.kept if r.subject == subject), root))
    for rule in rules:
        state = "added" if rule in change.changed else "already there"
        print(f"{subject}: {rule.describe()} ({state})")
    taken = counts.get(subject, 0)
    why = _why_no_daily_notes(root) if taken == 0 and any(rule.daily_notes for rule in rules) else None
    print(
        f"{subject} now takes {_notes(taken)} of vault {vault.name!r} — from every client's next call"
        + (f": {why}" if why else "")
    )
    return 0


def _why_no_daily_notes(root: Path) -> str | None:
    """Why `--daily-notes` takes no note of the vault at `root`: its daily notes' folder is not
    there, or no note in it is named as a date in their format."""
    from vault_recall.server.vault.vault_settings import vault_settings

    daily = vault_settings(root).daily
    where = f"folder {daily.folder!r}" if daily.folder else "the vault's top folder"
    if daily.folder and not (root / daily.folder).is_dir():
        return (
            f"its daily notes' folder {daily.folder.rstrip('/')!r} (Obsidian's Daily notes or Periodic Notes "
            "setting) does not exist yet; notes created there will be taken"
        )
    if daily.pattern is None:
        return f"the daily notes' date format {daily.format!r} cannot be read back into dates"
    return f"no note in {where} is named as a date in the daily notes' format {daily.format!r}"


def subject_list(args: argparse.Namespace) -> int:
    vault = _vault(args.vault)
    if not vault.subject_rules:
        print(f"Vault {vault.name!r} has no subject rules. Proposals: vault-recall subject suggest")
        return 0
    root = Path(vault.path).expanduser()
    counts = _counts(root, SubjectRules(vault.subject_rules, root))
    for subject in SubjectRules(vault.subject_rules).subjects:
        ways = "  ".join(rule.describe() for rule in vault.subject_rules if rule.subject == subject)
        print(f"{subject}\t{_notes(counts.get(subject, 0))}\t{ways}")
    return 0


def subject_remove(args: argparse.Namespace) -> int:
    subject = _slug(args.subject)
    described = None
    if args.folder is not None or args.tag is not None or args.property is not None or args.daily_notes:
        only = _rules_from(args, subject)
        if len(only) != 1:
            raise CommandError("name one rule to remove (or none: every rule of the subject)")
        described = only[0].describe()
    try:
        change = remove_rules(args.vault, subject, described)
    except RuleChangeError as exc:
        raise CommandError(str(exc)) from None
    for rule in change.changed:
        print(f"{subject}: {rule.describe()} removed")
    print("Nothing in the vault was changed; notes that name the subject in their own properties keep it.")
    return 0


def subject_suggest(args: argparse.Namespace) -> int:
    from vault_recall.server.recall.answers.rule_suggestions import suggestions

    vault = _vault(args.vault)
    found = suggestions(Path(vault.path).expanduser(), vault.subject_rules)
    suggested = found.proposed
    if not suggested and found.already:
        print(
            f"Every rule proposed for vault {vault.name!r} is already one of its rules "
            "(`vault-recall subject list` shows them)."
        )
        return 0
    if not suggested:
        print(
            f"Nothing to propose for vault {vault.name!r}: no folder, tag or list property shared by enough notes "
            "that is a subject (not a workflow marker, drawings or attachments, nor notes a rule takes already)."
        )
        return 0
    print(f"Rules proposed for vault {vault.name!r} (notes each would take now):")
    for proposal in suggested:
        print(f"  {proposal.notes:>6}  {proposal.command()}" + ("" if args.vault is None else f" --vault {vault.name}"))
    print("Nothing is added until you run one; `vault-recall subject remove SLUG` undoes it.")
    return 0


def _rules_from(args: argparse.Namespace, subject: str) -> list[SubjectRule]:
    rules: list[SubjectRule] = []
    for folder in args.folder or ():
        _check("folder", folder)
        rules.append(SubjectRule(subject, folder=clean_folder(folder)))
    for tag in args.tag or ():
        _check("tag", tag)
        rules.append(SubjectRule(subject, tag=tag.strip().lstrip("#")))
    for pair in args.property or ():
        name, equals, value = pair.partition("=")
        if not equals:
            raise CommandError(f"--property {pair!r} must be NAME=VALUE, e.g. categories=Books")
        _check("property", name, value.strip() or None)
        rules.append(SubjectRule(subject, property_name=name.strip(), value=value.strip()))
    if args.daily_notes:
        rules.append(SubjectRule(subject, daily_notes=True))
    if not rules:
        raise CommandError("say which notes: --folder PATH, --tag TAG, --property NAME=VALUE or --daily-notes")
    return rules


def _check(way: str, value: str, property_value: str | None = None) -> None:
    problem = rule_problem(way, value, property_value)
    if problem is not None:
        raise CommandError(problem)


def _slug(subject: str) -> str:
    if not SUBJECT_PATTERN.fullmatch(subject):
        raise CommandError(f"{subject!r} is not a subject slug: 1-64 lowercase letters, digits or '-'")
    return subject


def _vault(name: str | None) -> VaultEntry:
    try:
        return chosen_vault(load_config(), name)
    except RuleChangeError as exc:
        raise CommandError(str(exc)) from None


def _counts(root: Path, rules: SubjectRules) -> dict[str, int]:
    from vault_recall.server.errors import VaultUnavailable
    from vault_recall.server.recall.answers.rule_suggestions import notes_taken

    try:
        return dict(notes_taken(root, rules))
    except VaultUnavailable:
        return {}


def _notes(count: int) -> str:
    return "1 note" if count == 1 else f"{count} notes"


def add_subject_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`vault-recall subject` and its actions, as argparse reads them (parser.py builds the rest)."""
    subject = commands.add_parser(
        "subject",
        help="which notes of a vault are records of a subject: rules by folder, tag or property",
        description="Subject rules make the notes a vault already has recallable without editing one: every "
        "note a rule takes is an active decision record of its subject unless its own properties say otherwise. "
        "Rules live in Vault Recall's config, never in the vault, and every client's next call reads them.",
    )
    actions = subject.add_subparsers(dest="action", metavar="ACTION", required=True)

    def which_notes(parser: argparse.ArgumentParser, what: str) -> None:
        parser.add_argument("--folder", action="append", metavar="PATH", help=f"{what} under this vault folder")
        parser.add_argument(
            "--tag", action="append", metavar="TAG", help=f"{what} tagged TAG or TAG/… (properties or #TAG)"
        )
        parser.add_argument(
            "--property",
            action="append",
            metavar="NAME=VALUE",
            help=f"{what} whose property NAME is VALUE or lists it (a [[link]] by its note's name)",
        )
        parser.add_argument("--daily-notes", action="store_true", help=f"{what} that are daily notes, as dated events")

    def vault_option(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--vault", metavar="NAME", help="the vault (default: the active one)")

    add = actions.add_parser("add", help="add rules: the notes they take become records of SUBJECT")
    add.add_argument("subject", metavar="SUBJECT", help="a slug: lowercase letters, digits, '-'")
    which_notes(add, "notes")
    vault_option(add)
    add.set_defaults(handler=subject_add)
    listed = actions.add_parser("list", help="a vault's rules and how many notes each subject takes")
    vault_option(listed)
    listed.set_defaults(handler=subject_list)
    remove = actions.add_parser("remove", help="remove a subject's rules (or one of them); no note is touched")
    remove.add_argument("subject", metavar="SUBJECT")
    which_notes(remove, "only the rule for notes")
    vault_option(remove)
    remove.set_defaults(handler=subject_remove)
    suggest = actions.add_parser(
        "suggest", help="rules proposed from the vault's folders, tags and list properties, with note counts"
    )
    vault_option(suggest)
    suggest.set_defaults(handler=subject_suggest)
