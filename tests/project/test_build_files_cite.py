"""Every file of ours the build and CI files name exists: MANIFEST.in, pyproject.toml, the
scripts in .ci/ and packaging/ say which test checks them or which module they run, and a
rename that leaves one of them naming a file that is gone sends the next reader nowhere.
(The docs' own paths are checked in test_docs_tables.py.)"""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.paths import REPO_ROOT

NAMED = re.compile(r"(?<![\w/.-])((?:tests|server|app|bench|packaging)/[\w/.-]*\w\.(?:py|sh|spec|json))\b")


def build_files() -> list[Path]:
    scripts = [path for path in (REPO_ROOT / ".ci").iterdir() if path.is_file()]
    packaging = [path for path in (REPO_ROOT / "packaging").iterdir() if path.is_file()]
    return sorted([REPO_ROOT / "MANIFEST.in", REPO_ROOT / "pyproject.toml", *scripts, *packaging])


def missing_in(text: str) -> list[str]:
    return sorted({name for name in NAMED.findall(text) if not (REPO_ROOT / name).exists()})


def test_every_file_the_build_files_name_exists() -> None:
    missing = {}
    for path in build_files():
        if gone := missing_in(path.read_text(encoding="utf-8", errors="replace")):
            missing[str(path.relative_to(REPO_ROOT))] = gone
    assert missing == {}


def test_a_named_file_that_is_gone_is_caught() -> None:
    text = "# (tests/packaging/test_sdist.py checks it) and tests/packaging/test_release.py\n"
    assert missing_in(text) == ["tests/packaging/test_sdist.py"]
