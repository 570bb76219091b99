"""An earlier commit's `server/` and `app/`, importable as `vault_recall.server` and
`vault_recall.app` without installing it: the tree is written out of git history into a folder,
and a second folder holds `vault_recall/server` and `vault_recall/app` as links to it (as
tests/support/typecheck.py shows mypy the tree).  A process started with that second folder on
PYTHONPATH imports the earlier code: `vault_recall` is a namespace package, and a path entry is
searched before the editable install's finder (or a wheel's site-packages, further down
sys.path)."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

from tests.support.paths import REPO_ROOT

PACKAGE_FOLDERS = ("server", "app")


def unavailable(commit: str) -> str | None:
    """Why `commit`'s tree cannot be had here (no git, no repository, a shallow or other
    history), or None when it can."""
    if shutil.which("git") is None:
        return "git is not installed"
    if not (REPO_ROOT / ".git").exists():
        return f"{REPO_ROOT} is not a git checkout (a wheel or an sdist has no history)"
    found = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "cat-file", "-e", f"{commit}^{{commit}}"],
        capture_output=True,
        check=False,
    )
    if found.returncode != 0:
        return f"the history lacks commit {commit} (a shallow clone?): fetch it, or unshallow"
    return None


def importable(commit: str, dest: Path) -> Path:
    """Write `commit`'s server/ and app/ under `dest` and return the folder to put on
    PYTHONPATH for them to be imported as `vault_recall.server` and `vault_recall.app`."""
    archive = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "archive", "--format=tar", commit, *PACKAGE_FOLDERS],
        capture_output=True,
        check=True,
    ).stdout
    tree = dest / "tree"
    tree.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(tree, filter="data")
    root = dest / "import"
    package = root / "vault_recall"
    package.mkdir(parents=True)
    for name in PACKAGE_FOLDERS:
        (package / name).symlink_to(tree / name, target_is_directory=True)
    return root


def imported_from(root: Path, module: str) -> str:
    """Where a process with `root` on PYTHONPATH finds `module` (to check it is the earlier
    tree's, not the installed one)."""
    done = subprocess.run(
        [sys.executable, "-c", f"import {module} as m; print(m.__file__)"],
        env={"PYTHONPATH": str(root), "PATH": ""},
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.strip()
