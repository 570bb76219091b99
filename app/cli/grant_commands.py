"""`vault-recall client approve | deny | grants | revoke`: the person's side of OAuth on the
endpoint — an app that authorizes waits until it is approved here (or in the tray), as one of our
client ids, and every grant can be revoked at any time (its tokens are refused from their next
request on)."""

from __future__ import annotations

import argparse
import time

from vault_recall.app.cli.config_commands import CommandError, check_client_id
from vault_recall.app.state.config_store import register
from vault_recall.app.timefmt import ago
from vault_recall.server.config import oauth_approvals, oauth_tokens
from vault_recall.server.config.oauth_approvals import ApprovalError
from vault_recall.server.config.oauth_store import OAuthStoreError


def approve_command(args: argparse.Namespace) -> int:
    if args.as_client is not None:
        check_client_id(args.as_client)
    try:
        request, grant = oauth_approvals.approve(args.code, args.as_client)
    except (ApprovalError, OAuthStoreError) as exc:
        raise CommandError(str(exc)) from None
    added = register(grant.client)
    print(
        f"Approved {request.name!r} ({request.approval_code}) as client {grant.client!r}"
        + (" (a new client: it sees memory records, see `vault-recall client expose`)" if added else "")
        + ". Its browser page now returns it to the app."
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
    except OAuthStoreError as exc:
        raise CommandError(str(exc)) from None
    if not waiting and not granted:
        print("No app has authorized with OAuth, and none is waiting for approval.")
        return 0
    if waiting:
        print("Waiting for your approval (vault-recall client approve CODE [--as ID], or deny CODE):")
        for request in waiting:
            print(f"  {request.approval_code}  {request.name!r}, would be client {request.suggested_client!r}")
    if granted:
        if waiting:
            print()
        print("Granted (vault-recall client revoke CLIENT|GRANT):")
        print("  grant     client            app                       approved      last used")
        for grant in granted:
            used = ago(grant.last_used, now) if grant.last_used else "never"
            print(f"  {grant.id:<9} {grant.client:<17} {grant.app_name[:25]:<25} {ago(grant.created, now):<13} {used}")
    return 0


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
