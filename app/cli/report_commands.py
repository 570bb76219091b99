"""`vault-recall activity`, `health` and `status`: reading the shared state, changing nothing."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from vault_recall.app.app_errors import CommandError
from vault_recall.app.cli.config_commands import describe_exposure
from vault_recall.app.state.health import HealthReport, check_health
from vault_recall.app.state.note_revisions import NoteRef, change_of, revisions_now, vault_folders, within_reach
from vault_recall.app.state.obsidian_vaults import discover_vaults, last_opened
from vault_recall.app.timefmt import ago, clock
from vault_recall.app.tray.menu.items import client_name
from vault_recall.app.tray.news.changed_notes import (
    RECALL_WINDOW_SECONDS,
    ChangeNotices,
    notice_text,
    stale_notes,
    vanished_text,
    watched_notes,
)
from vault_recall.app.tray.news.vault_health import CHOOSE_BY_COMMAND, SHOWN, unreadable_news
from vault_recall.app.tray.notices import PAUSED_STATUS, SAMPLE, plural, problem_line
from vault_recall.server.activity.database import store_problem
from vault_recall.server.activity.event_rows import EventRow, status_text
from vault_recall.server.activity.queries import (
    count_events,
    latest_per_client,
    latest_recalls,
    newest_event_id,
    recent_events,
)
from vault_recall.server.config.call_scope import ServeOptions, current_scope
from vault_recall.server.config.config_file import ACTIVE, Config, activity_path, config_path, load_config
from vault_recall.server.errors import ConfigError
from vault_recall.server.vault.listing import vault_name
from vault_recall.server.vault.paths import display

FOLLOW_POLL_SECONDS = 1.0


def activity(args: argparse.Namespace) -> int:
    path = activity_path()
    problem = store_problem(path)
    if problem is not None:
        raise CommandError(problem)
    _warn_if_config_broken()
    events = recent_events(path, limit=args.limit, client=args.client)
    current = _revisions_now(events)
    for event in events:
        print(_format_event(event, current, as_json=args.json), flush=True)
    if not args.follow:
        if not events and not args.json:
            print(f"No activity yet ({path}).")
        return 0
    last = events[-1].id if events else 0
    try:
        while True:  # until Ctrl-C: a person watching their clients
            time.sleep(FOLLOW_POLL_SECONDS)
            newest = newest_event_id(path)
            if newest is not None and newest < last:
                last = 0  # the store was deleted and started again: its ids start over
            batch = recent_events(path, limit=1000, client=args.client, after_id=last)
            current = _revisions_now(batch)
            for event in batch:
                print(_format_event(event, current, as_json=args.json), flush=True)
                last = event.id
    except KeyboardInterrupt:
        return 0


def _warn_if_config_broken() -> None:
    """The activity store does not depend on the config, but a broken config means every call
    shown after it answers `unavailable`: say so rather than let the list look normal."""
    try:
        load_config()
    except ConfigError as exc:
        print(f"note: {exc} (every client's calls answer `unavailable` until it is fixed)", file=sys.stderr)


def _revisions_now(events: Sequence[EventRow]) -> dict[NoteRef, str | None]:
    """The revision now of every whole note these events returned, read once per note, for
    the "changed since" marks (nothing when the config cannot say where the vaults are)."""
    try:
        config = load_config()
    except ConfigError:
        return {}
    notes = [(e.vault or "", path) for e in reversed(events) for path, given in e.given() if given]
    return revisions_now(notes, vault_folders(config, discover_vaults()), limit=1000)


def _changed_since(event: EventRow, current: Mapping[NoteRef, str | None]) -> list[dict[str, str | None]]:
    """The returned notes not as the client was given them any more: {path, was, now} (now
    None: gone)."""
    return [
        {"path": path, "was": given, "now": current[(event.vault or "", path)]}
        for path, given in event.given()
        if change_of((event.vault or "", path), given, current)
    ]


def _format_event(event: EventRow, current: Mapping[NoteRef, str | None], *, as_json: bool) -> str:
    changed = _changed_since(event, current)
    if as_json:
        returned = [{"path": path, "revision": given} for path, given in event.given()]
        fields = {k: v for k, v in event.__dict__.items() if k != "revisions"} | {"status": status_text(event.status)}
        return json.dumps(fields | {"returned": returned, "changed_since": changed}, ensure_ascii=False)
    what = event.subject or ""
    if event.query:
        what += f" {event.query!r}" if what else repr(event.query)
    result = event.error if event.error else f"{status_text(event.status)}, {len(event.returned)} returned"
    marks = {c["path"]: " (changed since)" if c["now"] else " (gone since)" for c in changed}
    shown = [path + marks.get(path, "") for path in event.returned[:3]]
    notes = "; ".join(shown) + (" …" if len(event.returned) > 3 else "")
    return f"{clock(event.ts)}  {event.client:<16} {event.tool:<16} {what:<30} {result}" + (
        f"  [{notes}]" if notes else ""
    )


def health(args: argparse.Namespace) -> int:
    report = _health_of(args.vault)
    if args.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
        return report.exit_code
    print(report.summary())
    if report.path:
        print(f"  folder: {report.path}")
    for subject in report.subjects:
        counts = f"{subject['active']} active, {subject['archived']} archived, {subject['events']} events"
        print(f"  {subject['subject']}: {counts}")
    _section(
        "Invalid notes (fix these; recall reports them as problems)",
        [p["reason"] for p in report.problems],
    )
    _section(
        "Records too large to ever be recalled whole",
        [f"{t['path']}: {t['bytes']:,} bytes (a recall holds at most {t['limit']:,})" for t in report.too_large],
    )
    _section("Symlinks skipped (never followed)", list(report.symlinks))
    _section("Folders that cannot be read", list(report.unreadable_folders))
    _section(
        "Note names used more than once (link to them by path)",
        [f"{a['name']}: {', '.join(a['paths'])}" for a in report.ambiguous_names],
    )
    return report.exit_code


def _health_of(pinned: Path | None) -> HealthReport:
    if pinned is not None:
        return check_health(pinned.expanduser().absolute())
    scope = current_scope(ServeOptions(client="vault-recall-cli"))
    return check_health(scope.vault, scope.why or "no vault is configured")


def _section(title: str, lines: list[str]) -> None:
    if not lines:
        return
    print(f"\n{title}:")
    for line in lines:
        print(f"  {line}")


def status(args: argparse.Namespace) -> int:
    path = config_path()
    print(f"Config:   {path}" + ("" if path.exists() else " (not created yet)"))
    config = load_config()  # a broken config is reported by main() as one sentence, exit 1
    print("Vaults:")
    if not config.vaults:
        print("  none — add one: vault-recall vault add PATH")
    for entry_vault in config.vaults:
        mark = "*" if entry_vault.name == config.active_vault else " "
        sample = "  (the bundled sample: examples, not your notes; add yours: vault-recall vault add PATH)"
        print(f"  {mark} {entry_vault.name}  {entry_vault.path}" + (sample if entry_vault.sample else ""))
    active = config.vault(config.active_vault) if config.active_vault else None
    report = check_health(Path(active.path).expanduser()) if active is not None else None
    if report is not None:
        print(f"  health: {report.summary(config.active_vault)}")  # the name the tray shows
    notices = status_notices(config, report, time.time())
    if notices:
        print("Notices:")
        for notice in notices:
            print(f"  {notice}")
    seen = {s.client: s for s in latest_per_client(activity_path())}
    print("Clients:")
    ids = [c.id for c in config.clients] + sorted(set(seen) - {c.id for c in config.clients})
    if not ids:
        print("  none yet")
    for client_id in ids:
        entry = config.client(client_id)
        sees = describe_exposure(entry.exposure) if entry else "records (not registered)"
        vault = entry.vault if entry else ACTIVE
        summary = seen.get(client_id)
        last = f"{plural(summary.calls, 'call')}, last {ago(summary.last_ts)}" if summary else "no calls"
        print(f"  {client_id}: vault {vault}, sees {sees}; {last}")
    store = activity_path()
    problem = store_problem(store)
    if problem is not None:
        print(f"Activity: {problem}")
        return 1
    print(
        f"Activity: {store} ({count_events(store):,} events kept"
        f"{'' if config.activity.keep_query_text else ', query text not kept'},"
        f" {config.activity.retention_days} days)"
    )
    return 0


# The tray's first menu offers the subjects the vault suggests, one click each; here, the command.
NO_RECORDS_YET = (
    "No memory records yet: `vault-recall subject suggest` proposes subjects from your folders, tags and "
    "properties, kept in Vault Recall's config (your notes are not edited); a note with `subject: some-topic` "
    "in its properties is one too"
)


def status_notices(config: Config, report: HealthReport | None, now: float) -> list[str]:
    """What the tray's first menu and notifications say, in the same sentences, with the
    command that does what the menu's click would."""
    notices = [PAUSED_STATUS] if config.paused else []
    active = config.vault(config.active_vault) if config.active_vault else None
    if active is None or active.sample:
        yours = last_opened([v for v in discover_vaults() if v.path.is_dir()])
        add = f"vault-recall vault add {shlex.quote(str(yours.path))}" if yours else "vault-recall vault add PATH"
        first = SAMPLE if active is not None else "No vault yet"
        notices.append(f"{first}; use yours: {add}")
    if report is not None and report.no_records_yet:
        notices.append(NO_RECORDS_YET)
    if report is not None:
        problems = [problem_line(p["path"], p["reason"]) for p in report.problems]
        notices += problems[:SHOWN]
        if len(problems) > SHOWN:
            notices.append(f"… and {len(problems) - SHOWN} more (vault-recall health)")
    folders = vault_folders(config, discover_vaults())
    recalls = latest_recalls(activity_path(), since=now - RECALL_WINDOW_SECONDS)
    stale = stale_notes(recalls, revisions_now(watched_notes(recalls), folders))
    # As the tray does: a vault gone takes its notes with it, in one notice — the health
    # check's for the active vault (with the count of its recalled notes), else the watcher's.
    told = ""
    if active is not None and report is not None and report.status == "unavailable":
        told = vault_name(Path(active.path).expanduser())
        gone_recalled = sum(1 for ref in watched_notes(recalls) if ref[0] == told)
        name = config.active_vault or told
        notices.append(". ".join(unreadable_news(name, report.reason or "", gone_recalled, CHOOSE_BY_COMMAND)))
    missing = {note.vault for note in stale if note.vault in folders and not within_reach(folders[note.vault])}
    for gone in ChangeNotices().vanished(stale, missing - {told}, now):
        notices.append(". ".join(vanished_text(gone, display(folders[gone.vault]), client_name)))
    notices += [". ".join(notice_text(note, now, client_name)) for note in stale if note.vault not in missing]
    return notices
