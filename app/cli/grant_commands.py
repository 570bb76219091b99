"""`vault-recall client approve | deny | grants | revoke`: the person's side of OAuth on the
endpoint — an app that authorizes waits until it is approved here (or in the tray), as one of our
client ids, and every grant can be revoked at any time (its tokens are refused from their next
request on)."""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from vault_recall.app.app_errors import CommandError
from vault_recall.app.cli.config_commands import require_client_id
from vault_recall.app.state.config_store import register
from vault_recall.app.timefmt import ago
from vault_recall.server.errors import ApprovalError, OAuthStoreError
from vault_recall.server.oauth import approvals as oauth_approvals
from vault_recall.server.oauth import client_ids
from vault_recall.server.oauth import tokens as oauth_tokens


def approve_command(args: argparse.Namespace) -> int:
    if args.as_client is not None:
        require_client_id(args.as_client)
    try:
        request, grant = oauth_approvals.approve(args.code, args.as_client)
    except (ApprovalError, OAuthStoreError) as exc:
        raise CommandError(str(exc)) from None
    added = register(grant.client)
    try:
        sharing = client_ids.other_apps_of(grant.client, request.name)
    except OAuthStoreError:
        sharing = []
    shared = (
        f" It shares that client with {', '.join(repr(name) for name in sharing)}, as you chose: one exposure, "
        "one activity and one memory of what changed for all of them."
        if sharing
        else ""
    )
    print(
        f"Approved {request.name!r} ({request.approval_code}) as client {grant.client!r}"
        + (" (a new client: it sees memory records, see `vault-recall client expose`)" if added else "")
        + ". Its browser page now returns it to the app."
        + shared
    )
    return 0


def deny_command(args: argparse.Namespace) -> int:
    try:
        request = oauth_approvals.deny(args.code)
    except (ApprovalError, OAuthStoreError) as exc:
        raise CommandError(str(exc)) from None
    print(f"Denied {request.name!r} ({request.approval_code}): the app is told access was denied.")
    return 0


def grants_command(args: argparse.Namespace) -> int:
    now = time.time()
    try:
        waiting = oauth_approvals.pending_requests(now=now)
        granted = oauth_tokens.grants()
        replayed = oauth_tokens.replayed_grants(now=now)
    except OAuthStoreError as exc:
        raise CommandError(str(exc)) from None
    if not waiting and not granted and not replayed:
        print("No app has authorized with OAuth, and none is waiting for approval.")
        return 0
    sections: list[list[str]] = []
    if waiting:
        lines = ["Waiting for your approval (vault-recall client approve CODE [--as ID], or deny CODE):"]
        lines += [f"  {r.approval_code}  {r.name!r}, would be client {r.suggested_client!r}" for r in waiting]
        sections.append(lines)
    if granted:
        rows = [
            (g.id, g.client, ago(g.created, now), ago(g.last_used, now) if g.last_used else "never", g.app_name)
            for g in granted
        ]
        lines = ["Granted (vault-recall client revoke CLIENT|GRANT):"]
        lines += table(("grant", "client", "approved", "last used", "app"), rows)
        sections.append(lines)
    if replayed:
        lines = ["Revoked for a replay (connect the app again if it is yours; someone may have copied its code):"]
        lines += [
            f"  {g.id}  {g.app_name!r} as client {g.client!r}, {ago(g.revoked or now, now)}: {g.why_revoked()}"
            for g in replayed
        ]
        sections.append(lines)
    print("\n\n".join("\n".join(lines) for lines in sections))
    return 0


def table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> list[str]:
    """Columns as wide as their longest value, never cut; the last one as long as it is."""
    widths = [max(len(row[column]) for row in [header, *rows]) for column in range(len(header) - 1)]
    return [
        "  " + "  ".join(value.ljust(width) for value, width in zip(row, widths, strict=False)) + "  " + row[-1]
        for row in [header, *rows]
    ]


def revoke_command(args: argparse.Namespace) -> int:
    try:
        revoked = oauth_tokens.revoke(args.target)
    except OAuthStoreError as exc:
        raise CommandError(str(exc)) from None
    if not revoked:
        raise CommandError(
            f"no live OAuth grant is for client or grant {args.target!r} (vault-recall client grants lists them; "
            f"a client token is revoked with `vault-recall client token ID --revoke`)"
        )
    for grant in revoked:
        print(
            f"Revoked grant {grant.id} ({grant.app_name!r} as client {grant.client!r}): "
            "its tokens are refused from their next request on"
        )
    return 0
