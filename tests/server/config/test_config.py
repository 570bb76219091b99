"""The config file: strict reading with file and line, atomic writing, never overwriting a broken one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO_ROOT
from tests.support.posix import assert_mode, make_fifo
from vault_recall.app.state.config_store import save_config, update_config
from vault_recall.server.config.call_scope import ServeOptions, current_scope
from vault_recall.server.config.config_file import ClientEntry, Config, VaultEntry, config_path, load_config
from vault_recall.server.errors import ConfigError

GOOD = Config(
    vaults=(VaultEntry("Work", "/v/work"), VaultEntry("Home", "/v/home")),
    active_vault="Work",
    clients=(ClientEntry("cursor", "active", ("build",)), ClientEntry("zed", "Home", "vault")),
)


def write(text: str) -> Path:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_missing_config_is_the_empty_default() -> None:
    assert load_config() == Config()


def test_a_saved_config_reads_back_the_same() -> None:
    save_config(GOOD)
    assert load_config() == GOOD


def test_the_same_bytes_are_parsed_once_and_any_change_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every call reads the file; only new bytes are parsed — a change of the same size and
    modification time included (no file identity or clock is trusted)."""
    from vault_recall.server.config import config_file

    parsed: list[bytes] = []
    parse = config_file.parse_config

    def counted(raw: bytes, path: Path) -> Config:
        parsed.append(raw)
        return parse(raw, path)

    monkeypatch.setattr(config_file, "parse_config", counted)
    path = write('{"version": 1, "paused": false}')
    first = load_config()
    assert load_config() is first and len(parsed) == 1
    stamp = path.stat().st_mtime_ns
    path.write_text('{"version": 1, "paused": true }', encoding="utf-8")
    os.utime(path, ns=(stamp, stamp))
    assert load_config().paused and len(parsed) == 2


def test_the_config_is_readable_by_its_user_only() -> None:
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().parent.chmod(0o755)  # a folder someone made readable: the next save closes it
    path = save_config(GOOD)
    assert_mode(path, 0o600)
    assert_mode(path.parent, 0o700)


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("", 1, "is empty"),
        ('{"version": 1,\n "vaults": [\n', 3, "is not valid JSON"),
        ('{"version": 1, "vaults": [{"name": "A", "path": "/a"}],\n "active_vault": "A"', 2, "is not valid JSON"),
        ("[1, 2]", 1, "must be a JSON object"),
        ('{"version": 2}', 1, "has version 2; this Vault Recall reads version 1 (written by a newer"),
        ('{"vaults": []}', 1, "has version None"),
        ('{"version": 1,\n"vaults": "Work"}', 2, "'vaults' must be a list"),
        ('{"version": 1,\n"vaults": [{"name": "A"}]}', 2, "each vault needs a text 'name' and a text 'path'"),
        ('{"version": 1, "vaults": [],\n"active_vault": "Nope"}', 2, "active_vault 'Nope' is not one of the vaults"),
        ('{"version": 1,\n"clients": [{"id": "Bad Id"}]}', 2, "client id 'Bad Id' is not valid"),
        ('{"version": 1,\n"clients": [{"id": "c", "exposure": "all"}]}', 2, "has exposure 'all'"),
        ('{"version": 1,\n"clients": [{"id": "c", "exposure": ["Not Slug"]}]}', 2, "has exposure"),
        ('{"version": 1,\n"clients": [{"id": "c", "vault": "Gone"}]}', 2, "uses vault 'Gone'"),
        ('{"version": 1,\n"activity": {\n"retention_days": "ten"}}', 3, "'retention_days' must be a whole number"),
        ('{"version": 1,\n"activity": {\n"keep_query_text": "no"}}', 3, "'keep_query_text' must be true or false"),
        (
            '{"version": 1, "vaults": [{"name": "A", "path": "/a",\n"languages": ["english", "klingon"]}]}',
            2,
            "vault 'A' has languages ['english', 'klingon']: use a list of one or more of english, german",
        ),
        ('{"version": 1, "vaults": [{"name": "A", "path": "/a",\n"languages": []}]}', 2, "has languages []"),
        ('{"version": 1, "vaults": [{"name": "A", "path": "/a",\n"languages": "german"}]}', 2, "has languages"),
    ],
)
def test_a_broken_config_names_the_file_the_line_and_the_problem(text: str, line: int, words: str) -> None:
    path = write(text)
    with pytest.raises(ConfigError) as raised:
        load_config()
    assert str(raised.value).startswith(f"{path}, line {line}: "), str(raised.value)
    assert words in str(raised.value)


