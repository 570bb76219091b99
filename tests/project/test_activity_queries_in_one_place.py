"""Every statement on the activity store's tables is in server/activity/queries.py (the schema
that makes them, in database.py): a column renamed or a table split is one module's change,
and the tray, the command line, the doctor and the benchmarks read the store through it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.support import sources
from tests.support.paths import REPO_ROOT

FOLDERS = ("server", "app", "bench")
ALLOWED = {"server/activity/queries.py", "server/activity/database.py"}
# A statement that names one of the store's tables: reads, writes and joins alike (SQL is written
# in capitals here, so prose that says "from events" is not one).
STATEMENT = re.compile(r"\b(?:FROM|INTO|UPDATE|JOIN|TABLE(?: IF NOT EXISTS)?)\s+(?:events|returned)\b")


def writing_sql_on_the_store(root: Path) -> dict[str, list[int]]:
    """Each module under `root` with a string that names the store's tables, with its lines."""
    found: dict[str, list[int]] = {}
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            lines = sorted(
                {
                    node.lineno
                    for node in sources.nodes(path)
                    if isinstance(node, ast.Constant) and isinstance(node.value, str) and STATEMENT.search(node.value)
                }
            )
            if lines:
                found[path.relative_to(root).as_posix()] = lines
    return found


def test_only_the_activity_queries_module_speaks_sql_to_the_store() -> None:
    found = writing_sql_on_the_store(REPO_ROOT)
    assert set(found) - ALLOWED == set(), found


def test_the_check_sees_a_query_in_any_string_and_leaves_prose_alone(tmp_path: Path) -> None:
    (tmp_path / "app" / "clients").mkdir(parents=True)
    (tmp_path / "app" / "clients" / "probe.py").write_text(
        '"""Reads from events of the activity store."""\n'
        'WHERE = "pid = ?"\n'
        "def look(db):\n"
        '    return db.execute(f"SELECT COUNT(*) FROM events WHERE {WHERE}")\n'
        "def forget(db):\n"
        '    db.execute("DELETE FROM returned WHERE event_id = ?")\n'
    )
    assert writing_sql_on_the_store(tmp_path) == {"app/clients/probe.py": [4, 6]}
