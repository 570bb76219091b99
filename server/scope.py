"""What one server process serves, resolved on every call: which vault, and what this client may see.

The configuration file arrives later; today the vault is pinned with `--vault`.  Tools ask
`current_scope()` on every call, so once the config is read here, switching the active vault
takes effect on the next call without restarting any client.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from server.errors import NotExposed


@dataclass(frozen=True)
class Exposure:
    """What a client may see: memory records of every subject (`records`, the default),
    of listed subjects only, or the whole vault."""

    mode: str = "records"  # records | subjects | vault
    subjects: frozenset[str] = frozenset()

    def allows_subject(self, subject: str) -> bool:
        return self.mode != "subjects" or subject in self.subjects

    def allows_record_subjects(self, subjects: tuple[str, ...] | None) -> bool:
        """May a note about `subjects` be shown?  None: a broken note whose subject is unreadable,
        shown only where it cannot reveal a subject the client was not given."""
        if self.mode != "subjects":
            return True
        return subjects is not None and any(s in self.subjects for s in subjects)

    def require_subject(self, subject: str, client: str) -> None:
        if not self.allows_subject(subject):
            raise NotExposed(f"subject {subject!r} is not shared with client {client!r}")


@dataclass(frozen=True)
class ServeOptions:
    """What the command line of `vault-recall serve` fixed for the process's lifetime."""

    client: str
    pinned_vault: Path | None = None


@dataclass(frozen=True)
class Scope:
    """Resolved for one call.  `vault` is None when no vault is configured; `why` says so."""

    client: str
    vault: Path | None
    exposure: Exposure
    why: str | None = None


def current_scope(options: ServeOptions) -> Scope:
    if options.pinned_vault is not None:
        return Scope(client=options.client, vault=options.pinned_vault, exposure=Exposure())
    return Scope(
        client=options.client,
        vault=None,
        exposure=Exposure(),
        why="no vault is configured: start the server with --vault PATH",
    )
