"""What a client was given and told, from the answers it received, and the promise of
`changed_since_recalled` checked against it: every change told exactly once, only in answers
that arrived, and always from a revision the client was given."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vault_recall.server.recall.answers.changed_since import HandedOutNotes, tell_changes
from vault_recall.server.recall.results import Envelope
from vault_recall.server.recall.scope import Scope

FIELD = "changed_since_recalled"


def follow_up(memory: HandedOutNotes, scope: Scope, result: Envelope, budget: int | None) -> None:
    """`tell_changes` for an answer delivered as soon as it is built (no transport between)."""
    pending = tell_changes(memory, scope, result, budget)
    if pending is not None:
        pending.commit()


def revision_of(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


@dataclass
class Ledger:
    """Every answer one client received, in any order."""

    given: defaultdict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    told: list[tuple[str, str, str | None]] = field(default_factory=list)
    answers: int = 0

    def received(self, result: dict[str, Any]) -> None:
        self.answers += 1
        for change in result.get(FIELD, []):
            self.told.append((change["path"], change["was"], change["now"]))
            if change["now"] is not None:
                self.given[change["path"]].add(change["now"])
        for record in result.get("records", []):
            if "revision" in record and "text" in record:
                self.given[record["path"]].add(record["revision"])
        if "text" in result and isinstance(result.get("revision"), str):
            self.given[result["path"]].add(result["revision"])

    def broken_promises(self, vault: Path, notes: Iterable[str]) -> list[str]:
        """Every way the told changes break the promise; empty when it holds.  Call once the
        client has made calls until one told nothing, with no edit since."""
        broken: list[str] = []
        seen: set[tuple[str, str]] = set()
        for path, was, _now in self.told:
            if was not in self.given[path]:
                broken.append(f"{path}: told a change from {was[:8]}, a revision the client was never given")
            if (path, was) in seen:
                # Each telling's new revision and answer, to tell a race from a regression.
                tellings = [f"-> {(n or 'gone')[:8]}" for p, w, n in self.told if (p, w) == (path, was)]
                broken.append(f"{path}: the change from {was[:8]} was told twice ({', '.join(tellings)})")
            seen.add((path, was))
        gone = {path for path, _, now in self.told if now is None}
        for path in notes:
            if path not in self.given:
                continue
            now = revision_of(vault / path)
            if now is None and path in gone:
                continue
            if now not in self.given[path]:
                broken.append(f"{path}: its last change ({(now or 'gone')[:8]}) never reached the client")
        return broken
