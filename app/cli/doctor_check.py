"""One line of `vault-recall doctor`: what was checked, whether it is fine, and what to do."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    what: str
    ok: bool
    detail: str
    fix: str = ""
    note: bool = False  # worth knowing, nothing to fix: shown as `note`, counted as ok
