"""`vault-recall vault …` and `vault-recall client …`: the commands that change the config."""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import sys
from pathlib import Path
from typing import assert_never

from vault_recall.app.app_errors import CommandError
from vault_recall.app.state.config_store import update_config
from vault_recall.app.state.health import check_health
from vault_recall.app.state.obsidian_vaults import discover_vaults
from vault_recall.app.timefmt import ago
from vault_recall.server.activity.database import store_problem
from vault_recall.server.activity.queries import latest_per_client
from vault_recall.server.config.config_file import (
    ACTIVE,
    CLIENT_ID_PATTERN,
    ClientEntry,
    ClientExposure,
    Config,
    VaultEntry,
    activity_path,
    load_config,
    named_exposure,
)
from vault_recall.server.recall.records import SUBJECT_PATTERN
from vault_recall.server.vault.paths import display, is_displayable


def vault_list(args: argparse.Namespace) -> int:
    config = load_config()
    if not config.vaults:
        print("No vaults yet. Add one: vault-recall vault add PATH   (or see: vault-recall vault discover)")
        return 0
    for vault in config.vaults:
        mark = "*" if vault.name == config.active_vault else " "
        reachable = "" if Path(vault.path).expanduser().is_dir() else "   (folder not found)"
        sample = "   (the bundled sample: examples, not your notes)" if vault.sample else ""
        print(f"{mark} {vault.name}\t{vault.path}{reachable}{sample}")
    print("\n* = the active vault")
    return 0


def vault_add(args: argparse.Namespace) -> int:
    path = Path(args.path).expanduser().absolute()
    if not is_displayable(str(path)):
        raise CommandError(f"{display(path)} is not a UTF-8 path, which the config file cannot hold")
    if not path.is_dir():
        raise CommandError(f"{path} is not a folder")
    name = (args.name if args.name is not None else path.name).strip()
    if not name:
        raise CommandError("this vault needs a name: give one with --name")

    def change(config: Config) -> Config:
        # The folder first: a second name for a vault already added is never what was meant.
        same = [v.name for v in config.vaults if Path(v.path).expanduser().absolute() == path]
        if same:
            raise CommandError(f"{path} is added already, as {same[0]!r} (vault-recall vault use {same[0]})")
        if config.vault(name):
            raise CommandError(f"a vault named {name!r} exists already; pick another with --name")
        current = config.vault(config.active_vault) if config.active_vault else None
        active = name if current is None or current.sample else config.active_vault  # your first vault
        return dataclasses.replace(
            config, vaults=(*config.vaults, VaultEntry(name=name, path=str(path))), active_vault=active
        )

    config = update_config(change)
    print(f"Added vault {name!r} ({path})" + (", now active" if config.active_vault == name else ""))
    if not (path / ".obsidian").is_dir():  # told once it is added: a refused add adds no note
        print(f"note: {path} has no .obsidian folder; is it an Obsidian vault?", file=sys.stderr)
    report = check_health(path)
    if report.status != "unavailable" and report.records == 0 and report.notes:
        # A vault as people keep it names no `subject`: the next step is a rule, not editing notes.
        print(
            f"None of its {report.notes:,} notes is a memory record yet: `vault-recall subject suggest` proposes "
            "subjects from its folders, tags and properties, kept in Vault Recall's config (your notes are not edited)"
        )
    return 0


def vault_use(args: argparse.Namespace) -> int:
    def change(config: Config) -> Config:
        if not config.vault(args.name):
            raise CommandError(f"there is no vault named {args.name!r} (see: vault-recall vault list)")
        return dataclasses.replace(config, active_vault=args.name)

    update_config(change)
    print(f"Active vault: {args.name} — every client's next call reads it")
    return 0


def vault_remove(args: argparse.Namespace) -> int:
    def change(config: Config) -> Config:
        if not config.vault(args.name):
            raise CommandError(f"there is no vault named {args.name!r} (see: vault-recall vault list)")
        users = [c.id for c in config.clients if c.vault == args.name]
        if users:
            raise CommandError(f"client {users[0]!r} uses vault {args.name!r}; point it elsewhere first")
        rest = tuple(v for v in config.vaults if v.name != args.name)
        active = config.active_vault if config.active_vault != args.name else (rest[0].name if rest else None)
        return dataclasses.replace(config, vaults=rest, active_vault=active)

    config = update_config(change)
    print(
        f"Removed vault {args.name!r} (its folder is untouched)"
        + (f"; active: {config.active_vault}" if config.active_vault else "")
    )
    return 0


def vault_languages(args: argparse.Namespace) -> int:
    from vault_recall.server.recall.ranking.languages import check_languages

    if not args.languages:
        vault = load_config().vault(args.name)
        if vault is None:
            raise CommandError(f"there is no vault named {args.name!r} (see: vault-recall vault list)")
        print(f"{vault.name}: {', '.join(vault.languages)}")
        return 0
    try:
        chosen = check_languages(lang.lower() for lang in args.languages)
    except ValueError as exc:
        raise CommandError(str(exc)) from None

    def change(config: Config) -> Config:
        if not config.vault(args.name):
            raise CommandError(f"there is no vault named {args.name!r} (see: vault-recall vault list)")
        vaults = tuple(dataclasses.replace(v, languages=chosen) if v.name == args.name else v for v in config.vaults)
        return dataclasses.replace(config, vaults=vaults)

    update_config(change)
    print(f"{args.name}: recall now matches words in {', '.join(chosen)} — from every client's next call")
    return 0


