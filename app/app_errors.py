"""Every error of the app's own, beside the server's in the one tree of server/errors.py: each
derives from `VaultRecallError`, and its message is one sentence for the person (the CLI prints
it and exits 1; the tray shows it as a notification).

A base module: it imports nothing of `app/`, and every room of `app/` may use it.
"""

from __future__ import annotations

from vault_recall.server.errors import VaultRecallError


class RuleChangeError(VaultRecallError):
    """A subject rule cannot be added or removed; the config is left as it was."""


class JsonEditError(VaultRecallError):
    """A client's JSON or JSONC file cannot be edited safely; the message says why in one sentence."""


class YamlEditError(VaultRecallError):
    """A client's YAML file cannot be edited safely; the message says why in one sentence."""


class TomlEditError(VaultRecallError):
    """A client's TOML file cannot be edited safely; the message says why in one sentence."""


class EditError(VaultRecallError):
    """Our entry in a client's file cannot be changed, which was left untouched; the message says why."""


class SnippetError(VaultRecallError):
    """This client has no such form; the message says which forms it has."""


class InstallError(VaultRecallError):
    """The client's file was left untouched; the message says why in one sentence."""


class UrlInstallFailed(InstallError):
    """The file could not be written; `token` is valid now, so a snippet pasted by hand works."""

    def __init__(self, message: str, token: str) -> None:
        super().__init__(message)
        self.token = token


class SessionBusError(VaultRecallError):
    """The session bus is not there, or a call on it failed; the message says which.

    `answered` tells a refusal (the bus or the service replied with an error: asking again
    would give the same) from no answer at all (a timeout, no connection), which may pass —
    a desktop portal started by D-Bus activation at login can take longer than a call waits.
    """

    def __init__(self, message: str, *, answered: bool = False) -> None:
        super().__init__(message)
        self.answered = answered


class EndpointError(VaultRecallError):
    """The endpoint could not start; the message is its own one sentence (port in use, …)."""


class CommandError(VaultRecallError):
    """A command cannot do what was asked: one sentence for the person; it exits 1 and changes nothing."""
