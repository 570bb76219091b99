"""`vault-recall desktop install|uninstall`: a per-user launcher in the applications menu (XDG)
with its icon at every hicolor size, removable cleanly."""

from __future__ import annotations

import io
import os
from pathlib import Path

from vault_recall.app.clients.launch import launcher
from vault_recall.app.desktop.desktop_entry import desktop_entry
from vault_recall.app.desktop.icon import render_icon
from vault_recall.app.state.atomic_write import write_atomically

ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256)


def data_home(home: Path | None = None) -> Path:
    home = home or Path.home()
    return Path(os.environ.get("XDG_DATA_HOME") or home / ".local/share")


def launcher_files(home: Path | None = None) -> list[Path]:
    """Every file `install` writes (and `uninstall` removes)."""
    base = data_home(home)
    icons = [base / f"icons/hicolor/{size}x{size}/apps/vault-recall.png" for size in ICON_SIZES]
    return [base / "applications/vault-recall.desktop", *icons]


def install(home: Path | None = None, argv: list[str] | None = None) -> list[Path]:
    entry, *icons = launcher_files(home)
    for path, size in zip(icons, ICON_SIZES, strict=True):
        path.parent.mkdir(parents=True, exist_ok=True)
        image = io.BytesIO()
        render_icon("ok", size=size).save(image, format="PNG")
        write_atomically(path, image.getvalue(), 0o644)
    entry.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(entry, desktop_entry([*(argv or launcher()), "tray"], autostart=False).encode("utf-8"), 0o644)
    return [entry, *icons]


def uninstall(home: Path | None = None) -> list[Path]:
    removed = []
    for path in launcher_files(home):
        if path.exists():
            path.unlink()
            removed.append(path)
    return removed
