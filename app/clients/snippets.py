"""Client config snippets in each client's own format: the file fragment, the client's CLI
command, or a deep link the client opens to install us."""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import re
import shlex
from typing import Any, Literal, assert_never
from urllib.parse import quote

import tomlkit
import yaml

from vault_recall.app.app_errors import SnippetError
from vault_recall.app.clients.catalogue import SERVER_NAME, ClientSpec

# What `client snippet --form` prints: the file fragment, the client's own command, its install
# link, or the URL entry for `vault-recall http` (client_commands.py prints that one).
SnippetForm = Literal["file", "cli", "link", "http"]
FORMS: tuple[SnippetForm, ...] = ("file", "cli", "link", "http")


def document(spec: ClientSpec, argv: list[str]) -> dict[str, Any]:
    """The smallest config document holding our entry, as data."""
    entry = spec.entry(argv)
    return {spec.container: [entry] if spec.is_list else {SERVER_NAME: entry}}


def file_snippet(spec: ClientSpec, argv: list[str]) -> str:
    data = document(spec, argv)
    match spec.format:
        case "json":
            return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        case "toml":
            return tomlkit.dumps(data)
        case "yaml":
            return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False)
        case _:
            assert_never(spec.format)


def cli_snippet(spec: ClientSpec, argv: list[str], windows: bool | None = None) -> str:
    if spec.cli is None:
        raise SnippetError(f"{spec.name} has no command for adding servers; use --form file{_also_link(spec)}")
    command = spec.add_command(argv)
    assert command is not None
    if windows if windows is not None else os.name == "nt":
        return powershell_join(command)
    return shlex.join(command)


_BARE = re.compile(r"[A-Za-z0-9_./:\\=+-]+")


def powershell_join(argv: list[str]) -> str:
    """A PowerShell command line: single-quoted literals ('' for a quote), so '&', '%', '$'
    and spaces in paths mean nothing to the shell."""
    quoted = [arg if _BARE.fullmatch(arg) else "'" + arg.replace("'", "''") + "'" for arg in argv]
    return ("& " if quoted[0] != argv[0] else "") + " ".join(quoted)


def link_snippet(spec: ClientSpec, argv: list[str]) -> str:
    entry = spec.entry(argv)
    match spec.link:
        case None:
            raise SnippetError(
                f"{spec.name} has no install link; use --form file" + (" or --form cli" if spec.cli else "")
            )
        case "cursor":
            config = base64.b64encode(json.dumps(entry, ensure_ascii=False).encode("utf-8")).decode("ascii")
            return f"cursor://anysphere.cursor-deeplink/mcp/install?name={SERVER_NAME}&config={quote(config, safe='')}"
        case "lmstudio":
            config = base64.b64encode(json.dumps(entry, ensure_ascii=False).encode("utf-8")).decode("ascii")
            return f"lmstudio://add_mcp?name={SERVER_NAME}&config={quote(config, safe='')}"
        case "vscode":
            payload = json.dumps({"name": SERVER_NAME, **entry}, ensure_ascii=False)
            return "vscode:mcp/install?" + quote(payload, safe="")
        case _:
            assert_never(spec.link)


def _also_link(spec: ClientSpec) -> str:
    return " or --form link" if spec.link else ""


def snippet(spec: ClientSpec, argv: list[str], form: Literal["file", "cli", "link"] = "file") -> str:
    """The snippet in `form` (the URL entry, "http", needs a URL and token: http_snippet)."""
    match form:
        case "file":
            return file_snippet(spec, argv)
        case "cli":
            return cli_snippet(spec, argv)
        case "link":
            return link_snippet(spec, argv)
        case _:
            assert_never(form)


def forms_of(spec: ClientSpec) -> list[SnippetForm]:
    has = {"file": True, "cli": spec.cli is not None, "link": spec.link is not None, "http": spec.http is not None}
    return [form for form in FORMS if has[form]]


def http_spec(spec: ClientSpec, url: str, token: str) -> ClientSpec:
    """The client as seen by `vault-recall http`: its entry is the URL form, with the token."""
    if spec.http is None:
        with_url = ", ".join(c for c in _url_clients())
        raise SnippetError(
            f"{spec.name} is not set up by URL here; use --form file (it starts `vault-recall serve`). "
            f"Clients set up by URL: {with_url}"
        )
    entry = spec.http(url, token)
    return dataclasses.replace(spec, shape=lambda _argv, _env: entry, cli=None, link=None)


def http_snippet(spec: ClientSpec, url: str, token: str) -> str:
    """Our URL entry in the client's own file format."""
    return file_snippet(http_spec(spec, url, token), [])


def _url_clients() -> list[str]:
    from vault_recall.app.clients.catalogue import CLIENTS

    return [c.id for c in CLIENTS if c.http]
