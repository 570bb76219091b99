"""The command an AI client runs to start `vault-recall serve`: absolute, so it works from GUI
apps that do not inherit the shell's PATH; and the environment it needs, so it reaches the
same config and activity store as the command that wrote it."""

from __future__ import annotations

import os
import site
import sys
import sysconfig
from collections.abc import Mapping
from pathlib import Path

SCRIPT = "vault-recall.exe" if os.name == "nt" else "vault-recall"


def launcher() -> list[str]:
    """How to start Vault Recall from anywhere.

    A frozen bundle: its own executable.  Otherwise the installed console script beside the
    interpreter (its shebang or .exe launcher pins the right environment), or, for a
    `pip install --user`, in the user base's scripts folder.  Failing that, the interpreter in
    isolated mode (-I) so nothing in the client's working directory can shadow ours.
    """
    if getattr(sys, "frozen", False):
        return [sys.executable]
    script = Path(sys.executable).with_name(SCRIPT)
    if script.is_file():
        return [str(script)]
    user = user_install_script(
        Path(__file__).resolve().parents[2],
        Path(site.getusersitepackages()),
        Path(sysconfig.get_path("scripts", sysconfig.get_preferred_scheme("user"))),
    )
    if user is not None:
        return [str(user)]
    return [sys.executable, "-I", "-m", "vault_recall.app"]


def user_install_script(package: Path, user_site: Path, user_scripts: Path) -> Path | None:
    """The console script of a `pip install --user`, when `package` (our installed
    `vault_recall` folder) is in the user site: that install puts the script in the user base's
    scripts folder (~/.local/bin), not beside the interpreter, and `-I` would hide the user
    site the package and its dependencies are in."""
    if not package.is_relative_to(user_site.resolve()):
        return None
    script = user_scripts / SCRIPT
    return script if script.is_file() else None


def serve_argv(client_id: str, pinned_vault: Path | None = None, base: list[str] | None = None) -> list[str]:
    argv = [*(base if base is not None else launcher()), "serve", "--client", client_id]
    if pinned_vault is not None:
        argv += ["--vault", str(pinned_vault)]
    return argv


# The variables that decide where `serve` finds the config and the activity store
# (server/config/config_file.py, and platformdirs under it).  An entry sets exactly these.
HOME_VARIABLES = ("VAULT_RECALL_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME")
_XDG_DEFAULTS = {"XDG_CONFIG_HOME": ".config", "XDG_STATE_HOME": ".local/state"}


def home_env(environ: Mapping[str, str] | None = None, platform: str | None = None) -> dict[str, str]:
    """What an entry must carry so that its server reaches the config and activity store this
    process reaches, whatever the client does to the environment.

    Clients differ: Codex starts servers with a cleared environment (HOME, PATH, USER, LANG
    and a few more), desktop apps never see a shell's exports, others pass theirs on.  So the
    entry says it itself: VAULT_RECALL_HOME when it is set; otherwise each XDG folder that
    moves our config or state away from its default.  Empty when the defaults are in use.
    """
    environ = os.environ if environ is None else environ
    home = environ.get("VAULT_RECALL_HOME")
    if home:
        return {"VAULT_RECALL_HOME": str(Path(home).absolute())}
    if (platform or sys.platform).startswith("win"):
        return {}  # Windows folders come from the system, not from variables
    env = {}
    for name, default in _XDG_DEFAULTS.items():
        value = environ.get(name, "")
        if os.path.isabs(value) and Path(value) != Path.home() / default:
            env[name] = value
    return env
