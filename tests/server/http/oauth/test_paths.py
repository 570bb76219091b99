"""The guard of an endpoint started with --no-oauth tells a client looking for OAuth how the
endpoint is reached instead (`oauth_not_offered`); it must know every path the OAuth router
serves when OAuth is on, or a client asking one of the others is told only "nothing here"."""

from __future__ import annotations

from vault_recall.server.http.guard import looks_for_oauth
from vault_recall.server.http.oauth import routes as oauth_routes


def test_every_path_the_oauth_router_serves_is_known_to_the_guard() -> None:
    served = sorted(oauth_routes.OAUTH_PATHS | oauth_routes.OPENID_PATHS)
    assert served, "the router's path lists are empty"
    assert [path for path in served if not looks_for_oauth(path)] == []


def test_paths_only_alike_are_not_taken_for_oauth() -> None:
    assert not looks_for_oauth("/registered")
    assert not looks_for_oauth("/tokens")
    assert not looks_for_oauth("/mcp")
