"""What one server process serves, resolved on every call: which vault, and what this client may see.

Tools ask `current_scope()` on every call and it reads the config file anew, so switching the
active vault or a client's exposure takes effect on the next call without restarting any client.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, assert_never

from vault_recall.server.recall.scope import Exposure, Scope

# Why every call answers `unavailable` while the person has paused recall (the tray's *Pause
# recall*, `vault-recall pause`); `resume` ends it.
PAUSED_REASON = "paused by the person"
# What every answer from the bundled sample vault carries, so a client installed before the
# person chose a vault does not take its example decisions for theirs.
SAMPLE_NOTICE = (
    "This is Vault Recall's bundled sample vault: its notes are examples, not the person's own decisions. "
    "Tell the person to choose their own vault (Vault Recall's tray, or `vault-recall vault add PATH`)."
)

if TYPE_CHECKING:
    from vault_recall.server.config.config_file import ActivitySettings, ClientEntry, Config


@dataclass(frozen=True)
class ServeOptions:
    """What the command line of `vault-recall serve` fixed for the process's lifetime."""

    client: str
    pinned_vault: Path | None = None


def current_scope(options: ServeOptions) -> Scope:
    """Read the config now and decide this call's vault and exposure.

    A broken config makes every call `unavailable` with the config's own error: exposure is
    a promise to the person, so when it cannot be read nothing is shown.
    """
    return current_call(options).scope


@dataclass(frozen=True)
class CallConfig:
    """What one call takes from the config, read once for the call: its scope, and how its
    activity event is kept (the defaults when the config cannot be read)."""

    scope: Scope
    activity: ActivitySettings


def current_call(options: ServeOptions) -> CallConfig:
    """The config read now, once for the whole call (a tool used to read it twice: for its
    scope, and again for its activity event)."""
    # Imported by the first call, not when `serve` starts: the client waits for `initialize`.
    from vault_recall.server.config.config_file import ActivitySettings, load_config
    from vault_recall.server.errors import ConfigError

    try:
        config = load_config()
    except ConfigError as exc:
        broken = Scope(client=options.client, vault=None, exposure=Exposure(), why=str(exc))
        return CallConfig(broken, ActivitySettings())
    return CallConfig(scope_in(config, options), config.activity)


def scope_in(config: Config, options: ServeOptions) -> Scope:
    """This call's vault and exposure by a config already read."""
    from vault_recall.server.config.config_file import ACTIVE, ClientEntry
    from vault_recall.server.recall.ranking.languages import DEFAULT_LANGUAGES
    from vault_recall.server.recall.subject_rules import NO_RULES, SubjectRules

    if config.paused:  # before any vault, pinned ones too: a pause stops every server
        return Scope(client=options.client, vault=None, exposure=Exposure(), why=PAUSED_REASON)
    entry = config.client(options.client) or ClientEntry(id=options.client)
    exposure = exposure_of(entry)
    if options.pinned_vault is not None:
        # A pinned folder the config also names keeps the languages set for it there.
        pinned = options.pinned_vault
        same = next((v for v in config.vaults if _same_folder(Path(v.path).expanduser(), pinned)), None)
        languages = same.languages if same is not None else DEFAULT_LANGUAGES
        rules = SubjectRules(same.subject_rules, pinned) if same is not None else NO_RULES
        return Scope(client=options.client, vault=pinned, exposure=replace(exposure, rules=rules), languages=languages)
    name = config.active_vault if entry.vault == ACTIVE else entry.vault
    vault = config.vault(name) if name else None
    if vault is None:
        # Said to every client, by stdio or URL: `http` has no --vault, so the way out named
        # is the one that works for both (and the tray's Vault menu, which writes the same config).
        why = (
            "no vault is configured: add one with `vault-recall vault add PATH`, or choose one in the tray's Vault menu"
        )
        return Scope(client=options.client, vault=None, exposure=exposure, why=why)
    folder = Path(vault.path).expanduser()
    notice = SAMPLE_NOTICE if vault.sample else None
    return Scope(
        client=options.client,
        vault=folder,
        exposure=replace(exposure, rules=SubjectRules(vault.subject_rules, folder)),
        languages=vault.languages,
        notice=notice,
    )


def _same_folder(a: Path, b: Path) -> bool:
    return a.absolute() == b.absolute()


def exposure_of(entry: ClientEntry) -> Exposure:
    match entry.exposure:
        case tuple():
            return Exposure(mode="subjects", subjects=frozenset(entry.exposure))
        case "records" | "vault":
            return Exposure(mode=entry.exposure)
        case _:
            assert_never(entry.exposure)
