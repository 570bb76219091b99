"""Which MCP resource an OAuth code or token is for (RFC 8707): the endpoint's URL at the
address it was asked at.  A token names it, and is taken only there (RFC 8707; the MCP
authorization spec's audience check): another endpoint of this computer sharing the store, or
this one reached by another address, refuses it."""

from __future__ import annotations

from urllib.parse import urlsplit

from vault_recall.server.errors import show_value


def same_resource(given: str, ours: str) -> bool:
    """RFC 8707's resource compared as a URL: case of scheme and host, a default port and a
    trailing slash do not matter."""

    def normal(url: str) -> tuple[str, str, int | None, str] | None:
        try:
            parts = urlsplit(url.strip())
            port = parts.port or {"https": 443, "http": 80}.get(parts.scheme.lower())
            host = (parts.hostname or "").lower()
        except ValueError:
            return None
        if parts.query or parts.fragment:
            return None
        return parts.scheme.lower(), host, port, parts.path.rstrip("/")

    mine = normal(ours)
    return mine is not None and normal(given) == mine


def other_resource(asked: str | None, ours: str) -> str | None:
    """Why a request naming `asked` as its resource is refused here (`invalid_target`), in one
    sentence — None when it names none, or this endpoint.  The authorization request and the
    token request both check it, and say it the same way (the value quoted, shortened as
    every refusal shortens one)."""
    if not asked or same_resource(asked, ours):
        return None
    return f"this server is {ours}, not {show_value(asked, 200)}"