def test_a_config_that_is_not_utf8_names_the_line() -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b'{"version": 1,\n"vaults": ["\xff"]}')
    with pytest.raises(ConfigError, match=r", line 2: is not UTF-8"):
        load_config()


def test_an_update_never_overwrites_a_broken_config() -> None:
    path = write('{"version": 1, "vaults": [')
    before = path.read_bytes()
    with pytest.raises(ConfigError):
        update_config(lambda c: c)
    assert path.read_bytes() == before


def test_a_crash_between_writing_and_renaming_leaves_the_old_config_whole() -> None:
    save_config(GOOD)
    before = config_path().read_bytes()
    # A real process dies right before the rename, after the new file was written and synced.
    crash = (
        "import os, dataclasses\n"
        "from vault_recall.app.state.config_store import update_config\n"
        "os.replace = lambda *a: os._exit(9)\n"
        "update_config(lambda c: dataclasses.replace(c, active_vault='Home'))\n"
    )
    done = subprocess.run([sys.executable, "-c", crash], cwd=REPO_ROOT, env=dict(os.environ), timeout=60, check=False)
    assert done.returncode == 9
    assert config_path().read_bytes() == before
    assert load_config() == GOOD
    leftovers = [p.name for p in config_path().parent.iterdir() if p.name.startswith(".config.json.")]
    assert len(leftovers) == 1  # the half-done temporary file: ignored by every reader
    # The next write succeeds and is whole.
    update_config(lambda c: Config(vaults=c.vaults, active_vault="Home", clients=c.clients))
    assert load_config().active_vault == "Home"


def test_a_failed_write_removes_its_temporary_file(monkeypatch: pytest.MonkeyPatch) -> None:
    save_config(GOOD)

    def broken_replace(*args: object) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(os, "replace", broken_replace)
        with pytest.raises(OSError):
            save_config(Config())
    assert not [p for p in config_path().parent.iterdir() if p.name.startswith(".config.json.")]
    assert load_config() == GOOD


def test_the_scope_follows_the_config_on_every_call(tmp_path: Path) -> None:
    save_config(GOOD)
    cursor = current_scope(ServeOptions(client="cursor"))
    assert cursor.vault == Path("/v/work")
    assert cursor.exposure.mode == "subjects" and cursor.exposure.subjects == {"build"}
    assert current_scope(ServeOptions(client="zed")).vault == Path("/v/home")
    assert current_scope(ServeOptions(client="zed")).exposure.mode == "vault"
    unknown = current_scope(ServeOptions(client="newcomer"))
    assert (unknown.vault, unknown.exposure.mode) == (Path("/v/work"), "records")
    pinned = current_scope(ServeOptions(client="cursor", pinned_vault=tmp_path))
    assert pinned.vault == tmp_path and pinned.exposure.mode == "subjects"
    save_config(Config(vaults=GOOD.vaults, active_vault="Home", clients=GOOD.clients))
    assert current_scope(ServeOptions(client="cursor")).vault == Path("/v/home")


def test_each_call_s_scope_carries_its_vault_s_languages(tmp_path: Path) -> None:
    work = VaultEntry("Work", str(tmp_path / "work"), languages=("english", "german"))
    save_config(Config(vaults=(work, VaultEntry("Home", "/v/home")), active_vault="Work"))
    assert current_scope(ServeOptions(client="cursor")).languages == ("english", "german")
    # A pinned folder the config names keeps its languages; any other is English.
    assert current_scope(ServeOptions(client="x", pinned_vault=tmp_path / "work")).languages == ("english", "german")
    assert current_scope(ServeOptions(client="x", pinned_vault=tmp_path / "other")).languages == ("english",)
    save_config(Config(vaults=(work, VaultEntry("Home", "/v/home")), active_vault="Home"))
    assert current_scope(ServeOptions(client="cursor")).languages == ("english",)
    data = json.loads(config_path().read_text(encoding="utf-8"))
    assert [v.get("languages") for v in data["vaults"]] == [["english", "german"], None]  # the default unwritten


