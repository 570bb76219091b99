"""Installing into a client's config loses nothing: not what the client app writes meanwhile,
not a byte of a YAML file outside our entry, not the file's shape after an uninstall, not a
dotfiles symlink, not the person's original among the backups."""

from __future__ import annotations

import difflib
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from tests.support.depth import depth
from vault_recall.app.app_errors import InstallError
from vault_recall.app.clients import guarded_write
from vault_recall.app.clients.catalogue import SERVER_NAME, client_spec
from vault_recall.app.clients.guarded_write import BACKUP_SUFFIX, KEEP_BACKUPS, backups_of
from vault_recall.app.clients.install import Plan, apply, plan_install, plan_uninstall
from vault_recall.app.state.config_store import register, save_config
from vault_recall.server.config.config_file import Config, config_path, load_config

ARGV = ["/opt/vault-recall/bin/vault-recall", "serve", "--client", "x"]

# A client app's own writer, as Claude Code writes ~/.claude.json: read the file, change it,
# rename a new copy over it, again and again.  Each change appends the next number to
# "history", so a change lost by anyone shows as a missing number at the end.
WRITER = """
import os, sys, time
path, pause, stop = sys.argv[1], float(sys.argv[2]), sys.argv[3]
count = 0
marker = b'"history": ['
while not os.path.exists(stop):
    data = open(path, "rb").read()
    at = data.index(marker) + len(marker)
    count += 1
    new = data[:at] + str(count).encode() + (b", " if data[at:at + 1] != b"]" else b"") + data[at:]
    temp = f"{path}.{count}.tmp"
    with open(temp, "wb") as f:
        f.write(new)
    os.replace(temp, path)
    time.sleep(pause)
print(count)
"""


def _big_claude_json(path: Path, projects: int) -> None:
    data = {
        "history": [],
        "projects": {f"/home/me/p{i}": {"allowedTools": [], "notes": ["x" * 90] * 5} for i in range(projects)},
    }
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


def _with_writer(path: Path, pause: float, pairs: int) -> tuple[int, list[int], int, int]:
    """Run `pairs` install/uninstall pairs while the writer runs; (changes written, changes in
    the file at the end, operations done, operations refused)."""
    stop = path.with_name("stop")
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(pause), str(stop)], stdout=subprocess.PIPE, text=True
    )
    done = refused = 0
    spec = client_spec("claude-code")
    assert spec is not None
    try:
        deadline = time.monotonic() + 30
        while b'"history": [1' not in path.read_bytes() and time.monotonic() < deadline:
            time.sleep(0.01)  # the writer is at work before the first edit: its first change is in
        assert b'"history": [1' in path.read_bytes(), "the writer never made its first change"
        steps: list[Callable[[], Plan]] = [lambda: plan_install(spec, ARGV, path), lambda: plan_uninstall(spec, path)]
        for _ in range(pairs):
            for plan in steps:
                try:
                    apply(plan())
                    done += 1
                except InstallError as exc:
                    assert "kept changing" in str(exc)
                    refused += 1
    finally:
        # Let the writer have its say after the last edit too (bounded: it writes every `pause`).
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and len(_history(path)) < 3:
            time.sleep(pause)
        stop.touch()
        out, _ = writer.communicate(timeout=60)
    return int(out), _history(path), done, refused


def _history(path: Path) -> list[int]:
    for _ in range(100):  # the writer renames whole files: a read never sees half of one
        try:
            return list(json.loads(path.read_text(encoding="utf-8"))["history"])
        except FileNotFoundError:
            time.sleep(0.01)
    raise AssertionError(f"{path} went missing")


