"""A vault of memory records to recall, edit and search, with filler records that make each
call read a few hundred (or thousand) notes, so that a cancel, a hang-up or a deadline can land
while a call runs; and the config that serves it over `vault-recall http` with a token."""

from __future__ import annotations

from pathlib import Path

from tests.support.vaults import record, write_vault

NOTES = [f"Notes/Note {n:02d}.md" for n in range(24)]
WORDS = ("bazel", "cache", "release", "review", "latency", "rollback", "schema", "queue")


def note_text(number: int, edit: int) -> str:
    body = " ".join(WORDS[(number + edit + i) % len(WORDS)] for i in range(12))
    links = f"See [[Note {(number + 1) % len(NOTES):02d}]] and [[Note {(number + 5) % len(NOTES):02d}]]."
    return record("alpha", f"# Note {number:02d}\n\nEdit {edit}: {body}.\n\n{links}\n")


def make_vault(root: Path, fillers: int = 400) -> Path:
    """Records of `alpha` to recall and edit, and records of `beta` that make each call read a
    few hundred notes (so a cancel or a hang-up can land while one runs)."""
    notes: dict[str, str | bytes] = {path: note_text(n, 0) for n, path in enumerate(NOTES)}
    line = " ".join(WORDS) + "\n"
    for n in range(fillers):
        notes[f"Filler/F {n:03d}.md"] = record("beta", f"# Filler {n}\n\n" + line * 40)
    return write_vault(root, notes)


def edit(vault: Path, number: int, edit: int) -> None:
    """Write note `number` anew, as edit `edit` (each edit's bytes differ)."""
    (vault / NOTES[number]).write_text(note_text(number, edit), encoding="utf-8")


# A call slow enough that 0.2 s in it is still working, with 3,000 fillers: a ranked recall
# over every filler (0.8 s in process here).  A search for a common word was slow enough
# once; since it counts hits from the bytes it takes 0.19 s, and a cancel at 0.2 s came late.
SLOW = ("recall_context", {"subject": "beta", "query": "latency rollback", "limit": 20, "budget": 65536})


def serving_over_http(vault: Path, client: str = "stress") -> str:
    """Make `vault` the active one and give `client` a token (in this test's home)."""
    from vault_recall.app.state.config_store import issue_token, update_config
    from vault_recall.server.config.config_file import Config, VaultEntry

    update_config(lambda c: Config(vaults=(VaultEntry("Work", str(vault)),), active_vault="Work"))
    return issue_token(client)[0]
