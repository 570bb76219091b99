"""The configuration file: where it lives, its schema, and reading it strictly.

`config.json` is written only by the CLI and the tray (app/state/config_store.py) and read by
everyone, on every call.  A file that does not parse or validate is reported with its file,
line and problem; the server then answers `unavailable` rather than guessing.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, assert_never

import platformdirs

from vault_recall.server import defaults
from vault_recall.server.config.client_id import CLIENT_ID_PATTERN as CLIENT_ID_PATTERN
from vault_recall.server.config.rule_entries import is_text, read_rule, rule_json
from vault_recall.server.errors import ConfigError, DuplicateKey
from vault_recall.server.recall.ranking.languages import DEFAULT_LANGUAGES, SUPPORTED
from vault_recall.server.recall.records import SUBJECT_PATTERN
from vault_recall.server.recall.subject_rules import SubjectRule

APP_NAME = "vault-recall"
HOME_ENV = "VAULT_RECALL_HOME"
CONFIG_VERSION = 1
CONFIG_FILE = "config.json"
ACTIVITY_FILE = "activity.sqlite3"
ACTIVE = defaults.CLIENT_VAULT
# A client's exposure as the file says it: a word, or the list of subjects it may see.
NamedExposure = Literal["records", "vault"]
ClientExposure = NamedExposure | tuple[str, ...]
NAMED_EXPOSURES: tuple[NamedExposure, ...] = ("records", "vault")
TOKEN_KEY = "token_sha256"
TOKEN_HASH_PATTERN = re.compile(r"[0-9a-f]{64}")  # always used with fullmatch
_MAX_CONFIG_BYTES = 4 * 1024 * 1024


def config_dir() -> Path:
    home = os.environ.get(HOME_ENV)
    return Path(home).absolute() if home else platformdirs.user_config_path(APP_NAME)


def state_dir() -> Path:
    home = os.environ.get(HOME_ENV)
    return Path(home).absolute() if home else platformdirs.user_state_path(APP_NAME)


def config_path() -> Path:
    return config_dir() / CONFIG_FILE


def activity_path() -> Path:
    return state_dir() / ACTIVITY_FILE


# Keys this version does not know are kept as they were (a newer tray's settings, a person's
# notes in the file): every write puts them back.
Extra = tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class VaultEntry:
    name: str
    path: str
    extra: Extra = field(default=(), compare=False)
    # The languages its notes are written in: recall stems and drops stop words in these.
    languages: tuple[str, ...] = DEFAULT_LANGUAGES
    # The bundled sample vault, put there by the tray's first run: its notes are examples, and
    # every answer from it says so (a client installed before the person chose a vault).
    sample: bool = False
    # Which notes are records of a subject without naming it (recall/subject_rules.py): kept
    # here, never in the vault.
    subject_rules: tuple[SubjectRule, ...] = ()


@dataclass(frozen=True)
class ClientEntry:
    id: str
    vault: str = ACTIVE  # a vault name, or "active"
    exposure: ClientExposure = defaults.CLIENT_EXPOSURE  # a tuple: records of those subjects only
    extra: Extra = field(default=(), compare=False)
    # SHA-256 (hex) of the client's bearer token for `vault-recall http`; never the token itself.
    token_sha256: str | None = None


@dataclass(frozen=True)
class ActivitySettings:
    keep_query_text: bool = defaults.KEEP_QUERY_TEXT
    retention_days: int = defaults.RETENTION_DAYS
    max_events: int = defaults.MAX_EVENTS


@dataclass(frozen=True)
class Config:
    vaults: tuple[VaultEntry, ...] = ()
    active_vault: str | None = None
    clients: tuple[ClientEntry, ...] = ()
    activity: ActivitySettings = field(default_factory=ActivitySettings)
    extra: Extra = field(default=(), compare=False)
    activity_extra: Extra = field(default=(), compare=False)
    # The person paused recall (tray, `vault-recall pause`): every call answers `unavailable`.
    paused: bool = False

    def vault(self, name: str) -> VaultEntry | None:
        return next((v for v in self.vaults if v.name == name), None)

    def client(self, client_id: str) -> ClientEntry | None:
        return next((c for c in self.clients if c.id == client_id), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": CONFIG_VERSION,
            "vaults": [
                {
                    "name": v.name,
                    "path": v.path,
                    **({"languages": list(v.languages)} if v.languages != DEFAULT_LANGUAGES else {}),
                    **({"sample": True} if v.sample else {}),
                    **({"subject_rules": [rule_json(r) for r in v.subject_rules]} if v.subject_rules else {}),
                    **dict(v.extra),
                }
                for v in self.vaults
            ],
            "active_vault": self.active_vault,
            "clients": [
                {
                    "id": c.id,
                    "vault": c.vault,
                    "exposure": _exposure_json(c.exposure),
                    **({TOKEN_KEY: c.token_sha256} if c.token_sha256 else {}),
                    **dict(c.extra),
                }
                for c in self.clients
            ],
            "activity": {
                "keep_query_text": self.activity.keep_query_text,
                "retention_days": self.activity.retention_days,
                "max_events": self.activity.max_events,
                **dict(self.activity_extra),
            },
            **({"paused": True} if self.paused else {}),
            **dict(self.extra),
        }


def _exposure_json(exposure: ClientExposure) -> str | list[str]:
    match exposure:
        case tuple():
            return list(exposure)
        case "records" | "vault":
            return exposure
        case _:
            assert_never(exposure)


def named_exposure(value: object) -> NamedExposure | None:
    """`value` as one of the exposure words, or None when it is not one."""
    return next((name for name in NAMED_EXPOSURES if value == name), None)


def load_config(path: Path | None = None) -> Config:
    """Read and validate the config; a missing file is the empty default config."""
    path = path or config_path()
    # O_NONBLOCK and a regular-file check: a FIFO put in its place must not block every call.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        raise ConfigError(path, None, f"cannot be read: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise ConfigError(path, None, "is not a regular file")
            raw = f.read(_MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(path, None, f"cannot be read: {exc.strerror}") from None
    if len(raw) > _MAX_CONFIG_BYTES:
        raise ConfigError(path, None, "is larger than 4 MiB; it is not a Vault Recall config")
    # Read on every call, parsed again only when its bytes changed: a Config is immutable, and
    # the same bytes at the same path are the same config (no clock or file identity trusted).
    known = _last_read.get(path)
    if known is not None and known[0] == raw:
        return known[1]
    config = parse_config(raw, path)
    _last_read.clear()
    _last_read[path] = (raw, config)
    return config


# The last config parsed (load_config): its path → its bytes and what they said.
_last_read: dict[Path, tuple[bytes, Config]] = {}


def parse_config(raw: bytes, path: Path) -> Config:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(path, raw[: exc.start].count(b"\n") + 1, "is not UTF-8 text") from None
    if not text.strip():
        raise ConfigError(path, 1, "is empty (a write was cut short?); restore it or delete it to start over")
    try:
        data = json.loads(text, object_pairs_hook=no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise ConfigError(path, exc.lineno, f"is not valid JSON: {exc.msg}") from None
    except DuplicateKey as exc:
        raise ConfigError(path, _line_of(text, exc.key), f"has the key {exc.key!r} twice in one object") from None
    except (ValueError, RecursionError) as exc:
        # Python's own limits: a number of thousands of digits, nesting thousands deep.
        raise ConfigError(path, None, f"cannot be read as a config ({type(exc).__name__})") from None
    return _validate(data, text, path)


def no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """`object_pairs_hook` for json.loads that refuses duplicate keys."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise DuplicateKey(key)
        found[key] = value
    return found