def test_a_broken_config_makes_the_scope_unavailable_with_its_error() -> None:
    path = write('{"version": 1, "vaults": [')
    scope = current_scope(ServeOptions(client="cursor", pinned_vault=Path("/anywhere")))
    assert scope.vault is None
    assert scope.why is not None and scope.why.startswith(f"{path}, line 1: is not valid JSON")


def test_no_vault_configured_says_how_to_add_one() -> None:
    scope = current_scope(ServeOptions(client="cursor"))
    assert scope.vault is None and "vault-recall vault add PATH" in (scope.why or "")
    # The same sentence reaches a client of `vault-recall http`, which has no --vault to offer.
    assert "--vault" not in (scope.why or "") and "tray" in (scope.why or "")


def test_json_written_is_the_documented_shape() -> None:
    save_config(GOOD)
    data = json.loads(config_path().read_text(encoding="utf-8"))
    assert data["version"] == 1
    assert data["clients"][0] == {"id": "cursor", "vault": "active", "exposure": ["build"]}
    assert data["activity"] == {"keep_query_text": True, "retention_days": 30, "max_events": 100000}


# Found in review


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"version": 1, "n": ' + "9" * 5000 + "}", "cannot be read as a config (ValueError)"),
        ('{"version": 1, "x": ' + "[" * 100000 + "]" * 100000 + "}", "cannot be read as a config (RecursionError)"),
        ('{"version": 1,\n"vaults": [],\n"vaults": []}', "line 2: has the key 'vaults' twice"),
        ('{"version": true}', "has version True"),
        ('{"version": 1.0}', "has version 1.0"),
        ('{"version": 1, "vaults": [{"name": "A", "path": "/a\\u0000b"}]}', "needs an absolute folder path"),
        ('{"version": 1, "vaults": [{"name": "A", "path": "relative/dir"}]}', "needs an absolute folder path"),
        ('{"version": 1, "vaults": [{"name": "A\\ud800", "path": "/a"}]}', "each vault needs a text 'name'"),
    ],
)
def test_configs_that_break_pythons_limits_or_ours_are_one_sentence(text: str, words: str) -> None:
    write(text)
    with pytest.raises(ConfigError) as raised:
        load_config()
    assert words in str(raised.value)


def test_a_fifo_in_place_of_the_config_does_not_block() -> None:
    config_path().parent.mkdir(parents=True, exist_ok=True)
    make_fifo(config_path())
    with pytest.raises(ConfigError, match="is not a regular file"):
        load_config()


def test_settings_this_version_does_not_know_survive_a_write() -> None:
    write(
        json.dumps(
            {
                "version": 1,
                "tray": {"notify": False},
                "vaults": [{"name": "W", "path": "/w", "color": "blue"}],
                "clients": [{"id": "cursor", "note": "work laptop"}],
                "activity": {"future_knob": 3},
            }
        )
    )
    update_config(
        lambda c: Config(
            vaults=c.vaults,
            active_vault="W",
            clients=c.clients,
            activity=c.activity,
            extra=c.extra,
            activity_extra=c.activity_extra,
        )
    )
    data = json.loads(config_path().read_text(encoding="utf-8"))
    assert data["tray"] == {"notify": False} and data["active_vault"] == "W"
    assert data["vaults"][0]["color"] == "blue" and data["clients"][0]["note"] == "work laptop"
    assert data["activity"]["future_knob"] == 3


def test_a_relative_home_is_taken_from_the_working_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("VAULT_RECALL_HOME", "relative-home")
    assert config_path() == tmp_path / "relative-home/config.json"
