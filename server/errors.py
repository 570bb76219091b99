"""Typed errors raised by the server's logic.

Bad arguments and refused requests are exceptions that the MCP layer turns into tool errors
(`isError: true`, one sentence).  Storage trouble is never an exception past the recall layer:
it becomes a result `status` (see recall/).  `show_value` is how a value a caller gave is
quoted inside any of these sentences: shortened, so a huge argument never makes a huge error.
"""


class RecallError(Exception):
    """Base class: the message is one sentence a person or a model can act on."""


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


def show_value(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
