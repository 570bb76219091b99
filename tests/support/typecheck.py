"""Type-check the project: `python -m tests.support.typecheck` (part of the test suite, too),
for this platform and as Windows and macOS see it (`--platform win32`, `--platform darwin`:
typeshed knows which names each lacks, and mypy follows our `sys.platform` checks).

The two folders are imported as `vault_recall.server` and `vault_recall.app` through the
editable install's import hook, which mypy cannot follow.  So mypy is shown a folder holding
`vault_recall/server` and `vault_recall/app` as links to the real ones, and checks them by
their real names; `tests` and `bench` it finds in the repository's root, where it runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.support.paths import REPO_ROOT

# Ours, through the links below, and the tests and benchmarks, from the repository root.
PACKAGES = ("vault_recall.server", "vault_recall.app", "tests", "bench")

# Besides this one: every platform the project supports.
OTHER_PLATFORMS = ("win32", "darwin")


def run_mypy(extra: list[str] | None = None, platform: str | None = None) -> subprocess.CompletedProcess[str]:
    """mypy over the project, as on `platform` (default: this one), each platform with its own
    cache (one cache would be thrown away at every switch)."""
    if platform is not None:
        extra = [*(extra or []), "--platform", platform, "--cache-dir", str(REPO_ROOT / ".mypy_cache" / platform)]
    mypy = shutil.which("mypy", path=str(Path(sys.executable).parent))  # mypy.exe on Windows
    command = [mypy] if mypy is not None else [sys.executable, "-m", "mypy"]
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
    failed = 0
    for each in (None, *OTHER_PLATFORMS):
        done = run_mypy(sys.argv[1:], each)
        sys.stdout.write(f"{each or sys.platform}: {done.stdout}")
        sys.stderr.write(done.stderr)
        failed = failed or done.returncode
    sys.exit(failed)
