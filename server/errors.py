"""Every error of ours, in one tree: `VaultRecallError` is the base of each, in `server/` and
`app/` alike (the app's own are in app/app_errors.py, which `server/` may not import), and its
message is one sentence a person or a model can act on, or, for the few that never reach one,
the one fact the code that catches it needs (a size, a line).

Bad arguments and refused requests are `RecallError`s, which the MCP layer turns into tool
errors (`isError: true`, one sentence).  Storage trouble is never an exception past the recall
layer: it becomes a result `status` (see recall/).  The rest are caught where they arise and
told as each layer tells its trouble: the config's as `unavailable`, the OAuth store's as a
refused request, the activity store's on stderr.  `show_value` is how a value a caller gave is
quoted inside any of these sentences: shortened, so a huge argument never makes a huge error.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path


class VaultRecallError(Exception):
    """Base of every error of ours: its message is one sentence a person or a model can act on."""


class RecallError(VaultRecallError):
    """A tool call cannot be answered as asked: the MCP layer returns the message as the tool's error."""


class InvalidArgument(RecallError):
    """A tool argument is outside what the tool accepts."""


class NotExposed(RecallError):
    """The request reaches outside what this client's configuration shares with it."""


class NoteNotFound(RecallError):
    """No note the client may see answers to that name or path (whether or not a file exists)."""


class PathRejected(RecallError):
    """A user-supplied note path cannot be turned into a readable vault path.

    The message never says whether the target exists.
    """


class VaultUnavailable(RecallError):
    """The vault as a whole cannot be read (missing, not a folder, no permission, too big)."""


# -- the vault, a note and its properties -------------------------------------------------------


class NoteTooLarge(VaultRecallError):
    """The note is over MAX_NOTE_BYTES; carries the size for the reason shown to a person."""

    def __init__(self, size: int) -> None:
        super().__init__(f"{size} bytes")
        self.size = size


class PropertiesError(VaultRecallError):
    """The properties block is broken; `line` is the 1-based line in the note file."""

    def __init__(self, problem: str, line: int) -> None:
        super().__init__(f"line {line}: {problem}")
        self.problem = problem
        self.line = line


# -- recall, the config, OAuth, activity and HTTP ---------------------------------------------


class NoteChanged(VaultRecallError):
    """A note read again for an answer is no longer the note the call found."""


class ConfigError(VaultRecallError):
    """The config file cannot be used: `str()` names the file, the line and the problem."""

    def __init__(self, path: Path, line: int | None, problem: str) -> None:
        where = f"{path}, line {line}" if line else str(path)
        super().__init__(f"{where}: {problem}")
        self.path = path
        self.line = line
        self.problem = problem


class DuplicateKey(VaultRecallError, ValueError):
    """A JSON object names the same key twice (json.loads would silently keep the last)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class OAuthStoreError(VaultRecallError):
    """The store cannot be used (its file is unreadable, or of a newer version); one sentence."""


class GrantGone(VaultRecallError):
    """The code or refresh token cannot be exchanged; the message says why (for `invalid_grant`)."""


class ApprovalError(VaultRecallError):
    """An approval, denial or revocation the person asked for cannot be done; one sentence."""


class ActivityStoreError(VaultRecallError):
    """The store cannot be used: not a regular file, or written by a newer Vault Recall."""


class ListenError(VaultRecallError, ValueError):
    """The --listen value cannot be used; the message says why in one sentence."""


class FormRefused(VaultRecallError):
    """The form is not one an OAuth request sends; the message says why in one sentence."""


def show_value(value: object, limit: int = 60) -> str:
    """A value as an error sentence quotes it: text in quotes, anything else as JSON writes it
    (`null`, `true`, `["a"]`) — arguments come as JSON, and Python's `None` or `True` is not
    what the caller sent."""
    if isinstance(value, str):
        text = repr(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):  # not a JSON value (a CLI's own object): as Python shows it
            text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