def _validate(data: Any, text: str, path: Path) -> Config:
    def fail(key: str, problem: str) -> ConfigError:
        return ConfigError(path, _line_of(text, key), problem)

    if not isinstance(data, dict):
        raise ConfigError(path, 1, "must be a JSON object")
    version = data.get("version")
    if type(version) is not int or version != CONFIG_VERSION:
        raise fail(
            "version",
            f"has version {version!r}; this Vault Recall reads version {CONFIG_VERSION}"
            + (" (written by a newer Vault Recall?)" if isinstance(version, int) and version > CONFIG_VERSION else ""),
        )
    vaults: list[VaultEntry] = []
    for item in _list(data, "vaults", fail):
        if not isinstance(item, dict) or not is_text(item.get("name")) or not is_text(item.get("path")):
            raise fail("vaults", "each vault needs a text 'name' and a text 'path'")
        if "\x00" in item["path"] or not os.path.isabs(os.path.expanduser(item["path"])):
            raise fail(item["name"], f"vault {item['name']!r} needs an absolute folder path")
        if any(v.name == item["name"] for v in vaults):
            raise fail(item["name"], f"vault name {item['name']!r} is used twice")
        languages = item.get("languages", list(DEFAULT_LANGUAGES))
        if not (isinstance(languages, list) and languages and all(lang in SUPPORTED for lang in languages)):
            raise fail(
                "languages",
                f"vault {item['name']!r} has languages {languages!r}: use a list of one or more of "
                + ", ".join(SUPPORTED),
            )
        sample = item.get("sample", False)
        if not isinstance(sample, bool):
            raise fail("sample", f"vault {item['name']!r} has 'sample' {sample!r}: use true or false")
        rules = tuple(dict.fromkeys(read_rule(rule, item["name"], fail) for rule in _list(item, "subject_rules", fail)))
        vaults.append(
            VaultEntry(
                name=item["name"],
                path=item["path"],
                extra=_extra(item, ("name", "path", "languages", "sample", "subject_rules")),
                languages=tuple(dict.fromkeys(languages)),
                sample=sample,
                subject_rules=rules,
            )
        )
    active = data.get("active_vault")
    if active is not None and not any(v.name == active for v in vaults):
        raise fail("active_vault", f"active_vault {active!r} is not one of the vaults")
    clients: list[ClientEntry] = []
    for item in _list(data, "clients", fail):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            raise fail("clients", "each client needs a text 'id'")
        client_id = item["id"]
        if not CLIENT_ID_PATTERN.fullmatch(client_id):
            raise fail(client_id, f"client id {client_id!r} is not valid (lowercase letters, digits, '.', '_', '-')")
        if any(c.id == client_id for c in clients):
            raise fail(client_id, f"client {client_id!r} is listed twice")
        vault = item.get("vault", ACTIVE)
        if not isinstance(vault, str) or (vault != ACTIVE and not any(v.name == vault for v in vaults)):
            raise fail(client_id, f"client {client_id!r} uses vault {vault!r}, which is not one of the vaults")
        exposure = _exposure(item.get("exposure", defaults.CLIENT_EXPOSURE), client_id, fail)
        token = item.get(TOKEN_KEY)
        if token is not None and not (isinstance(token, str) and TOKEN_HASH_PATTERN.fullmatch(token)):
            raise fail(
                client_id,
                f"client {client_id!r} has a {TOKEN_KEY!r} that is not a SHA-256 in hex (64 of 0-9, a-f); "
                f"make a new token with `vault-recall client token {client_id}`",
            )
        if token is not None and any(c.token_sha256 == token for c in clients):
            raise fail(client_id, f"client {client_id!r} has the same token as another client; give it a new one")
        extra = _extra(item, ("id", "vault", "exposure", TOKEN_KEY))
        clients.append(ClientEntry(id=client_id, vault=vault, exposure=exposure, extra=extra, token_sha256=token))
    activity = data.get("activity", {})
    if not isinstance(activity, dict):
        raise fail("activity", "'activity' must be an object")
    keep = activity.get("keep_query_text", defaults.KEEP_QUERY_TEXT)
    retention = activity.get("retention_days", defaults.RETENTION_DAYS)
    max_events = activity.get("max_events", defaults.MAX_EVENTS)
    (fewest_days, most_days), (fewest_events, most_events) = defaults.RETENTION_DAYS_RANGE, defaults.MAX_EVENTS_RANGE
    if not isinstance(keep, bool):
        raise fail("keep_query_text", "'keep_query_text' must be true or false")
    if not _whole(retention) or not fewest_days <= retention <= most_days:
        raise fail(
            "retention_days", f"'retention_days' must be a whole number of days from {fewest_days} to {most_days}"
        )
    if not _whole(max_events) or not fewest_events <= max_events <= most_events:
        raise fail("max_events", f"'max_events' must be a whole number from {fewest_events} to {most_events}")
    paused = data.get("paused", False)
    if not isinstance(paused, bool):
        raise fail("paused", "'paused' must be true or false")
    return Config(
        vaults=tuple(vaults),
        active_vault=active,
        clients=tuple(clients),
        activity=ActivitySettings(keep_query_text=keep, retention_days=retention, max_events=max_events),
        extra=_extra(data, ("version", "vaults", "active_vault", "clients", "activity", "paused")),
        activity_extra=_extra(activity, ("keep_query_text", "retention_days", "max_events")),
        paused=paused,
    )


def _extra(item: dict[str, Any], known: tuple[str, ...]) -> Extra:
    return tuple((key, value) for key, value in item.items() if key not in known)


def _exposure(value: Any, client_id: str, fail: Any) -> ClientExposure:
    if (named := named_exposure(value)) is not None:
        return named
    if isinstance(value, list) and value and all(isinstance(s, str) and SUBJECT_PATTERN.fullmatch(s) for s in value):
        return tuple(dict.fromkeys(value))
    raise fail(
        client_id,
        f'client {client_id!r} has exposure {value!r}: use "records", "vault" or a list of subject slugs',
    )


def _list(data: dict[str, Any], key: str, fail: Any) -> list[Any]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise fail(key, f"'{key}' must be a list")
    return value


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _line_of(text: str, key: str) -> int:
    """The first line mentioning `"key"`: good enough to point a person at the spot."""
    needle = json.dumps(key)
    for number, line in enumerate(text.split("\n"), start=1):
        if needle in line:
            return number
    return 1
