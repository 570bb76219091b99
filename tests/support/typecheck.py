"""Type-check the project: `python -m tests.support.typecheck` (part of the test suite, too).

The two folders are imported as `vault_recall.server` and `vault_recall.app` through the
editable install's import hook, which mypy cannot follow.  So mypy is shown a folder holding
`vault_recall/server` and `vault_recall/app` as links to the real ones, and checks them by
their real names; `tests` and `bench` it finds in the repository's root, where it runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.support.paths import REPO_ROOT

# Ours, through the links below, and the tests and benchmarks, from the repository root.
PACKAGES = ("vault_recall.server", "vault_recall.app", "tests", "bench")


def run_mypy(extra: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    mypy = Path(sys.executable).with_name("mypy")
    command = [str(mypy)] if mypy.exists() else [sys.executable, "-m", "mypy"]
    with tempfile.TemporaryDirectory(prefix="vault-recall-types-") as folder:
        package = Path(folder) / "vault_recall"
        package.mkdir()
        for name in ("server", "app"):
            (package / name).symlink_to(REPO_ROOT / name, target_is_directory=True)
        env = {**os.environ, "MYPYPATH": folder}
        return subprocess.run(
            [*command, *(arg for name in PACKAGES for arg in ("-p", name)), *(extra or [])],
            cwd=REPO_ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )


if __name__ == "__main__":
    done = run_mypy(sys.argv[1:])
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    sys.exit(done.returncode)
