"""Every documented command (docs/command-line.md) run as a person runs it: the installed
`vault-recall` as a subprocess, in a fresh home, with no desktop — to find any traceback.

Two ways, each or both:
- `cp1252`: output encoded as a Windows console pipes it (PYTHONIOENCODING=cp1252, PYTHONUTF8=0),
  with a vault, an app and a client whose names hold "→" and emoji;
- `windows`: the names Python 3.11 lacks on Windows removed from `os` before anything runs (a
  sitecustomize on PYTHONPATH, so the servers and checks the commands start lose them too):
  Windows imitated as near as Linux allows.  The list is typeshed's (tests/support/platform_names.py)
  less the few Linux's own standard library calls by those names (subprocess, asyncio), which
  would fail here for no fault of ours.

`python -m tests.support.cli_walk [--cp1252] [--windows]` prints one line per command and
exits 1 if any printed a traceback or ended by a signal (`.ci/run`); tests/e2e/test_cli_any_console.py
runs it under pytest.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.support.e2e import vault_recall_command
from tests.support.platform_names import missing_on
from tests.support.vaults import record, write_vault

# Linux's standard library calls these itself where Windows takes another path (asyncio's child
# watcher and pipes, subprocess's exit status): removed, the imitation would fail in Python.
KEPT_FOR_LINUX_STDLIB = frozenset(
    {
        "set_blocking",
        "get_blocking",
        "waitstatus_to_exitcode",
        "WIFEXITED",
        "WEXITSTATUS",
        "WIFSIGNALED",
        "WTERMSIG",
        "WIFSTOPPED",
        "WSTOPSIG",
        "WNOHANG",
        "waitpid",
        "pidfd_open",
        "sched_getaffinity",  # os.cpu_count's neighbour, used by asyncio's executor sizing
        "register_at_fork",
        "get_terminal_size",
        "getpgid",  # subprocess's process groups
        "killpg",
        "setsid",
        "pipe2",
        "posix_spawn",
        "posix_spawnp",
        "confstr",
        "confstr_names",
        "sysconf_names",
        "pathconf_names",
        "O_CLOEXEC",
        "O_NONBLOCK",
        "O_DIRECTORY",
        "O_NOFOLLOW",
        "O_NOCTTY",
        "EX_OK",
        "device_encoding",
        "ttyname",
        "uname_result",
        "stat_result",
        "sched_param",
        "terminal_size",
        "times_result",
    }
)

# Their Linux branches bind POSIX names at import, which on Windows take another branch:
# imported before the names go, as they would find their own module there.
PREIMPORTED = ("platformdirs", "platformdirs.unix")

VAULT_NAME = "Notes \U0001f4d3"
APP_NAME = "Desk \u2192 app \U0001f680"


@dataclass(frozen=True)
class Ran:
    argv: tuple[str, ...]
    code: int
    out: str
    err: str

    @property
    def problem(self) -> str | None:
        """Why this run is not what a person may see: a traceback or death by a signal."""
        if self.code < 0 or self.code > 2:
            return f"ended with {self.code}"
        if "Traceback (most recent call last)" in self.out + self.err:
            return "printed a traceback"
        return None


def removed_names() -> list[str]:
    """The names of `os` the Windows imitation removes."""
    return sorted(name for name in missing_on("os", "win32") if name not in KEPT_FOR_LINUX_STDLIB)


def _sitecustomize(folder: Path) -> None:
    (folder / "sitecustomize.py").write_text(
        "# Windows imitated: the names Python 3.11 lacks there, gone from os before anything runs.\n"
        "import os\n" + "".join(f"import {module}\n" for module in PREIMPORTED) + f"for _name in {removed_names()!r}:\n"
        "    if hasattr(os, _name):\n"
        "        delattr(os, _name)\n",
        encoding="utf-8",
    )


def fresh_env(home: Path, *, cp1252: bool, windows: bool) -> dict[str, str]:
    """A new person's environment: nothing of ours, no desktop, the home given."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("VAULT_RECALL_", "XDG_", "PYTHON", "DBUS_"))
        and key not in ("DISPLAY", "WAYLAND_DISPLAY", "CI")
    }
    env |= {
        "HOME": str(home),
        "USERPROFILE": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
    }
    if cp1252:
        env |= {"PYTHONIOENCODING": "cp1252", "PYTHONUTF8": "0"}
    if windows:
        imitation = home.parent / "imitated-windows"
        imitation.mkdir(exist_ok=True)
        _sitecustomize(imitation)
        env["PYTHONPATH"] = str(imitation)
    return env


# An approval waiting for an app whose name holds an arrow and an emoji, as `vault-recall http`
# leaves it when the app's browser page opens; prints its approval code.
OPEN_APPROVAL = """
import json, sys
from vault_recall.server.oauth import approvals
name = sys.argv[1]
info = {"client_id": "app-1", "client_name": name, "redirect_uris": ["http://127.0.0.1:5000/cb"]}
approvals.register_app("app-1", name, json.dumps(info), None)
app = approvals.get_app("app-1")
_, request = approvals.open_request(
    app, redirect_uri="http://127.0.0.1:5000/cb", redirect_explicit=True, code_challenge="c", state=None,
    scopes=(), resource="http://127.0.0.1:27183/mcp", issuer="http://127.0.0.1:27183",
)
print(request.approval_code)
"""


