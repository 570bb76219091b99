"""The Clients menu's *Copy URL snippet*: a client's entry for `vault-recall http`, with a token
the person can see and paste — and never a new token that silently breaks an entry installed
with the old one.

When the client's installed entry already sends the token the config knows, the snippet reuses
it and nothing changes.  Otherwise a new token is made, and both the item's label and the
notification say what that does to an installed entry.  A client that reads its token from the
environment (Codex) gets the token in the snippet too, as the line that sets it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from vault_recall.app.clients.catalogue import TOKEN_ENV, ClientSpec
from vault_recall.app.clients.snippets import http_snippet
from vault_recall.app.state.config_store import issue_token
from vault_recall.app.tray.installed import Installed
from vault_recall.server.config.config_file import ClientEntry
from vault_recall.server.http.address import DEFAULT_URL


def reuses_token(installed: Installed | None, client: ClientEntry | None) -> bool:
    """The installed entry sends the token the config knows: a snippet can carry it as it is."""
    return (
        installed is not None
        and installed.by_url
        and installed.token is not None
        and client is not None
        and client.token_sha256 == installed.token_sha256
    )


def label(installed: Installed | None, client: ClientEntry | None) -> str:
    if reuses_token(installed, client):
        return "Copy URL snippet (its installed token)"
    if installed is not None and installed.by_url:
        return "Copy URL snippet (new token; the installed one stops working)"
    if client is not None and client.token_sha256 is not None:
        return "Copy URL snippet (new token; its old one stops working)"
    return "Copy URL snippet (new token)"


def shown_path(path: Path) -> str:
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


def copy_url_snippet(
    spec: ClientSpec,
    installed: Installed | None,
    client: ClientEntry | None,
    endpoint_url: str | None,
    copy: Callable[[str], bool],
    notify: Callable[[str, str], None],
) -> None:
    """Copy the client's URL entry, and say where its token is and what changed."""
    url = endpoint_url or (installed.url if installed is not None and installed.by_url else None) or DEFAULT_URL
    if reuses_token(installed, client):
        assert installed is not None and installed.token is not None
        token, said = installed.token, f"With the token already in {shown_path(installed.path)}: nothing changed."
    else:
        token, replaced = issue_token(spec.id)
        said = "With a new token, in the snippet."
        if installed is not None and installed.by_url:
            where = shown_path(installed.path)
            said += f" The entry in {where} still has the old one, which no longer works: paste this there."
        elif replaced:
            said += " The client's old token no longer works."
    text = http_snippet(spec, url, token)
    if token not in text:  # the client reads it from its environment, not from its file
        text += (
            f"\n# {spec.name} reads the token from the environment variable {TOKEN_ENV}: set it where it starts,\n"
            f"# e.g. in a file only you can read, sourced by your shell's profile:\n"
            f"# export {TOKEN_ENV}={token}\n"
        )
        said += f" {spec.name} reads it from {TOKEN_ENV}: the snippet's last line sets it."
    if endpoint_url is None:
        said += " The HTTP endpoint is not running: start it under HTTP endpoint."
    if copy(text):
        notify(f"{spec.name} URL snippet copied", said)
    elif token != (installed.token if installed is not None else None):
        # The new token exists nowhere else now: it must not be lost with the clipboard.
        notify(f"{spec.name} URL snippet not copied", f"Nothing could copy it. Its new token is {token}")
    else:
        notify(f"{spec.name} URL snippet not copied", "Nothing could copy it: install xclip or wl-clipboard.")
