"""What the menu's client items do: connect a client in one click, install our entry (started,
or by URL), uninstall it, copy its snippets — each with an answer that names the file changed
and says to restart the client by its own name.

Runs on the tray's action worker, as perform.py does; `client_action` answers False for an
action that is not one of these.  Errors are raised (InstallError, ConfigError, OSError) with a
sentence for the worker's notification.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import assert_never

from vault_recall.app.app_errors import UrlInstallFailed
from vault_recall.app.clients.catalogue import TOKEN_ENV, ClientSpec, client_spec
from vault_recall.app.clients.install import apply, plan_install, plan_uninstall
from vault_recall.app.clients.launch import serve_argv
from vault_recall.app.clients.snippets import file_snippet, http_snippet
from vault_recall.app.clients.url_install import install_by_url, token_in_environment
from vault_recall.app.desktop import clipboard
from vault_recall.app.desktop.notifications import Notify
from vault_recall.app.state.config_store import register
from vault_recall.app.tray.menu import url_snippet
from vault_recall.app.tray.menu.items import Action, TrayState, is_client_action
from vault_recall.app.tray.notices import as_sentence, failure_summary
from vault_recall.server.http.address import DEFAULT_URL

Copy = Callable[[str], bool]


def client_action(action: Action, state: TrayState, notify: Notify, copy: Copy = clipboard.copy_text) -> bool:
    """Run a client action of the menu; False when `action` is not one."""
    name, *args = action
    spec = client_spec(args[0]) if args else None
    if not is_client_action(name):
        return False
    if name == "add_client":
        register(args[0])
        return True
    if spec is None:
        return True  # an id the catalogue no longer has (an older menu): nothing to do
    match name:
        case "connect":
            connect(spec, state, notify, copy)
        case "install":
            install(spec, notify)
        case "install_http":
            install_http(spec, state, notify, copy)
        case "uninstall":
            uninstall(spec, notify)
        case "copy_snippet":
            if copy(file_snippet(spec, serve_argv(spec.id))):
                where = spec.paste_only or (url_snippet.shown_path(path) if (path := spec.config_file()) else "")
                notify(f"{spec.name} config snippet copied", f"Paste it into {where}." if where else "")
        case "copy_http_snippet":
            if spec.http is not None:
                installed, client = state.installed.get(spec.id), state.config.client(spec.id)
                url_snippet.copy_url_snippet(spec, installed, client, state.endpoint_url, copy, notify)
        case _:
            assert_never(name)
    return True


def connect(spec: ClientSpec, state: TrayState, notify: Notify, copy: Copy) -> None:
    """One click: our entry into the client's file (started by the client: every client here
    can, and none says it would rather connect by URL), or, for a client that keeps its servers
    in its settings only, our entry copied to paste there.  An entry by URL is left as it is."""
    if spec.paste_only:
        register(spec.id)
        if copy(file_snippet(spec, serve_argv(spec.id))):
            notify(f"Vault Recall's entry for {spec.name} is copied", f"Paste it in {spec.paste_only}.")
        else:
            notify(f"Nothing here could copy {spec.name}'s entry", "Install xclip or wl-clipboard, and try again.")
        return
    installed = state.installed.get(spec.id)
    if installed is not None and installed.by_url:
        register(spec.id)
        notify(
            f"{spec.name} is connected already, by URL",
            f"Its entry in {url_snippet.shown_path(installed.path)} reaches {installed.url}; nothing changed. "
            f"Restart {spec.name} if it does not show Vault Recall's tools.",
        )
        return
    install(spec, notify)


def _kept(backup_name: str | None) -> str:
    return f" (the old file is kept beside it as {backup_name})" if backup_name else ""


def install(spec: ClientSpec, notify: Notify) -> None:
    path = spec.config_file()
    if path is None:
        return
    plan = plan_install(spec, serve_argv(spec.id), path)
    register(spec.id)
    shown = url_snippet.shown_path(path)
    if not plan.changes:
        notify(
            f"{spec.name} already starts Vault Recall",
            f"{shown} has this entry already; nothing changed. Restart {spec.name} if it does not show "
            "Vault Recall's tools.",
        )
        return
    backup = apply(plan)
    verb = "Replaced Vault Recall's entry in" if plan.replaced else "Added Vault Recall to"
    notify(
        f"{verb} {spec.name}",
        f"{_written(plan.before)} {shown}{_kept(backup.name if backup else None)}. Restart {spec.name} to use it.",
    )


def _written(before: str | None) -> str:
    """How the file came to hold our entry: made by us (there was none), or edited."""
    return "Created" if before is None else "Changed"


def install_http(spec: ClientSpec, state: TrayState, notify: Notify, copy: Copy) -> None:
    """Our entry by URL: the endpoint's address while the tray runs it (else the one the entry
    has, else the default), with the token the entry sends already or a new one."""
    path = spec.config_file()
    if path is None or spec.http is None:
        return
    installed = state.installed.get(spec.id)
    url = state.endpoint_url or (installed.url if installed is not None and installed.by_url else None) or DEFAULT_URL
    shown = url_snippet.shown_path(path)
    try:
        done = install_by_url(spec, url, path)
    except UrlInstallFailed as exc:
        # The token is valid now: the entry must reach the person whole, or at least the token.
        pasted = copy(http_snippet(spec, url, exc.token))
        rest = "Its entry is copied: paste it there yourself." if pasted else f"Its token is {exc.token}"
        notify(failure_summary("install_http"), f"{as_sentence(str(exc))} {rest}")
        return
    register(spec.id)
    said: list[str] = []
    if done.plan.changes:
        verb = "Replaced Vault Recall's entry in" if done.plan.replaced else "Added Vault Recall to"
        summary = f"{verb} {spec.name}, by URL"
        kept = _kept(done.backup.name if done.backup else None)
        said.append(f"{_written(done.plan.before)} {shown}: it reaches {url}{kept}.")
    else:
        summary = f"{spec.name} reaches Vault Recall by URL already"
        said.append(f"{shown} reaches {url} this way already; nothing changed.")
    if token_in_environment(spec) and not done.kept:
        export = f"export {TOKEN_ENV}={done.token}"
        if copy(export):
            said.append(f"{spec.name} reads its token from {TOKEN_ENV}: the line that sets it is copied.")
        else:
            said.append(f"{spec.name} reads its token from {TOKEN_ENV}: set it where it starts: {export}")
    elif not done.kept:
        said.append("Its token is new, in the file.")
    if done.replaced:
        said.append("Its old token no longer works.")
    if state.endpoint_url is None:
        said.append("The HTTP endpoint is not running: start it under HTTP endpoint.")
    if done.plan.changes or not done.kept:
        said.append(f"Restart {spec.name} to use it.")
    notify(summary, " ".join(said))


def uninstall(spec: ClientSpec, notify: Notify) -> None:
    path = spec.config_file()
    if path is None:
        return
    plan = plan_uninstall(spec, path)
    shown = url_snippet.shown_path(path)
    if not plan.changes or plan.before is None:
        notify(f"{spec.name} has no Vault Recall entry", f"{shown} holds none; nothing changed.")
        return
    backup = apply(plan)
    notify(
        f"Removed Vault Recall from {spec.name}",
        f"Changed {shown}{_kept(backup.name if backup else None)}. Restart {spec.name}.",
    )
