"""The architecture's layers: server/ never imports the tray side, and `serve` never loads it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN_IN_SERVER = {"app", "pystray", "PIL"}


def imported_top_levels(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_server_never_imports_app_pystray_or_pil() -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(imported_top_levels(path) & FORBIDDEN_IN_SERVER)
        for path in sorted((ROOT / "server").rglob("*.py"))
    }
    assert {k: v for k, v in offenders.items() if v} == {}
    assert len(offenders) >= 10  # the walk did look at the server package


def test_the_walker_sees_every_import_form(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text("import PIL.Image\nfrom pystray import Icon\nimport os, app.cli as c\nfrom . import x\n")
    assert imported_top_levels(sample) == {"PIL", "pystray", "os", "app"}


def test_the_serve_path_loads_neither_pystray_nor_pil() -> None:
    probe = (
        "import sys, app.cli, server.serve, server.tools\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('pystray', 'PIL'))\n"
        "print(','.join(loaded))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.strip() == ""
