"""Test vaults written from dicts, and snapshots that prove nothing inside them changed."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from textwrap import dedent


def write_vault(root: Path, notes: Mapping[str, str | bytes]) -> Path:
    """Write `notes` (vault path → text, dedented, or exact bytes) under `root`."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in notes.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(dedent(content).lstrip("\n"), encoding="utf-8")
    return root


def record(subject: str, body: str, **props: str) -> str:
    """A memory record's text: `subject` and extra properties, then the body."""
    lines = ["---", f"subject: {subject}", *(f"{k}: {v}" for k, v in props.items()), "---", dedent(body).strip(), ""]
    return "\n".join(lines)


def snapshot(root: Path) -> dict[str, tuple[str, int, bytes | None]]:
    """Every entry under root (hidden ones included): kind, mtime_ns, and bytes for files."""
    found: dict[str, tuple[str, int, bytes | None]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = path.lstat()
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[rel] = ("link", st.st_mtime_ns, os.readlink(path).encode())
            elif path.is_dir():
                found[rel] = ("dir", st.st_mtime_ns, None)
            else:
                found[rel] = ("file", st.st_mtime_ns, path.read_bytes())
    found["."] = ("dir", root.lstat().st_mtime_ns, None)
    return found
