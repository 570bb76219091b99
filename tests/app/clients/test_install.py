"""Installing into a client's config file: nothing else lost, refusals untouched, atomic, idempotent."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.support.paths import REPO_ROOT
from tests.support.posix import assert_mode
from vault_recall.app.app_errors import InstallError
from vault_recall.app.cli.main import main
from vault_recall.app.clients.catalogue import SERVER_NAME, ClientSpec, client_spec
from vault_recall.app.clients.install import BACKUP_SUFFIX, Plan, apply, plan_install, plan_uninstall
from vault_recall.server.config.config_file import load_config

ARGV = ["/opt/vault recall/bin/vault-recall", "serve", "--client", "cursor"]


def spec(client_id: str) -> ClientSpec:
    found = client_spec(client_id)
    assert found is not None
    return found


OTHERS_JSON = """{
  "theme": "dark",
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"TOKEN": "x"}
    },
    "fetch": {"command": "uvx", "args": ["mcp-server-fetch"]}
  },
  "zzz": [1, 2, 3]
}
"""


def install(path: Path, client_id: str = "cursor", argv: list[str] = ARGV) -> Path | None:
    return apply(plan_install(spec(client_id), argv, path))


def test_into_a_missing_file_and_folder(tmp_path: Path) -> None:
    path = tmp_path / "new/folder/mcp.json"
    assert install(path) is None  # nothing to back up
    assert json.loads(path.read_text())["mcpServers"][SERVER_NAME] == {
        "command": ARGV[0],
        "args": ARGV[1:],
        "env": {"VAULT_RECALL_HOME": os.environ["VAULT_RECALL_HOME"]},  # this test's config folder
    }
    assert_mode(path, 0o600)


def test_into_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text("", encoding="utf-8")
    install(path)
    assert list(json.loads(path.read_text())["mcpServers"]) == [SERVER_NAME]


def test_other_servers_are_kept_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(OTHERS_JSON, encoding="utf-8")
    path.chmod(0o640)
    backup = install(path)
    after = path.read_text(encoding="utf-8")
    data = json.loads(after)
    assert list(data) == ["theme", "mcpServers", "zzz"]
    assert list(data["mcpServers"]) == ["github", "fetch", SERVER_NAME]
    # Everything the person wrote is still there, byte for byte, around our insertion.
    cut = after.index(', "vault-recall"') if ', "vault-recall"' in after else after.index(',\n    "vault-recall"')
    assert after[:cut] == OTHERS_JSON[:cut]
    assert after.endswith(OTHERS_JSON[OTHERS_JSON.index('\n  },\n  "zzz"') :])
    assert backup is not None and re.fullmatch(r"mcp\.json\.\d{8}-\d{6}" + re.escape(BACKUP_SUFFIX), backup.name)
    assert backup.read_text(encoding="utf-8") == OTHERS_JSON
    assert_mode(path, 0o640)  # its permissions are kept
    # Uninstalling gives back exactly the original bytes.
    apply(plan_uninstall(spec("cursor"), path))
    assert path.read_text(encoding="utf-8") == OTHERS_JSON


def test_installing_twice_gives_the_same_bytes(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(OTHERS_JSON, encoding="utf-8")
    install(path)
    first = path.read_bytes()
    plan = plan_install(spec("cursor"), ARGV, path)
    assert not plan.changes and not plan.replaced
    install(path)
    assert path.read_bytes() == first


def test_an_old_entry_of_ours_is_replaced_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    install(path, argv=["/old/vault-recall", "serve", "--client", "cursor"])
    plan = plan_install(spec("cursor"), ARGV, path)
    assert plan.replaced and plan.changes
    apply(plan)
    assert json.loads(path.read_text())["mcpServers"][SERVER_NAME]["command"] == ARGV[0]


@pytest.mark.parametrize(
    ("client_id", "name", "content", "words"),
    [
        ("vscode", "mcp.json", '{\n  // my servers\n  "servers": {}\n}\n', "is not plain JSON (line 2"),
        ("cursor", "mcp.json", '{"mcpServers": {"a": {"command": "x"},},}\n', "is not plain JSON"),
        ("cursor", "mcp.json", "[1, 2]\n", "does not hold a JSON object"),
        ("cursor", "mcp.json", '{"mcpServers": ["not", "an", "object"]}', "'mcpServers' that is not an object"),
        ("codex", "config.toml", "[mcp_servers\ncommand = 1\n", "is not valid TOML"),
        ("codex", "config.toml", 'mcp_servers = "x"\n', "'mcp_servers' that is not a table"),
        ("continue", "config.yaml", "mcpServers: [unclosed\n", "is not valid YAML"),
        ("goose", "config.yaml", "extensions: [1, 2]\n", "'extensions' that is not a mapping"),
    ],
)
def test_files_that_do_not_parse_are_refused_and_untouched(
    tmp_path: Path, client_id: str, name: str, content: str, words: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InstallError, match=re.escape(words)):
        plan_install(spec(client_id), ARGV, path)
    assert path.read_text(encoding="utf-8") == content


def test_the_cli_refuses_jsonc_prints_the_snippet_and_leaves_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "settings.json"
    content = '{\n  // Zed settings\n  "theme": "One Dark",\n}\n'
    path.write_text(content, encoding="utf-8")
    assert main(["install", "zed", "--config-file", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"Paste this into {path} yourself" in err and '"context_servers"' in err
    assert err.strip().endswith("comments and trailing commas are not supported), so it was left untouched")
    assert path.read_text(encoding="utf-8") == content


def test_a_read_only_file_is_a_clear_error_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(OTHERS_JSON, encoding="utf-8")
    path.chmod(0o444)
    with pytest.raises(InstallError, match="is read-only, so it was left untouched"):
        install(path)
    assert path.read_text(encoding="utf-8") == OTHERS_JSON
    assert [p.name for p in tmp_path.iterdir()] == ["mcp.json"]  # no backup, no temporary file


CRASH_BEFORE_SWAP = "guarded_write.swap = lambda *a: os._exit(9)\n"
CRASH_AFTER_SWAP = "real = guarded_write.swap\nguarded_write.swap = lambda *a: (real(*a), os._exit(9))\n"
CRASH_AT_PLAIN_RENAME = "guarded_write.swap = lambda *a: False\nos.replace = lambda *a: os._exit(9)\n"


@pytest.mark.parametrize(
    ("crash", "whole"),
    [(CRASH_BEFORE_SWAP, "old"), (CRASH_AFTER_SWAP, "new"), (CRASH_AT_PLAIN_RENAME, "old")],
    ids=["before-the-swap", "right-after-the-swap", "at-a-plain-rename"],
)
def test_a_crash_midway_leaves_the_old_file_or_the_new_one_whole_and_the_original_kept(
    tmp_path: Path, crash: str, whole: str
) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(OTHERS_JSON, encoding="utf-8")
    script = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from vault_recall.app.clients import guarded_write\n"
        "from vault_recall.app.clients.catalogue import client_spec\n"
        "from vault_recall.app.clients.install import apply, plan_install\n"
        + crash
        + "apply(plan_install(client_spec('cursor'), ['x', 'serve'], Path(sys.argv[1])))\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(path)], cwd=REPO_ROOT, timeout=60, check=False)
    assert done.returncode == 9
    text = path.read_text(encoding="utf-8")
    if whole == "old":
        assert text == OTHERS_JSON
    else:
        assert json.loads(text)["mcpServers"][SERVER_NAME]["command"] == "x"
    backups = [p for p in tmp_path.iterdir() if p.name.endswith(BACKUP_SUFFIX)]
    assert [b.read_text(encoding="utf-8") for b in backups] == [OTHERS_JSON]


def test_dry_run_shows_a_diff_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(OTHERS_JSON, encoding="utf-8")
    assert main(["install", "cursor", "--config-file", str(path), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"--- {path} (now)") and '+    "vault-recall": {' in out
    assert path.read_text(encoding="utf-8") == OTHERS_JSON
    assert load_config().client("cursor") is None


def test_install_registers_the_client_and_uninstall_removes_only_ours(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(OTHERS_JSON, encoding="utf-8")
    assert main(["install", "cursor", "--config-file", str(path)]) == 0
    out = capsys.readouterr().out
    assert re.search(rf"Added Vault Recall to {re.escape(str(path))} \(old file kept as mcp\.json\.[\d-]+\.vault", out)
    assert "Registered client 'cursor'" in out
    assert "Restart Cursor" in out
    assert load_config().client("cursor") is not None
    assert main(["install", "cursor", "--config-file", str(path)]) == 0
    again = capsys.readouterr().out
    assert "nothing changed" in again
    assert "Restart" not in again  # the client already runs what the file says
    assert main(["uninstall", "cursor", "--config-file", str(path)]) == 0
    assert path.read_text(encoding="utf-8") == OTHERS_JSON


CODEX_TOML = """# my codex settings
model = "o4"

