"""The wheel: everything of ours under the one name `vault_recall`, every module of both
folders inside it, the sample vault beside it, and nothing that collides with other projects'
`app` or `server` packages installed in the same environment."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.support.paths import REPO_ROOT, SAMPLE_VAULT

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # Built from a clean copy: setuptools reuses a checkout's build/lib, where modules since
    # moved or deleted would still sit and be packed.
    source = out / "source"
    shutil.copytree(REPO_ROOT, source, ignore=_not_sources)
    command = [
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "-q",
        "--no-deps",
        "-w",
        str(out),
        str(source),
    ]
    subprocess.run(command, check=True, timeout=300, capture_output=True)
    (built,) = out.glob("vault_recall-*.whl")
    return built


def _not_sources(folder: str, names: list[str]) -> set[str]:
    top = Path(folder) == REPO_ROOT
    return {
        name
        for name in names
        if name == "__pycache__"
        or name.endswith(".egg-info")
        or (top and (name[0] == "." or name in ("build", "dist")))
    }


def names_in(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


def test_the_wheels_only_top_level_name_is_vault_recall(wheel: Path) -> None:
    tops = {name.split("/", 1)[0] for name in names_in(wheel)}
    version = wheel.name.split("-")[1]
    assert tops == {"vault_recall", f"vault_recall-{version}.dist-info", f"vault_recall-{version}.data"}


def test_the_wheel_holds_every_module_of_both_folders(wheel: Path) -> None:
    shipped = {name for name in names_in(wheel) if name.endswith(".py")}
    expected = {
        f"vault_recall/{path.relative_to(REPO_ROOT).as_posix()}"
        for folder in ("server", "app")
        for path in (REPO_ROOT / folder).rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert expected - shipped == set()  # a sub-package missing from pyproject's list would show here
    assert shipped - expected == set()


def test_the_wheel_carries_the_sample_vault(wheel: Path) -> None:
    names = names_in(wheel)
    shipped = sorted(n.split("sample-vault/", 1)[1] for n in names if "/share/vault-recall/sample-vault/" in n)
    expected = sorted(p.relative_to(SAMPLE_VAULT).as_posix() for p in SAMPLE_VAULT.rglob("*") if p.is_file())
    assert shipped == expected


def test_the_installed_wheel_lives_beside_other_app_and_server_packages(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
        check=True,
        timeout=300,
        capture_output=True,
    )
    # Two other projects' packages with the generic names a plain `pip install` would mix up.
    for name in ("app", "server"):
        (target / name).mkdir()
        (target / name / "__init__.py").write_text(f"OWNER = 'another project ({name})'\n", encoding="utf-8")
    probe = (
        "import app, server\n"
        "import vault_recall.server.mcp.serve, vault_recall.app.cli.main\n"
        "from vault_recall.app.state.sample_vault import sample_vault_path\n"
        "print(app.OWNER, '|', server.OWNER, '|', vault_recall.server.__file__)\n"
    )
    # -S: no .pth files, so the editable install of this checkout cannot answer instead; the
    # dependencies come from this environment's site-packages, after the target folder.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), sysconfig.get_paths()["purelib"]])}
    done = subprocess.run(
        [sys.executable, "-S", "-c", probe], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    owner_app, owner_server, ours = (part.strip() for part in done.stdout.split("|"))
    assert owner_app == "another project (app)" and owner_server == "another project (server)"
    assert Path(ours).is_relative_to(target / "vault_recall")
    version = subprocess.run(
        [sys.executable, "-S", "-m", "vault_recall.app", "--version"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert version.returncode == 0 and version.stdout.startswith("vault-recall "), version.stderr
