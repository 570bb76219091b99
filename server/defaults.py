"""Every default a person can change, in one table: what the config file, the activity store
and `vault-recall http` take when nothing says otherwise, and the bounds a setting must keep.

The modules that read a setting take its default from here, so a default is written once.
A base module: it imports nothing of ours, and every room of `server/` and `app/` may use it.
"""

from __future__ import annotations

from typing import Final, Literal

# config.json: a client's entry.
CLIENT_VAULT: Final = "active"  # the vault a client reads: the active one (a name pins one)
CLIENT_EXPOSURE: Final[Literal["records"]] = "records"  # memory records of every subject

# config.json: a vault's entry.
LANGUAGES: Final = ("english",)  # the languages its notes are written in

# config.json: "activity", what the activity store keeps.
KEEP_QUERY_TEXT: Final = True
RETENTION_DAYS: Final = 30  # calls older than this many days are dropped
RETENTION_DAYS_RANGE: Final = (1, 3650)
MAX_EVENTS: Final = 100_000  # and beyond this many, the oldest
MAX_EVENTS_RANGE: Final = (100, 10_000_000)

# `vault-recall http` (and the tray's endpoint): where it listens.
HTTP_HOST: Final = "127.0.0.1"
HTTP_PORT: Final = 27183