[mcp_servers.github]
command = "npx"  # keep this comment
args = ["-y", "server-github"]
"""


def test_toml_keeps_comments_and_other_servers(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CODEX_TOML, encoding="utf-8")
    install(path, "codex")
    after = path.read_text(encoding="utf-8")
    assert after.startswith(CODEX_TOML)  # byte-equal, our table appended
    data = tomllib.loads(after)
    assert data["mcp_servers"][SERVER_NAME] == spec("codex").entry(ARGV)
    assert data["mcp_servers"]["github"]["command"] == "npx"
    before = path.read_bytes()
    install(path, "codex")
    assert path.read_bytes() == before
    apply(plan_uninstall(spec("codex"), path))
    assert tomllib.loads(path.read_text(encoding="utf-8")) == tomllib.loads(CODEX_TOML)
    assert "# keep this comment" in path.read_text(encoding="utf-8")


CONTINUE_YAML = """name: My assistant  # mine
version: 1.0.0
schema: v1
mcpServers:
  - name: other
    command: uvx
    args: [mcp-server-fetch]
"""

GOOSE_YAML = """GOOSE_PROVIDER: openai  # provider
extensions:
  developer:
    enabled: true
    type: builtin
"""


@pytest.mark.parametrize(("client_id", "content"), [("continue", CONTINUE_YAML), ("goose", GOOSE_YAML)])
def test_yaml_keeps_comments_and_other_entries(tmp_path: Path, client_id: str, content: str) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(content, encoding="utf-8")
    install(path, client_id)
    after = path.read_text(encoding="utf-8")
    assert "# mine" in after or "# provider" in after
    data = yaml.safe_load(after)
    original = yaml.safe_load(content)
    if client_id == "continue":
        assert [s["name"] for s in data["mcpServers"]] == ["other", SERVER_NAME]
        assert data["mcpServers"][0] == original["mcpServers"][0]
    else:
        assert list(data["extensions"]) == ["developer", SERVER_NAME]
        assert data["extensions"][SERVER_NAME]["cmd"] == ARGV[0]
    first = path.read_bytes()
    install(path, client_id)
    assert path.read_bytes() == first
    apply(plan_uninstall(spec(client_id), path))
    assert yaml.safe_load(path.read_text(encoding="utf-8")) == original


def test_jetbrains_has_no_file_so_install_prints_what_to_paste(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["install", "jetbrains"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["mcpServers"][SERVER_NAME]["args"][:2] == ["serve", "--client"]
    assert "paste the above into Settings → Tools → AI Assistant" in captured.err


def test_a_broken_config_of_ours_stops_the_install_before_the_clients_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vault_recall.server.config.config_file import config_path

    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text("{", encoding="utf-8")
    path = tmp_path / "mcp.json"
    assert main(["install", "cursor", "--config-file", str(path)]) == 1
    assert "is not valid JSON" in capsys.readouterr().err
    assert not path.exists()
    assert os.listdir(tmp_path) == []


# Found in review


@pytest.mark.parametrize(
    "content",
    [
        '{"mcpServers": "}", "mcpServers": {}}',
        '{"mcpServers": 1, "mcpServers": {}}',
        '{"mcpServers": {"vault-recall": 1, "vault-recall": 2}}',
    ],
)
def test_duplicate_keys_are_refused(tmp_path: Path, content: str) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(content, encoding="utf-8")
    makes: list[Callable[[], Plan]] = [
        lambda: plan_install(spec("cursor"), ARGV, path),
        lambda: plan_uninstall(spec("cursor"), path),
    ]
    for make in makes:
        with pytest.raises(InstallError, match="twice in one object"):
            make()
    assert path.read_text(encoding="utf-8") == content


def test_a_one_line_file_is_idempotent_and_its_original_backup_kept(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_text('{"theme": "dark"}', encoding="utf-8")
    first = install(path)
    once = path.read_bytes()
    assert install(path) is None and path.read_bytes() == once
    apply(plan_uninstall(spec("cursor"), path))
    assert path.read_text(encoding="utf-8") == '{"theme": "dark"}'
    backups = sorted(p for p in tmp_path.iterdir() if p.name.endswith(BACKUP_SUFFIX))
    assert first in backups and len(backups) == 2
    assert first.read_text(encoding="utf-8") == '{"theme": "dark"}'  # the original is never overwritten


def test_a_symlinked_config_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles/mcp.json"
    real.parent.mkdir()
    real.write_text(OTHERS_JSON, encoding="utf-8")
    link = tmp_path / ".cursor/mcp.json"
    link.parent.mkdir()
    link.symlink_to(real)
    install(link)
    assert link.is_symlink()
    assert SERVER_NAME in json.loads(real.read_text(encoding="utf-8"))["mcpServers"]


def test_settings_a_person_added_to_our_entry_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {SERVER_NAME: {"command": "/old", "args": [], "env": {"A": "1"}}}}))
    plan = plan_install(spec("cursor"), ARGV, path)
    assert plan.replaced
    apply(plan)
    assert json.loads(path.read_text())["mcpServers"][SERVER_NAME] == {
        "command": ARGV[0],
        "args": ARGV[1:],
        "env": {"A": "1", "VAULT_RECALL_HOME": os.environ["VAULT_RECALL_HOME"]},
    }
    toml = tmp_path / "config.toml"
    toml.write_text(
        '[mcp_servers.vault-recall]\ncommand = "/old"\nstartup_timeout_sec = 30\n'
        '[mcp_servers.vault-recall.env]\nTOKEN = "secret"\n',
        encoding="utf-8",
    )
    install(toml, "codex")
    entry = tomllib.loads(toml.read_text(encoding="utf-8"))["mcp_servers"][SERVER_NAME]
    home = os.environ["VAULT_RECALL_HOME"]
    # The person's timeout stays; the environment keeps their TOKEN beside what we need.
    assert entry == {
        "command": ARGV[0],
        "args": ARGV[1:],
        "startup_timeout_sec": 30,
        "required": True,
        "env": {"TOKEN": "secret", "VAULT_RECALL_HOME": home},
    }
    # A person who wants Codex to start without us keeps saying so.
    toml.write_text(toml.read_text(encoding="utf-8").replace("required = true", "required = false"), encoding="utf-8")
    install(toml, "codex")
    assert tomllib.loads(toml.read_text(encoding="utf-8"))["mcp_servers"][SERVER_NAME]["required"] is False


@pytest.mark.parametrize(
    "content",
    ['mcp_servers.other.command = "x"\nmodel = "o3"\n', 'mcp_servers = { other = { command = "x", args = [] } }\n'],
    ids=["dotted-keys", "inline-table"],
)
def test_toml_layouts_that_cannot_be_edited_safely_are_refused(tmp_path: Path, content: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(content, encoding="utf-8")
    try:
        apply(plan_install(spec("codex"), ARGV, path))
    except InstallError as exc:
        assert "left untouched" in str(exc)
        assert path.read_text(encoding="utf-8") == content
        return
    # If it was edited, nothing else may have changed.
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert data["mcp_servers"].pop(SERVER_NAME) == {"command": ARGV[0], "args": ARGV[1:]}
    assert data == tomllib.loads(content)


INDENTED_CONTINUE = """name: Mine
version: 1.0.0
schema: v1
models:
  - name: gpt
    provider: openai   # the model I use