def _commands(vault: Path, files: Path, code: str) -> Iterator[list[str]]:
    """Each documented command that runs without a desktop, in an order a person might."""
    yield ["--version"]
    yield ["--help"]
    yield ["status"]
    yield ["vault", "list"]
    yield ["vault", "discover"]
    yield ["vault", "add", str(vault), "--name", VAULT_NAME]
    yield ["vault", "list"]
    yield ["vault", "use", VAULT_NAME]
    yield ["vault", "languages", VAULT_NAME]
    yield ["vault", "languages", VAULT_NAME, "english"]
    yield ["subject", "suggest"]
    yield ["subject", "add", "decisions", "--folder", "Entscheidungen \u2192"]
    yield ["subject", "list"]
    yield ["subject", "remove", "decisions", "--folder", "Entscheidungen \u2192"]
    yield ["client", "add", "cursor"]
    yield ["client", "expose", "cursor", "records"]
    yield ["client", "list"]
    yield ["client", "token", "cursor"]
    yield ["client", "token", "cursor", "--revoke"]
    yield ["client", "approve", code]
    yield ["client", "grants"]
    yield ["client", "revoke", "desk-app"]
    yield ["snippet", "--list"]
    yield ["snippet", "cursor"]
    yield ["snippet", "claude-desktop"]
    yield ["snippet", "codex"]
    yield ["snippet", "cursor", "--form", "http", "--url", "http://127.0.0.1:27183/mcp"]
    yield ["install", "claude-code", "--dry-run"]
    yield ["install", "cursor", "--config-file", str(files / "cursor.json")]
    yield ["install", "cursor", "--form", "http", "--config-file", str(files / "cursor.json")]
    yield ["uninstall", "cursor", "--config-file", str(files / "cursor.json")]
    yield ["pause"]
    yield ["status"]
    yield ["resume"]
    yield ["activity"]
    yield ["activity", "--json"]
    yield ["health"]
    yield ["health", "--json"]
    yield ["status"]
    yield ["doctor"]
    yield ["quit"]
    yield ["client", "deny", "ABCD-EFGH"]
    yield ["vault", "remove", VAULT_NAME]
    yield ["demo"]
    for command in ("serve", "http", "tray", "desktop"):
        yield [command, "--help"]


def walk(workdir: Path, *, cp1252: bool, windows: bool) -> list[Ran]:
    """Run every command in a fresh home under `workdir`; what each did."""
    home = workdir / "home"
    home.mkdir(parents=True)
    env = fresh_env(home, cp1252=cp1252, windows=windows)
    vault = write_vault(
        workdir / "Vault \u2192 \U0001f4d3",
        {
            "Entscheidungen \u2192/Build.md": record(
                "build-system", "We chose Buck2 \u2192 faster builds \U0001f680.\n"
            ),
            "Daily.md": "# Today\n\nNothing decided \u2014 \u2615\n",
        },
    )
    files = workdir / "client files"
    files.mkdir()
    (files / "cursor.json").write_text(json.dumps({"mcpServers": {"other \u2192": {"command": "x"}}}), encoding="utf-8")
    opened = subprocess.run(
        [sys.executable, "-c", OPEN_APPROVAL, APP_NAME], env=env, capture_output=True, text=True, check=True
    )
    ran = []
    for argv in _commands(vault, files, opened.stdout.strip()):
        done = subprocess.run(
            [*vault_recall_command(), *argv],
            env=env,
            cwd=workdir,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=300,
            check=False,
        )
        # Read back as the console wrote it; what it could not encode is shown, never raised.
        encoding = "cp1252" if cp1252 else "utf-8"
        out, err = (stream.decode(encoding, errors="replace") for stream in (done.stdout, done.stderr))
        ran.append(Ran(tuple(argv), done.returncode, out, err))
    return ran


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.support.cli_walk", description=__doc__)
    parser.add_argument("--cp1252", action="store_true", help="output encoded as a Windows console pipes it")
    parser.add_argument("--windows", action="store_true", help="without the names Windows lacks in os")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="vault-recall-walk-") as folder:
        ran = walk(Path(folder), cp1252=args.cp1252, windows=args.windows)
    failed = 0
    for each in ran:
        problem = each.problem
        failed += problem is not None
        sys.stdout.write(f"{'FAIL' if problem else 'ok  '} {each.code} vault-recall {' '.join(each.argv)}\n")
        if problem:
            sys.stdout.write(f"     {problem}:\n{each.err[-3000:]}\n")
    how = " and ".join(w for w, on in (("cp1252 output", args.cp1252), ("Windows imitated", args.windows)) if on)
    sys.stdout.write(f"{len(ran)} commands{' with ' + how if how else ''}: {failed} failed\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
