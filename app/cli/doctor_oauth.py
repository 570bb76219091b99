"""`vault-recall doctor` on an entry that authorizes with OAuth (a URL and no token, at an
endpoint offering OAuth): the grants of its client's app, counted only where they were made at
the entry's exact address, the requests of that app waiting for the person, and a grant a
replay revoked — each told with the fix that keeps the entry's form (its client's own login,
then `vault-recall client approve CODE`).  Reads the OAuth store; never makes it.
"""

from __future__ import annotations

from pathlib import Path

from vault_recall.app.cli.doctor_check import Check
from vault_recall.app.clients.catalogue import ClientSpec
from vault_recall.server.errors import OAuthStoreError
from vault_recall.server.oauth.approvals import Request, pending_requests
from vault_recall.server.oauth.known_apps import known_client
from vault_recall.server.oauth.resources import same_resource
from vault_recall.server.oauth.store import store_path
from vault_recall.server.oauth.tokens import Grant, grant_resources, grants, replayed_grants


def by_oauth(spec: ClientSpec, at: str, url: str, path: Path) -> Check:
    """An entry naming no token, at an endpoint offering OAuth: its client authorizes with
    OAuth, and its calls are answered once the person has approved its app — as whatever client
    id they chose.  Its grants are found by the app (the name the client registers with,
    server/oauth/known_apps.py), or by the id when it was approved as the client's own; one
    counts only when it was made at the entry's exact address (a token is taken only there:
    `localhost` is not `127.0.0.1`)."""
    what = f"client {spec.id}"
    live: list[Grant] = []
    waiting: list[Request] = []
    replayed: list[Grant] = []
    made_at: dict[str, frozenset[str]] = {}
    if store_path().exists():  # none: no app ever authorized here, and a check must not make one
        try:
            live = [grant for grant in grants() if _is_of(spec, grant.app_name, grant.client)]
            waiting = pending_requests()
            replayed = [grant for grant in replayed_grants() if _is_of(spec, grant.app_name, grant.client)]
            made_at = grant_resources()
        except OAuthStoreError as exc:
            return Check(what, False, f"{at}: authorizes with OAuth, but {exc}", "see vault-recall client grants")
    # A grant whose request, codes and tokens are all gone names no address: judged as before.
    here = [g for g in live if not made_at.get(g.id) or any(same_resource(r, url) for r in made_at[g.id])]
    if here:
        acting = ", ".join(sorted({f"{grant.client!r} ({grant.app_name})" for grant in here}))
        count = "1 grant acts" if len(here) == 1 else f"{len(here)} grants act"
        return Check(what, True, f"{at}: authorizes with OAuth; {count} as {acting}")
    # Only its own app's request is offered for approval.  An app no client is known by may be
    # this one, or any program at all: it is named, never offered as the fix, since approving
    # it as this client would give it everything this client may see.
    own = [request for request in waiting if known_client(request.name) == spec.id]
    if own:
        listed = ", ".join(f"{request.name!r} (code {request.approval_code})" for request in own)
        code = own[0].approval_code if len(own) == 1 else "CODE"
        fix = (
            f"vault-recall client approve {code} (it acts as {spec.id}; --as ID names it otherwise), "
            f"or deny it: vault-recall client deny {code}"
        )
        return Check(what, False, f"{at}: authorizes with OAuth, and waits for your approval: {listed}", fix)
    if live:  # made at another address only
        return _made_elsewhere(spec, at, url, path, live, made_at)
    login = spec.oauth_login or f"connect from {spec.name}"
    fix = f"{login}; then vault-recall client approve CODE with the code its page shows"
    if replayed:
        last = replayed[-1]
        why = f"its grant ({last.client!r}) was revoked because {last.why_revoked()}"
        return Check(what, False, f"{at}: authorizes with OAuth, but {why}", fix)
    detail = f"{at}: authorizes with OAuth, and {spec.name} holds no grant here yet"
    unknown = [request for request in waiting if known_client(request.name) is None]
    if unknown:
        listed = ", ".join(f"{request.name!r} (code {request.approval_code})" for request in unknown)
        detail += f"; waiting for approval, by a name no client is known by: {listed}"
        code = unknown[0].approval_code if len(unknown) == 1 else "CODE"
        fix += (
            f" — approve one of those only if it is {spec.name} "
            f"(vault-recall client approve {code} --as {spec.id}); "
            "vault-recall client grants lists them"
        )
    return Check(what, False, detail, fix)


def _made_elsewhere(
    spec: ClientSpec, at: str, url: str, path: Path, live: list[Grant], made_at: dict[str, frozenset[str]]
) -> Check:
    """The client's app holds grants, each made at another address of the endpoint than the
    entry's (`127.0.0.1` for `localhost`, another port): their tokens are refused at the entry's
    URL, so the client authorizes again there — or the entry goes back to where they were made."""
    elsewhere = sorted({resource for grant in live for resource in made_at[grant.id]})
    acting = ", ".join(sorted({f"{grant.client!r} ({grant.app_name})" for grant in live}))
    its, was = ("its grant", "was") if len(live) == 1 else (f"its {len(live)} grants", "were")
    login = spec.oauth_login or f"connect from {spec.name}"
    detail = (
        f"{at}: authorizes with OAuth, but {its} ({acting}) {was} made at {' and '.join(elsewhere)}, and a token "
        f"is taken only at the address it was made at: {spec.name} will have to authorize again at {url}"
    )
    fix = (
        f"{login}; then vault-recall client approve CODE with the code its page shows — "
        f"or put {elsewhere[0]} as the URL in {path} to keep the grant it has"
    )
    return Check(f"client {spec.id}", False, detail, fix)


def _is_of(spec: ClientSpec, app_name: str, client: str) -> bool:
    """Whether a grant is this client's: its app is the client's own, or (an app not known by
    name) it was approved as the client's id."""
    known = known_client(app_name)
    return known == spec.id or (known is None and client == spec.id)