mcpServers:
  - name: other
    command: uvx
"""


def test_yaml_keeps_the_files_own_indentation_and_line_endings(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_bytes(INDENTED_CONTINUE.replace("\n", "\r\n").encode())
    install(path, "continue")
    after = path.read_bytes().decode()
    assert after.startswith(INDENTED_CONTINUE.replace("\n", "\r\n"))  # untouched, byte for byte
    assert "\n" not in after.replace("\r\n", "")
    apply(plan_uninstall(spec("continue"), path))
    assert path.read_bytes().decode() == INDENTED_CONTINUE.replace("\n", "\r\n")


def test_a_comments_only_yaml_keeps_its_comments(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("# keep me\n# and me\n", encoding="utf-8")
    install(path, "goose")
    after = path.read_text(encoding="utf-8")
    assert after.startswith("# keep me\n# and me\n")
    assert yaml.safe_load(after)["extensions"][SERVER_NAME]["cmd"] == ARGV[0]


def test_a_new_continue_config_has_the_fields_continue_requires(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    install(path, "continue")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert (data["name"], data["version"], data["schema"]) == ("Local config", "1.0.0", "v1")


def test_a_byte_order_mark_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_bytes(b"\xef\xbb\xbf" + OTHERS_JSON.replace("\n", "\r\n").encode())
    install(path)
    assert path.read_bytes().startswith(b"\xef\xbb\xbf{\r\n")


JSONC = (
    "{\n"
    '  // a person\'s note, with "quotes" and a } in it\n'
    '  "share": "https://example.com/a//b,}", /* not a comment: the string above */\n'
    '  "mcp": {\n'
    '    "other": {"type": "remote", "url": "https://x.example/mcp",},\n'
    "  },\n"
    "}\n"
)


@pytest.mark.parametrize("start", [JSONC, JSONC.replace("\n", "\r\n"), "{\n  // nothing yet\n}\n", "{} // one line\n"])
def test_a_jsonc_file_keeps_its_comments_and_trailing_commas_through_install_and_uninstall(
    tmp_path: Path, start: str
) -> None:
    path = tmp_path / "opencode.jsonc"
    path.write_text(start, encoding="utf-8", newline="")
    plan = plan_install(spec("opencode"), ARGV, path)
    apply(plan)
    after = path.read_bytes().decode("utf-8")
    for line in start.splitlines():
        marks = [at for at in (line.find("//"), line.find("/*")) if at >= 0]
        if marks:
            assert line[min(marks) :] in after, after
    from vault_recall.app.clients.json_edit import parse_object

    data = parse_object(after, str(path), comments=True)
    assert data["mcp"][SERVER_NAME]["command"][0] == ARGV[0]
    assert {k: v for k, v in data.items() if k != "mcp"} == {
        k: v for k, v in parse_object(start, str(path), comments=True).items() if k != "mcp"
    }
    apply(plan_uninstall(spec("opencode"), path))
    assert path.read_bytes().decode("utf-8") == start


def test_a_client_that_reads_strict_json_still_gets_no_comment_read_past(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{\n  // a comment Cursor would not read\n  "mcpServers": {}\n}\n', encoding="utf-8")
    with pytest.raises(InstallError, match="comments and trailing commas are not supported"):
        plan_install(spec("cursor"), ARGV, path)
