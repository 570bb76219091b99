"""No two modules of ours share a file name: a module's name says what it holds wherever it is
met — an import line, a traceback, a search by file name, an editor's tab — without its folder
to tell two apart (there were two `store.py`, `tokens.py`, `errors.py`, `approvals.py` and
`endpoint.py`).  Python itself names two kinds of file alike, and only those may repeat:
`__init__.py` (each package's) and `__main__.py` (what `python -m` runs).

Folders (packages) are rooms and are not checked here: `oauth/` is both the OAuth store's room in
`server/` and its routes' room in `server/http/`."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from tests.support.paths import REPO_ROOT

FOLDERS = ("server", "app")
NAMED_BY_PYTHON = {"__init__.py", "__main__.py"}


def shared_names(root: Path) -> dict[str, list[str]]:
    """Each file name two or more of our modules under `root` have, with where they are."""
    places: dict[str, list[str]] = defaultdict(list)
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            places[path.name].append(path.relative_to(root).as_posix())
    return {name: found for name, found in places.items() if len(found) > 1 and name not in NAMED_BY_PYTHON}


def test_no_two_modules_share_a_name() -> None:
    assert shared_names(REPO_ROOT) == {}


def test_the_check_finds_two_modules_of_one_name_anywhere_under_the_two_folders(tmp_path: Path) -> None:
    for name in (
        "server/activity/store.py",
        "app/tray/deep/room/store.py",
        "server/__init__.py",
        "app/tray/__init__.py",
        "app/__main__.py",
        "server/tokens.py",
        "bench/tokens.py",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    assert shared_names(tmp_path) == {"store.py": ["server/activity/store.py", "app/tray/deep/room/store.py"]}
