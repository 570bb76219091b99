"""Build the MCP Bundle (.mcpb) from a built wheel: the manifest (packaging/mcpb/manifest.json)
at the wheel's version, its entry point, a pyproject.toml that asks uv for `vault-recall` from
the wheel carried inside the bundle, and the wheel.

    python packaging/build_mcpb.py WHEEL OUTDIR              the bundle's folder, OUTDIR/vault-recall/
    python packaging/build_mcpb.py WHEEL OUTDIR --mcpb CMD   and OUTDIR/vault-recall-VERSION.mcpb,
                                                             checked and packed by `CMD validate|pack`

The bundle is of the `uv` type: the app that installs it (Claude for macOS and Windows) runs it
with uv, which finds or fetches a Python and installs the wheel's dependencies from PyPI; the
person needs neither Python nor our package beforehand, and the bundle does not wait for our
release to reach PyPI.  Stdlib only, so the release workflow runs it with any Python."""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent / "mcpb"


def wheel_version(wheel: Path) -> str:
    name, version, *_ = wheel.name.split("-")
    if name != "vault_recall" or wheel.suffix != ".whl":
        raise SystemExit(f"build_mcpb: {wheel.name} is not a vault_recall wheel")
    return version


def bundle_pyproject(version: str, wheel_name: str) -> str:
    return f"""# The MCP Bundle's environment, which uv makes (packaging/build_mcpb.py writes this file).
[project]
name = "vault-recall-bundle"
version = "{version}"
requires-python = ">=3.11"
dependencies = ["vault-recall=={version}"]

[tool.uv]
package = false  # the bundle itself is not installed: only its dependency

[tool.uv.sources]
vault-recall = {{ path = "wheels/{wheel_name}" }}
"""


def stage(wheel: Path, out: Path) -> Path:
    """The bundle's folder, as `mcpb pack` takes it."""
    version = wheel_version(wheel)
    folder = out / "vault-recall"
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "server").mkdir(parents=True)
    (folder / "wheels").mkdir()
    manifest = json.loads((HERE / "manifest.json").read_text(encoding="utf-8"))
    manifest["version"] = version
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    shutil.copy2(HERE / "server" / "main.py", folder / "server" / "main.py")
    shutil.copy2(wheel, folder / "wheels" / wheel.name)
    (folder / "pyproject.toml").write_text(bundle_pyproject(version, wheel.name), encoding="utf-8")
    # What uv leaves beside the bundle when run in its folder stays out of a later pack.
    (folder / ".mcpbignore").write_text(".venv/\nuv.lock\n__pycache__/\n", encoding="utf-8")
    return folder


def pack(folder: Path, out: Path, mcpb: list[str]) -> Path:
    target = out / f"vault-recall-{json.loads((folder / 'manifest.json').read_text(encoding='utf-8'))['version']}.mcpb"
    subprocess.run([*mcpb, "validate", str(folder / "manifest.json")], check=True)
    subprocess.run([*mcpb, "pack", str(folder), str(target)], check=True)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the MCP Bundle from a built wheel.")
    parser.add_argument("wheel", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--mcpb", help="the mcpb command, e.g. '.ci/npm/node_modules/.bin/mcpb'")
    arguments = parser.parse_args(argv)
    folder = stage(arguments.wheel, arguments.out)
    print(f"build_mcpb: {folder}")
    if arguments.mcpb:
        print(f"build_mcpb: {pack(folder, arguments.out, shlex.split(arguments.mcpb))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
