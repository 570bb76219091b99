"""Running a benchmark as a person does: `python -m bench.NAME …` from the repository's root."""

from __future__ import annotations

import subprocess
import sys

from tests.support.paths import REPO_ROOT


def run_benchmark(name: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`bench/NAME.py` run as a module with this interpreter; its output captured, its exit
    code left to the caller."""
    return subprocess.run(
        [sys.executable, "-m", f"bench.{name}", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
