"""The wheel: everything of ours under the one name `vault_recall`, every module of both
folders inside it, the sample vault inside it too, and nothing that collides with other projects'
`app` or `server` packages installed in the same environment.  Installed as people install it —
`pip install --user` (a throwaway user base) and a venv of its own as pipx and uv make — its
`vault-recall demo` finds the sample vault."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.support.built_wheel import not_sources
from tests.support.paths import REPO_ROOT, SAMPLE_VAULT

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # Built from a clean copy: setuptools reuses a checkout's build/lib, where modules since
    # moved or deleted would still sit and be packed.
    source = out / "source"
    shutil.copytree(REPO_ROOT, source, ignore=not_sources)
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


def names_in(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


def test_the_wheels_only_top_level_name_is_vault_recall(wheel: Path) -> None:
    tops = {name.split("/", 1)[0] for name in names_in(wheel)}
    version = wheel.name.split("-")[1]
    assert tops == {"vault_recall", f"vault_recall-{version}.dist-info"}


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


def test_the_wheel_carries_the_sample_vault_inside_the_package(wheel: Path) -> None:
    names = names_in(wheel)
    inside = "vault_recall/sample_vault/"
    shipped = sorted(name.removeprefix(inside) for name in names if name.startswith(inside))
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


def installed_demo(
    executable: Path, home: Path, pythonpath: str, extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`vault-recall demo` of an installed wheel, its dependencies taken from this environment
    (installed --no-deps: only where our own files land is under test)."""
    env = {
        **os.environ,
        "PYTHONPATH": pythonpath,
        "VAULT_RECALL_HOME": str(home / "vault-recall"),
        "HOME": str(home),
        **(extra or {}),
    }
    return subprocess.run(
        [str(executable), "demo"], env=env, cwd=home, capture_output=True, text=True, timeout=300, check=False
    )


def test_a_user_install_of_the_wheel_finds_the_sample_vault(wheel: Path, tmp_path: Path) -> None:
    """`pip install --user`: the package goes to the user base's site-packages while sys.prefix
    stays the interpreter's own (data files under the prefix's share/ were not found), and the
    script to ~/.local/bin, not beside the interpreter (the demo's server is started by it)."""
    base = Path(getattr(sys, "_base_executable", sys.executable))
    userbase, home = tmp_path / "userbase", tmp_path / "home"
    home.mkdir()
    user = {"PYTHONUSERBASE": str(userbase), "HOME": str(home)}
    env = {key: value for key, value in os.environ.items() if key != "PIP_CONSTRAINT"} | user
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(base), "install", "-q", "--user", "--no-deps",
         "--break-system-packages", "--no-warn-script-location", str(wheel)],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    where = subprocess.run(
        [str(base), "-c", "import vault_recall.app; print(vault_recall.app.__file__)"],
        env=env, cwd=home, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert Path(where.stdout.strip()).is_relative_to(userbase), where.stdout  # the user install, not ours
    scheme = sysconfig.get_preferred_scheme("user")
    scripts = Path(sysconfig.get_path("scripts", scheme, vars={"userbase": str(userbase)}))
    done = installed_demo(scripts / "vault-recall", home, sysconfig.get_paths()["purelib"], user)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "demo: all steps passed" in done.stdout, done.stdout


def test_a_venv_of_its_own_as_pipx_and_uv_make_finds_the_sample_vault(wheel: Path, tmp_path: Path) -> None:
    venv, home = tmp_path / "tool-venv", tmp_path / "home"
    home.mkdir()
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    env = {key: value for key, value in os.environ.items() if key != "PIP_CONSTRAINT"}
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", str(wheel)],
        env=env, check=True, timeout=300, capture_output=True,
    )  # fmt: skip
    executable = python.parent / ("vault-recall.exe" if os.name == "nt" else "vault-recall")
    done = installed_demo(executable, home, sysconfig.get_paths()["purelib"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "demo: all steps passed" in done.stdout, done.stdout
