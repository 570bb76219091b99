"""The bearer token a URL entry of ours makes its client send, and where that token is.

A client sends what its entry says: the `Authorization` header written in the entry (most
clients), a header whose value names an environment variable in the client's own syntax, or —
Codex — the variable the entry names in `bearer_token_env_var`.  Such a variable is read from
the environment the client runs with, which for the command-line clients is the shell that
starts them: this process's environment.

Which installed entries use which client's token is what `snippet --form http` (never rotate a
token an entry uses), `install --form http` (keep the token the entry already holds) and
`uninstall` (revoke a token no entry uses any more) need to know.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vault_recall.app.app_errors import InstallError
from vault_recall.app.clients.catalogue import CLIENTS, ClientKind, ClientSpec
from vault_recall.app.clients.entry_form import form_of, url_of
from vault_recall.app.clients.install import current_entry, read_existing

# How a header value names an environment variable, in each client's own syntax (see
# docs/clients.md, "Connecting by URL").  A client not named here sends the value as written.
_REFERENCES: dict[ClientKind, re.Pattern[str]] = {
    "claude-code": re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?::-(?P<default>[^}]*))?\}"),
    "gemini": re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}|\$(?P<bare>[A-Za-z_][A-Za-z0-9_]*)"),
    "cursor": re.compile(r"\$\{env:(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}"),
    "vscode": re.compile(r"\$\{env:(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}"),
    "windsurf": re.compile(r"\$\{env:(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}"),
    "opencode": re.compile(r"\{env:(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}"),
}


@dataclass(frozen=True)
class UrlToken:
    """What a URL entry makes its client send.

    `token` is the bearer token (None: the client sends none, `missing` says why); `where` says
    where it is, for a person to find it: "the Authorization header of our entry in FILE", or
    "$VAULT_RECALL_TOKEN (named by our entry in FILE)".  `variable` is the environment variable
    it comes from, if any.  `names_none`: the entry names no token at all, the shape of an entry
    whose client authorizes with OAuth.
    """

    url: str
    token: str | None
    where: str
    variable: str | None = None
    missing: str | None = None
    names_none: bool = False


def _header(headers: Any, name: str) -> str | None:
    if not isinstance(headers, Mapping):
        return None
    found = next((value for key, value in headers.items() if str(key).lower() == name), None)
    return found if isinstance(found, str) else None


def _bearer(value: str) -> str | None:
    scheme, _, token = value.strip().partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def _expand(spec: ClientSpec, value: str, environ: Mapping[str, str]) -> tuple[str, str | None, str | None]:
    """(the value as the client sends it, the variable it names, the one that is unset)."""
    pattern = _REFERENCES.get(spec.id)
    if pattern is None:
        return value, None, None
    named: list[str] = []
    unset: list[str] = []

    def resolve(match: re.Match[str]) -> str:
        groups = match.groupdict()
        name = groups.get("name") or groups["bare"]
        named.append(name)
        if name in environ:
            return environ[name]
        default = groups.get("default")
        if default is None:
            unset.append(name)
            return ""
        return default

    expanded = pattern.sub(resolve, value)
    return expanded, (named[0] if named else None), (unset[0] if unset else None)


def url_token(
    spec: ClientSpec,
    entry: Mapping[str, Any],
    path: Path,
    environ: Mapping[str, str] | None = None,
    place: str | None = None,
) -> UrlToken | None:
    """What the URL entry `entry` (in `path`) makes `spec`'s client send; None for an entry
    with no URL.  An entry with a command and a URL both (an older install's merge) counts:
    the token it holds may be sent.  `place` names the entry in `where` (default: "our entry
    in PATH")."""
    url = url_of(entry)
    if url is None or form_of(entry) not in ("url", "both"):
        return None
    environ = os.environ if environ is None else environ
    place = place or f"our entry in {path}"
    variable = entry.get("bearer_token_env_var")
    if isinstance(variable, str) and variable:  # Codex
        where = f"${variable} (named by {place})"
        token = environ.get(variable) or None
        missing = None if token else f"{variable} is not set in the environment {spec.name} starts from"
        return UrlToken(url, token, where, variable, missing)
    variables = entry.get("env_http_headers")  # Codex: a header's value from a variable
    by_variable = _header(variables, "authorization")
    if by_variable:
        where = f"${by_variable} (named by {place})"
        value = environ.get(by_variable)
        missing = None if value else f"{by_variable} is not set in the environment {spec.name} starts from"
        return UrlToken(url, _bearer(value or ""), where, by_variable, missing)
    header = _header(entry.get("headers"), "authorization") or _header(entry.get("http_headers"), "authorization")
    where = f"the Authorization header of {place}"
    if header is None:
        return UrlToken(url, None, where, missing=f"{place} sends no Authorization header", names_none=True)
    value, variable_name, unset = _expand(spec, header, environ)
    if variable_name is not None:
        where = f"${variable_name} (named in the Authorization header of {place})"
    if unset is not None:
        missing = f"{unset} is not set in the environment {spec.name} starts from"
        return UrlToken(url, None, where, variable_name, missing)
    token = _bearer(value)
    missing = None if token else f"the Authorization header of {place} is not 'Bearer <token>'"
    return UrlToken(url, token, where, variable_name, missing)


@dataclass(frozen=True)
class InstalledUrlEntry:
    spec: ClientSpec
    path: Path
    sends: UrlToken


def installed_url_entries(environ: Mapping[str, str] | None = None) -> Iterator[InstalledUrlEntry]:
    """Every URL entry of ours in the clients' usual config files on this computer."""
    for spec in CLIENTS:
        if spec.http is None:
            continue
        path = spec.config_file()
        if path is None or not path.is_file():
            continue
        try:
            entry = current_entry(spec, (read_existing(path) or "").removeprefix("\ufeff"), str(path))
        except InstallError:
            continue  # a file that does not parse holds nothing a client can use either
        sends = url_token(spec, entry, path, environ) if entry is not None else None
        if sends is not None:
            yield InstalledUrlEntry(spec, path, sends)


def entries_using(
    client_id: str, client_of: Callable[[str], str | None], environ: Mapping[str, str] | None = None
) -> list[InstalledUrlEntry]:
    """The installed URL entries that send `client_id`'s token as it is now.

    `client_of(token)` names the client a token belongs to (None: no client's).  An entry
    whose token cannot be read here (a variable this shell does not set) counts as using its
    own client's token: it may well be set where that client starts.
    """
    using = []
    for installed in installed_url_entries(environ):
        token = installed.sends.token
        owner = client_of(token) if token is not None else installed.spec.id
        if owner == client_id:
            using.append(installed)
    return using
