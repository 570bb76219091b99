"""A wheel of this checkout built as a release builds it: from a copy of its files without git
(a build in the checkout would reuse its build/ and egg-info), at a version handed to
setuptools-scm as .ci/release hands it, with this environment's setuptools (no download)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.paths import REPO_ROOT


def not_sources(folder: str, names: list[str]) -> set[str]:
    """What a copy of the checkout leaves out: caches, egg-info, hidden and build folders."""
    top = Path(folder) == REPO_ROOT
    return {
        name
        for name in names
        if name == "__pycache__"
        or name.endswith(".egg-info")
        or (top and (name[0] == "." or name in ("build", "dist")))
    }


def build_wheel(work: Path, version: str) -> Path:
    source, out = work / "source", work / "dist"
    shutil.copytree(REPO_ROOT, source, ignore=not_sources)
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(out), str(source)],
        env={**os.environ, "SETUPTOOLS_SCM_PRETEND_VERSION_FOR_VAULT_RECALL": version},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (wheel,) = out.glob("vault_recall-*.whl")
    return wheel
