"""Pausing recall: one flag in the config, which every server reads on every call.

While it is set every `serve` and `http` process answers every call `unavailable`, with the
reason "paused by the person", and records the refusal in the activity store like any call;
nothing needs to reach the servers, and nothing keeps running.  The tray's *Pause recall* and
`vault-recall pause` / `resume` set and clear it.
"""

from __future__ import annotations

import dataclasses

from vault_recall.app.state.config_store import update_config
from vault_recall.server.config.config_file import Config


def set_paused(paused: bool) -> bool:
    """Pause (True) or resume (False) recall; True when that changed anything.  Raises
    ConfigError when the config is broken (it is never overwritten)."""
    changed = False

    def change(config: Config) -> Config:
        nonlocal changed
        changed = config.paused != paused
        return dataclasses.replace(config, paused=paused)

    update_config(change)
    return changed
