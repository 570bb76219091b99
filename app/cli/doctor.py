"""`vault-recall doctor`: check the whole chain on this machine and say what to fix.

config readable → vault readable → activity store writable → tray backend and a panel to show
it → folder dialog → clipboard → each installed client's entry, started as that client starts
it (the same command, the environment that client gives a server), reaching this config and
this activity store (clients/probe.py); or, for an entry by URL, the endpoint reached at its
URL with the token the client will send, taking it as this client's, reading this config and
writing this activity store (clients/url_probe.py).  Every fix keeps the form the entry has: a
command that would switch a client to the other form is never what doctor suggests.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import sqlite3
from pathlib import Path
from typing import Any, assert_never
from urllib.parse import urlsplit, urlunsplit

from vault_recall.app.app_errors import InstallError
from vault_recall.app.cli.doctor_check import Check
from vault_recall.app.cli.doctor_desktop import desktop_checks
from vault_recall.app.cli.doctor_oauth import by_oauth
from vault_recall.app.clients.catalogue import CLIENTS, SERVER_NAME, TOKEN_ENV, ClientSpec
from vault_recall.app.clients.claude_scopes import LocalEntry, local_entries
from vault_recall.app.clients.entry_form import form_of
from vault_recall.app.clients.install import current_entry, read_existing
from vault_recall.app.clients.probe import entry_argv, probe
from vault_recall.app.clients.url_probe import UrlProbe, probe_url
from vault_recall.app.clients.url_token import url_token
from vault_recall.app.state.health import check_health
from vault_recall.server.activity.database import connect, store_problem
from vault_recall.server.config.call_scope import ServeOptions, current_scope
from vault_recall.server.config.config_file import activity_path, config_path, load_config
from vault_recall.server.errors import ActivityStoreError, ConfigError
from vault_recall.server.http.address import DEFAULT_LISTEN, DEFAULT_URL, PATH, is_loopback
from vault_recall.server.recall.answers.rule_suggestions import suggestions
from vault_recall.server.recall.subject_rules import SubjectRule
from vault_recall.server.vault.listing import vault_name


def run_checks() -> list[Check]:
    checks = [_config()]
    if checks[0].ok:
        checks.append(_vault())
    checks += [_activity(), *desktop_checks(), *_clients()]
    return checks


def _config() -> Check:
    path = config_path()
    try:
        config = load_config()
    except ConfigError as exc:
        return Check("config", False, str(exc), "fix that line (Vault Recall never overwrites a broken config)")
    where = str(path) if path.exists() else f"{path} (not created yet: defaults)"
    if config.paused:
        return Check(
            "config", False, f"{where}: recall is paused (every call answers `unavailable`)", "vault-recall resume"
        )
    return Check("config", True, f"{where}; {len(config.vaults)} vault(s), {len(config.clients)} client(s)")


def _vault() -> Check:
    scope = current_scope(ServeOptions(client="vault-recall-doctor"))
    report = check_health(scope.vault, scope.why or "no vault is configured")
    if report.status == "unavailable":
        return Check("vault", False, report.summary(), "vault-recall vault add PATH, or fix the folder named above")
    broken = " (see vault-recall health)" if report.status == "degraded" else ""
    if scope.notice is not None:
        return Check(
            "vault", False, report.summary() + ": the bundled sample vault, not yours", "vault-recall vault add PATH"
        )
    if report.no_records_yet:  # first, though some notes are broken: a real vault has a few
        return Check(
            "vault",
            False,
            report.summary() + f"{broken}: no note names a `subject` in its properties and no subject rule "
            "takes one, so a client that sees records has nothing to recall",
            _first_subjects(scope.vault, scope.exposure.rules.rules),
        )
    if report.records == 0:  # every record it may have is broken
        return Check(
            "vault",
            False,
            report.summary() + ": no record can be read — broken notes name a subject or a rule may take them, "
            "or a folder cannot be read",
            "fix the notes `vault-recall health` names (its reasons say how)",
        )
    return Check("vault", True, report.summary() + broken)


def _first_subjects(root: Path | None, rules: tuple[SubjectRule, ...]) -> str:
    """How to give the vault records without editing it: the most useful rule it suggests
    (Suggestions.most_useful), and where the rest are."""
    best = suggestions(root, rules).most_useful() if root is not None else None
    example = f"`{best.command()}` ({best.notes:,} notes), or " if best is not None else ""
    return (
        f"{example}see `vault-recall subject suggest`: subjects from your folders, tags and properties, "
        "kept in Vault Recall's config (the vault is never edited)"
    )


def _activity() -> Check:
    path = activity_path()
    problem = store_problem(path)
    if problem is not None:
        sentence, _, fix = problem.partition("; ")
        return Check("activity", False, sentence, fix or "move it away")
    if not path.exists():  # a check makes nothing: the first call makes it, where it can
        return _activity_to_come(path)
    try:
        connection = connect(path)
        connection.close()
    except (sqlite3.Error, OSError, ValueError, ActivityStoreError) as exc:
        return Check(
            "activity",
            False,
            f"{path} cannot be written: {exc}",
            f"make {path.parent} writable for you (calls still answer; activity is not recorded)",
        )
    return Check("activity", True, f"{path} is writable")


def _activity_to_come(path: Path) -> Check:
    """No activity store yet: whether the first call can make it, judged by the folder nearest
    to it that exists (the state folders are made on the way), without making anything."""
    folder = path.parent
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    if folder.is_dir() and os.access(folder, os.W_OK | os.X_OK):
        return Check("activity", True, f"{path} is not made yet: the first call makes it ({folder} is writable)")
    fix = f"make {folder} writable for you" if folder.is_dir() else f"move {folder} away: a folder goes there"
    return Check(
        "activity",
        False,
        f"{path} cannot be made: {folder} is not a folder you may write in",
        fix + " (calls still answer; activity is not recorded)",
    )


def _clients() -> list[Check]:
    checks = []
    for spec in CLIENTS:
        path = spec.config_file()
        if path is None or not path.exists():
            continue
        text = read_existing(path) or ""
        try:
            entry = current_entry(spec, text, str(path))
        except InstallError as exc:
            checks.append(Check(f"client {spec.id}", False, str(exc), f"fix {path} by hand"))
            continue
        if entry is not None:
            checks.append(_entry_check(spec, path, entry))
        if spec.id == "claude-code":
            checks += [_local_check(spec, path, local) for local in local_entries(text)]
    return checks


def _entry_check(spec: ClientSpec, path: Path, entry: dict[str, Any]) -> Check:
    form = form_of(entry)
    if form == "url":
        return _url_answers(spec, path, entry)
    if form == "stdio":
        return _answers(spec, path, entry)
    return _neither_form(spec, path, form)


def _local_check(spec: ClientSpec, path: Path, local: LocalEntry) -> Check:
    """A local-scope entry of Claude Code's, checked as any entry: in its project it is the one
    used.  Its fix is to remove it there, so the user entry `install` keeps is used instead."""
    check = _entry_check(spec, Path(f"{path} (local to {local.project})"), local.entry)
    if check.ok:
        return check
    remove = f"in {local.project}: claude mcp remove {SERVER_NAME} -s local (then the user entry is used there)"
    # `install` writes the user entry, which this one shadows: a fix naming it would change nothing here.
    fix = remove if "vault-recall install" in check.fix else f"{check.fix}; or {remove}"
    return dataclasses.replace(check, fix=fix)


def _neither_form(spec: ClientSpec, path: Path, form: str) -> Check:
    what = f"client {spec.id}"
    if form == "both":
        refuses = f", and {spec.name} refuses to start with it" if spec.id == "codex" else ""
        return Check(
            what,
            False,
            f"{path}: our entry holds both a command and a URL (an older install merged them){refuses}",
            f"vault-recall install {spec.id} ({spec.name} starts Vault Recall) or vault-recall install {spec.id} "
            "--form http (by URL): either writes our entry anew, whole",
        )
    return Check(what, False, f"{path}: our entry holds neither a command nor a URL", f"vault-recall install {spec.id}")


def _answers(spec: ClientSpec, path: Path, entry: dict[str, Any]) -> Check:
    """Start the entry as its client does and check it reaches this config and store."""
    what = f"client {spec.id}"
    argv = entry_argv(spec, entry)
    pinned = argv[argv.index("--vault") + 1] if "--vault" in argv[:-1] else None
    # The same entry written anew: a pinned vault stays pinned.
    pin = f" --pin-vault {shlex.quote(pinned)}" if pinned else ""
    reinstall = f"vault-recall install {spec.id}{pin} (from the shell whose config you mean)"
    if not argv or not Path(argv[0]).is_absolute():
        return Check(what, False, f"{path} starts {argv[:1]!r}, not an absolute path", reinstall)
    if not (Path(argv[0]).is_file() and os.access(argv[0], os.X_OK)):
        return Check(what, False, f"{path} starts {argv[0]}, which does not exist or cannot run", reinstall)
    client = argv[argv.index("--client") + 1] if "--client" in argv[:-1] else spec.id
    scope = current_scope(ServeOptions(client=client, pinned_vault=Path(pinned) if pinned else None))
    expected = vault_name(scope.vault) if scope.vault is not None else None
    result = probe(spec, entry, expected, activity_path())
    return Check(what, result.ok, f"{path}: {result.detail}", "" if result.ok else reinstall)


def _url_answers(spec: ClientSpec, path: Path, entry: dict[str, Any]) -> Check:
    """Reach the entry's URL with the token its client will send, and check who answers, for
    whom, from which config and into which activity store.  Every fix keeps the URL form."""
    what = f"client {spec.id}"
    sends = url_token(spec, entry, path, place="the entry")
    assert sends is not None  # a URL entry
    url = sends.url
    again = f"vault-recall install {spec.id} --form http" + ("" if url == DEFAULT_URL else f" --url {url}")
    if spec.id == "codex":
        again += f", then export the {TOKEN_ENV} line it prints where you start Codex"
    # An entry naming no token most often authorizes with OAuth: `install --form http` would
    # swap that for a token, another setup than the person's, so its address is corrected in place.
    readdress = f"correct the URL in {path}" if sends.names_none else again
    answer = probe_url(url, sends.token, activity_path())
    at = f"{path}: by URL, {url}"
    match answer.outcome:
        case "unreachable" | "timeout":
            return Check(what, False, f"{at}: {answer.detail}", _start_fix(url, readdress))
        case "not_ours":
            fix = f"check the address in {path}" + ("" if sends.names_none else f"; {again} writes another")
            return Check(what, False, f"{at}: {answer.detail}", fix)
        case "wrong_path":
            right = urlunsplit(urlsplit(url)._replace(path=answer.path or PATH))
            fix = (
                f"put {right} as the URL in {path}"
                if sends.names_none
                else f"vault-recall install {spec.id} --form http --url {right}"
            )
            return Check(what, False, f"{at}: {answer.detail} ({answer.path})", fix)
        case "no_token":
            if answer.oauth and sends.names_none:
                return by_oauth(spec, at, url, path)
            why = sends.missing or "the entry sends no token"
            if spec.id == "codex" and sends.variable:
                fix = (
                    f"export {sends.variable}=<codex's token> in the shell that starts Codex; lost it? "
                    "vault-recall install codex --form http makes a new one and prints that line"
                )
            else:
                fix = again
            return Check(what, False, f"{at} answers, but {why}", fix)
        case "token_refused":
            detail = f"{at} refused the token in {sends.where}: it was revoked, replaced by a newer one, or mistyped"
            return Check(what, False, detail, again + " (a new token for this entry)")
        case "host_refused":
            host = urlsplit(url).hostname or url
            fix = f"start the endpoint with --allow-host {host} (it answers only to the names it was started with)"
            return Check(what, False, f"{at}: {answer.detail}", fix)
        case "config_broken":
            return Check(what, False, f"{at}: {answer.detail}", "vault-recall status names the line to fix")
        case "no_answer":
            return Check(what, False, f"{at}: {answer.detail}", "see what the endpoint wrote on its stderr")
        case "ok":
            return _url_reached(spec, at, sends.where, answer, again)
        case _:
            assert_never(answer.outcome)


def _url_reached(spec: ClientSpec, at: str, where: str, answer: UrlProbe, again: str) -> Check:
    what = f"client {spec.id}"
    store = activity_path()
    restart = "stop that endpoint and start vault-recall http from the shell whose config you mean (or from the tray)"
    if answer.client is None:
        return Check(what, False, f"{at} answered, but writes its activity somewhere other than {store}", restart)
    if answer.client != spec.id:
        detail = (
            f"{at} takes the token in {where} as {answer.client!r}'s, not {spec.id!r}'s: its calls show as "
            f"{answer.client} and see what {answer.client} may see"
        )
        return Check(what, False, detail, again + f" (a token of {spec.id}'s own)")
    scope = current_scope(ServeOptions(client=spec.id))
    expected = vault_name(scope.vault) if scope.vault is not None else None
    if answer.vault != expected:
        found = f"vault {answer.vault!r}" if answer.vault is not None else "no vault"
        wanted = f"vault {expected!r}" if expected is not None else "none"
        return Check(what, False, f"{at} reads another config: it finds {found}, this config gives {wanted}", restart)
    return Check(
        what,
        True,
        f"{at} takes the token in {where} as {spec.id!r}'s, reads this config (vault {answer.vault!r}) and "
        "writes this activity store",
    )


def _start_fix(url: str, again: str) -> str:
    """How to start the endpoint the entry names (or put the right address in the entry)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if not is_loopback(host):
        return f"start vault-recall http on the machine at {host} (and its tunnel or network); or {again}"
    listen = f"{host}:{parts.port or (443 if parts.scheme == 'https' else 80)}"
    start = "vault-recall http" if listen == DEFAULT_LISTEN else f"vault-recall http --listen {listen}"
    return f"start the endpoint: {start}, or the tray's HTTP endpoint ▸ Start (a wrong address? {again})"


def report(checks: list[Check]) -> str:
    width = max(len(c.what) for c in checks)
    lines = []
    for check in checks:
        mark = "note" if check.note else "ok  " if check.ok else "FAIL"
        lines.append(f"{mark}  {check.what:<{width}}  {check.detail}")
        if check.fix and (check.note or not check.ok):
            lines.append(f"      {'':<{width}}  {'tip' if check.note else 'fix'}: {check.fix}")
    return "\n".join(lines)