def vault_discover(args: argparse.Namespace) -> int:
    known = discover_vaults()
    if not known:
        print("Obsidian's vault list was not found or is empty on this computer.")
        return 0
    added = {Path(v.path).expanduser().absolute() for v in load_config().vaults}
    for vault in known:
        mark = "added" if vault.path.absolute() in added else "     "
        missing = "" if vault.path.is_dir() else "   (folder not found)"
        print(f"{mark}  {vault.name}\t{vault.path}{missing}")
    print("\nAdd one with: vault-recall vault add PATH")
    return 0


def client_list(args: argparse.Namespace) -> int:
    config = load_config()
    problem = store_problem(activity_path())
    if problem is not None:
        print(f"note: {problem}", file=sys.stderr)
    seen = {s.client: s for s in latest_per_client(activity_path())}
    ids = [c.id for c in config.clients] + sorted(set(seen) - {c.id for c in config.clients})
    if not ids:
        print("No clients yet. Register one: vault-recall client add ID")
        return 0
    for client_id in ids:
        entry = config.client(client_id)
        exposure = describe_exposure(entry.exposure) if entry else "records (not registered)"
        vault = entry.vault if entry else ACTIVE
        last = f"last call {ago(seen[client_id].last_ts)}" if client_id in seen else "no calls yet"
        print(f"{client_id}\tvault: {vault}\tsees: {exposure}\t{last}")
    return 0


def client_add(args: argparse.Namespace) -> int:
    require_client_id(args.id)

    def change(config: Config) -> Config:
        if config.client(args.id):
            raise CommandError(f"client {args.id!r} is registered already")
        if args.vault != ACTIVE and not config.vault(args.vault):
            raise CommandError(f"there is no vault named {args.vault!r}")
        return dataclasses.replace(config, clients=(*config.clients, ClientEntry(id=args.id, vault=args.vault)))

    update_config(change)
    print(f"Registered client {args.id!r}: sees memory records of every subject (change with: client expose)")
    return 0


def client_expose(args: argparse.Namespace) -> int:
    require_client_id(args.id)
    rule: ClientExposure
    named = named_exposure(args.rule[0]) if len(args.rule) == 1 else None
    if named is not None:
        rule = named
    elif {"records", "vault"} & set(args.rule):
        raise CommandError("'records' and 'vault' stand alone; to share some subjects, list only them")
    else:
        bad = [s for s in args.rule if not SUBJECT_PATTERN.fullmatch(s)]
        if bad:
            raise CommandError(f"{bad[0]!r} is not a subject slug, nor 'records' or 'vault'")
        rule = tuple(dict.fromkeys(args.rule))

    def change(config: Config) -> Config:
        if config.client(args.id) is None:
            clients = (*config.clients, ClientEntry(id=args.id, exposure=rule))
        else:
            clients = tuple(dataclasses.replace(c, exposure=rule) if c.id == args.id else c for c in config.clients)
        return dataclasses.replace(config, clients=clients)

    update_config(change)
    print(f"Client {args.id!r} now sees: {describe_exposure(rule)} — from its next call on")
    if isinstance(rule, tuple):
        for line in _subjects_not_there(args.id, rule):
            print(f"note: {line}", file=sys.stderr)
    return 0


def _subjects_not_there(client_id: str, subjects: tuple[str, ...]) -> list[str]:
    """The subjects shared that the client's vault has no note or rule for yet — a typo, most
    often.  Kept, not refused: a subject may be shared before its first note is written."""
    from vault_recall.server.config.call_scope import ServeOptions, current_scope
    from vault_recall.server.recall.answers.subjects import list_subjects
    from vault_recall.server.recall.scope import Exposure

    scope = current_scope(ServeOptions(client=client_id))
    # Every subject of the client's vault, as a client seeing every subject's records lists them
    # (a rule's subject too, while it takes no note yet) — not only the ones just shared.
    listed = list_subjects(dataclasses.replace(scope, exposure=Exposure(rules=scope.exposure.rules)))
    if listed["status"] == "unavailable":
        return []
    known = [entry["subject"] for entry in listed["subjects"]]
    lines = []
    for subject in subjects:
        if subject in known:
            continue
        close = difflib.get_close_matches(subject, known, n=1)
        meant = f"did you mean {close[0]!r}? " if close else ""
        lines.append(
            f"vault {listed['vault']!r} has no subject {subject!r} yet ({meant}{client_id!r} sees its records "
            "once a note's properties or a subject rule name it)"
        )
    return lines


def describe_exposure(exposure: ClientExposure) -> str:
    match exposure:
        case "records":
            return "memory records of every subject"
        case "vault":
            return "every note of the vault"
        case tuple():
            return "records of " + ", ".join(exposure)
        case _:
            assert_never(exposure)


def require_client_id(client_id: str) -> None:
    if not CLIENT_ID_PATTERN.fullmatch(client_id):
        raise CommandError(f"client id {client_id!r} is not valid: use lowercase letters, digits, '.', '_' or '-'")