def test_a_client_app_rewriting_its_config_every_2_ms_loses_no_change(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    _big_claude_json(path, 400)  # ~250 KB
    pairs = max(3, round(15 * depth()))  # 15 under the `ci` profile (tests/support/depth.py)
    written, history, done, refused = _with_writer(path, 0.002, pairs)
    assert written > 7 * pairs  # the writer really was busy all along
    assert sorted(history) == list(range(1, written + 1))  # not one of its changes lost
    assert done + refused == 2 * pairs


def _one_edit_seconds(path: Path) -> float:
    """How long one install and one uninstall take on this machine, as it is loaded now."""
    spec = client_spec("claude-code")
    assert spec is not None
    started = time.monotonic()
    apply(plan_install(spec, ARGV, path))
    apply(plan_uninstall(spec, path))
    return time.monotonic() - started


def test_with_a_client_app_writing_now_and_then_every_install_and_uninstall_succeeds(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    _big_claude_json(path, 400)
    # "Now and then" is every 0.1 s, or five edits of ours apart on a machine so loaded that an
    # edit takes longer: then every try would collide with the writer, as with the 2 ms one.
    pause = max(0.1, 5 * _one_edit_seconds(path))
    written, history, done, refused = _with_writer(path, pause, 5)
    assert sorted(history) == list(range(1, written + 1)) and written >= 3
    assert (done, refused) == (10, 0)
    assert SERVER_NAME not in json.loads(path.read_text(encoding="utf-8")).get("mcpServers", {})


def test_a_change_landing_between_the_last_look_and_the_swap_is_put_back(tmp_path: Path) -> None:
    # The writer's rename lands after our last look at the file and before ours goes in: the
    # swap shows what was displaced, theirs goes back, and the edit is made again from it.
    path = tmp_path / "mcp.json"
    path.write_text('{"history": [1]}', encoding="utf-8")
    spec = client_spec("cursor")
    assert spec is not None
    real_swap = guarded_write.swap
    raced: list[bool] = []

    def swap_after_their_write(first: Path, second: Path) -> bool:
        if not raced:
            raced.append(True)
            path.write_text('{"history": [1, 2]}', encoding="utf-8")
        return real_swap(first, second)

    try:
        guarded_write.swap = swap_after_their_write  # type: ignore[assignment]
        apply(plan_install(spec, ARGV, path))
    finally:
        guarded_write.swap = real_swap  # type: ignore[assignment]
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["history"] == [1, 2] and data["mcpServers"][SERVER_NAME]["command"] == ARGV[0]


GOOSE = (
    "# Goose settings\n"
    'GOOSE_PROVIDER: "openai"\n'
    'TOKEN: "yes"\n'
    "SWITCH: 'on'\n"
    'TIME: "1:20"\n'
    "LONG: " + '"' + "w" * 5000 + '"\n'
    "extensions:\n"
    "    developer:\n"
    "        enabled: true\n"
    '        name: "developer"   # built in\n'
    "        type: builtin\n"
    "tools:\n"
    "-   a\n"
    "-   'b'\n"
    "# the end\n"
)
CONTINUE = (
    "name: Mine\n"
    "version: 0.0.1\n"
    "schema: v1\n"
    "models:\n"
    "  - name: 'local'\n"
    '    apiKey: "no"\n'
    "mcpServers:\n"
    "  - name: other\n"
    '    command: "x"\n'
    "    args: ['--flag', \"1:20\"]\n"
    "context: [" + ", ".join(f'"{i}"' for i in range(900)) + "]\n"
)


@pytest.mark.parametrize(
    ("client_id", "content"), [("goose", GOOSE), ("continue", CONTINUE)], ids=["goose", "continue"]
)
@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_yaml_configs_keep_every_byte_outside_our_entry(
    tmp_path: Path, client_id: str, content: str, newline: str
) -> None:
    path = tmp_path / "config.yaml"
    original = content.replace("\n", newline).encode("utf-8")
    path.write_bytes(original)
    spec = client_spec(client_id)
    assert spec is not None
    apply(plan_install(spec, ARGV, path))
    after = path.read_bytes()
    # Only lines added, all in one place: nothing of the person's was rewritten.
    changes = [
        op
        for op in difflib.SequenceMatcher(None, original.splitlines(True), after.splitlines(True)).get_opcodes()
        if op[0] != "equal"
    ]
    assert len(changes) == 1 and changes[0][0] == "insert", changes
    data = yaml.safe_load(after)
    assert data["TOKEN" if client_id == "goose" else "name"] == ("yes" if client_id == "goose" else "Mine")
    apply(plan_uninstall(spec, path))
    assert path.read_bytes() == original


@pytest.mark.parametrize(
    ("client_id", "before"),
    [
        ("claude-code", '{"z": 1}'),
        ("claude-code", '{\n  "z": 1\n}\n'),
        ("claude-code", "{}"),
        ("claude-code", "{\n}\n"),
        ("claude-code", ""),
        ("claude-code", '\ufeff{"z": 1}'),
        ("claude-code", '{\r\n  "z": 1\r\n}\r\n'),
        ("zed", '{\n  "theme": "One Dark"\n}\n'),
        ("cursor", '{"mcpServers": {}}'),
        ("cursor", '{"mcpServers": {"other": {"command": "x"}}}'),
        ("codex", 'model = "o4"\n'),
        ("codex", 'model = "o4"'),
        ("codex", ""),
        ("goose", "z: 1\n"),
        ("goose", "extensions: {}  # mine\n"),
        ("continue", ""),
        ("continue", "name: a\nversion: 1\nschema: v1\n"),
    ],
)
def test_uninstall_after_install_gives_back_the_original_bytes(tmp_path: Path, client_id: str, before: str) -> None:
    path = tmp_path / "config"
    path.write_bytes(before.encode("utf-8"))
    spec = client_spec(client_id)
    assert spec is not None
    apply(plan_install(spec, ARGV, path))
    assert path.read_bytes() != before.encode("utf-8")
    apply(plan_uninstall(spec, path))
    assert path.read_bytes() == before.encode("utf-8")


def test_uninstall_after_install_into_no_file_leaves_no_file(tmp_path: Path) -> None:
    path = tmp_path / "new" / "mcp.json"
    spec = client_spec("cursor")
    assert spec is not None
    apply(plan_install(spec, ARGV, path))
    assert path.is_file()
    apply(plan_uninstall(spec, path))
    assert not path.exists()


def test_uninstall_removes_the_section_it_created_even_after_the_client_changed_the_file(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    path.write_text('{\n  "z": 1\n}\n', encoding="utf-8")
    spec = client_spec("claude-code")
    assert spec is not None
    apply(plan_install(spec, ARGV, path))
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**data, "y": 2}, indent=2) + "\n", encoding="utf-8")  # the client's own change
    apply(plan_uninstall(spec, path))
    assert json.loads(path.read_text(encoding="utf-8")) == {"z": 1, "y": 2}


def test_uninstall_keeps_a_section_the_person_had_before(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    path.write_text('{"mcpServers": {}}', encoding="utf-8")
    spec = client_spec("claude-code")
    assert spec is not None
    apply(plan_install(spec, ARGV, path))
    path.write_text(
        path.read_text(encoding="utf-8").replace('{"mcpServers"', '{"y": 2, "mcpServers"'), encoding="utf-8"
    )
    apply(plan_uninstall(spec, path))
    assert json.loads(path.read_text(encoding="utf-8")) == {"y": 2, "mcpServers": {}}


def test_an_uninstall_never_restores_a_backup_that_still_holds_our_entry(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"z": 1}', encoding="utf-8")
    spec = client_spec("cursor")
    assert spec is not None
    apply(plan_install(spec, ARGV, path))
    apply(plan_install(spec, [*ARGV[:-1], "y"], path))  # replaced: its backup holds our old entry
    apply(plan_uninstall(spec, path))
    assert path.read_text(encoding="utf-8") == '{"z": 1}'


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


@given(
    data=st.dictionaries(st.text(max_size=8).filter(lambda k: k != "mcpServers"), json_values, max_size=5),
    indent=st.sampled_from([None, 2, 4, "\t"]),
    trailing=st.sampled_from(["", "\n", "\n\n", "  "]),
)
def test_install_then_uninstall_is_the_identity_on_any_json_object(
    tmp_path_factory: pytest.TempPathFactory, data: dict[str, object], indent: int | str | None, trailing: str
) -> None:
    path = tmp_path_factory.mktemp("json") / "mcp.json"
    original = (json.dumps(data, indent=indent) + trailing).encode("utf-8")
    path.write_bytes(original)
    spec = client_spec("claude-desktop")
    assert spec is not None
    apply(plan_install(spec, ARGV, path))
    assert json.loads(path.read_bytes())["mcpServers"][SERVER_NAME]["command"] == ARGV[0]
    apply(plan_uninstall(spec, path))
    assert path.read_bytes() == original


def test_our_symlinked_config_is_written_through_the_link(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "vault-recall.json"
    dotfiles.parent.mkdir()
    save_config(Config())
    config = config_path()
    dotfiles.write_bytes(config.read_bytes())
    config.unlink()
    config.symlink_to(dotfiles)
    assert register("cursor")
    assert config.is_symlink()
    assert [c.id for c in load_config(dotfiles).clients] == ["cursor"]


def test_backups_keep_the_original_and_the_newest_two_three_in_all(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"original": true}', encoding="utf-8")
    spec = client_spec("cursor")
    assert spec is not None
    for round_ in range(20):
        apply(plan_install(spec, [*ARGV[:-1], f"c{round_}"], path))
    backups = backups_of(path)
    assert len(backups) == KEEP_BACKUPS + 1 == 3  # the oldest, the original, is never pruned
    assert json.loads(backups[0].read_text(encoding="utf-8")) == {"original": True}
    newest = json.loads(backups[-1].read_text(encoding="utf-8"))
    assert newest["mcpServers"][SERVER_NAME]["args"][-1] == "c18"  # the file just before the last install
    assert all(b.name.endswith(BACKUP_SUFFIX) for b in backups)


def test_installing_and_uninstalling_again_and_again_leaves_three_backups_and_the_exact_original(
    tmp_path: Path,
) -> None:
    path = tmp_path / ".claude.json"
    original = b'{\n  "numStartups": 3,\n  "projects": {}\n}\n'
    path.write_bytes(original)
    spec = client_spec("claude-code")
    assert spec is not None
    for _ in range(10):
        apply(plan_install(spec, ARGV, path))
        apply(plan_uninstall(spec, path))
    assert path.read_bytes() == original
    backups = backups_of(path)
    assert len(backups) == 3 and backups[0].read_bytes() == original
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([".claude.json", *(b.name for b in backups)])


def test_an_unwritable_folder_is_one_sentence_and_the_file_is_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    path = folder / "mcp.json"
    path.write_text("{}", encoding="utf-8")
    spec = client_spec("cursor")
    assert spec is not None
    plan = plan_install(spec, ARGV, path)

    def denied(*args: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(guarded_write, "replace_if_unchanged", denied)
    monkeypatch.setattr("vault_recall.app.clients.install.replace_if_unchanged", denied)
    with pytest.raises(InstallError) as caught:
        apply(plan)
    assert str(caught.value) == f"{path} cannot be written (permission denied), so it was left untouched"
    assert path.read_text(encoding="utf-8") == "{}"
    assert backups_of(path) == []
