"""Health of a vault: the sample vault is healthy; each kind of problem is found and named."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.paths import SAMPLE_VAULT
from tests.support.vaults import record, write_vault
from vault_recall.app.state.health import check_health
from vault_recall.app.state.obsidian_vaults import discover_vaults, obsidian_json_locations


def test_the_sample_vault_is_healthy() -> None:
    report = check_health(SAMPLE_VAULT)
    assert report.status == "ok" and report.exit_code == 0
    assert (report.notes, report.records) == (10, 7)
    assert [s["subject"] for s in report.subjects] == ["build-system", "release-process", "team-practices"]
    assert report.summary() == "sample-vault — 10 notes, 7 records, no problems"
    assert report.problems == () and report.too_large == () and report.symlinks == ()


def test_every_kind_of_problem_is_reported(tmp_path: Path) -> None:
    outside = write_vault(tmp_path / "outside", {"X.md": "x"})
    vault = write_vault(
        tmp_path / "Work",
        {
            "Good.md": record("s", "fine"),
            "Dup keys.md": "---\nsubject: s\nsubject: s\n---\n",
            "Bad status.md": record("s", "x", status="maybe"),
            "Huge record.md": record("s", "word " * 14000),
            "A/Same name.md": "a",
            "B/same NAME.md": "b",
            "Latin1.md": b"---\nsubject: s\n---\ncaf\xe9\n",
        },
    )
    (vault / "Link.md").symlink_to(outside / "X.md")
    report = check_health(vault)
    assert report.status == "degraded" and report.exit_code == 1
    assert {p["path"] for p in report.problems} == {"Dup keys.md", "Bad status.md", "Latin1.md"}
    assert [t["path"] for t in report.too_large] == ["Huge record.md"]
    assert report.symlinks == ("Link.md",)
    assert report.ambiguous_names == ({"name": "Same name", "paths": ["A/Same name.md", "B/same NAME.md"]},)
    assert report.summary() == "Work — 7 notes, 2 records, 4 problems"
    json.dumps(report.to_json())


@pytest.mark.parametrize("make", ["missing", "file"])
def test_an_unreadable_vault_is_unavailable(tmp_path: Path, make: str) -> None:
    target = tmp_path / "v"
    if make == "file":
        target.write_text("x", encoding="utf-8")
    report = check_health(target)
    assert report.status == "unavailable" and report.exit_code == 2
    assert report.summary().startswith("v — unavailable: vault ")


def test_no_vault_is_unavailable() -> None:
    report = check_health(None)
    assert report.status == "unavailable" and report.summary() == "No vault — unavailable: no vault is configured"


def test_obsidian_vault_lists_are_read_from_every_linux_location(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    locations = obsidian_json_locations(home=tmp_path, platform="linux")
    assert locations == [
        tmp_path / ".config/obsidian/obsidian.json",
        tmp_path / ".var/app/md.obsidian.Obsidian/config/obsidian/obsidian.json",
        tmp_path / "snap/obsidian/current/.config/obsidian/obsidian.json",
    ]
    for index, location in enumerate(locations):
        location.parent.mkdir(parents=True)
        location.write_text(
            json.dumps({"vaults": {f"id{index}": {"path": f"/vaults/V{index}", "ts": 100 * index, "open": True}}}),
            encoding="utf-8",
        )
    found = discover_vaults(locations)
    assert [(v.name, str(v.path), v.open) for v in found] == [
        ("V2", "/vaults/V2", True),
        ("V1", "/vaults/V1", True),
        ("V0", "/vaults/V0", True),
    ]


def test_mac_and_windows_locations() -> None:
    home = Path("/Users/me")
    assert obsidian_json_locations(home=home, platform="darwin") == [
        home / "Library/Application Support/obsidian/obsidian.json"
    ]
    os.environ.pop("APPDATA", None)
    assert obsidian_json_locations(home=home, platform="win32") == [home / "AppData/Roaming/obsidian/obsidian.json"]


@pytest.mark.parametrize(
    "content", ["", "{", "[]", '{"vaults": []}', '{"vaults": {"x": {"path": 3}}}', '{"vaults": {"x": "y"}}', "\xff"]
)
def test_a_missing_or_broken_obsidian_json_means_no_vaults(tmp_path: Path, content: str) -> None:
    listing = tmp_path / "obsidian.json"
    listing.write_text(content, encoding="latin-1")
    assert discover_vaults([listing, tmp_path / "missing.json"]) == []


def test_a_vault_entry_without_ts_or_open_is_still_offered(tmp_path: Path) -> None:
    listing = tmp_path / "obsidian.json"
    listing.write_text(json.dumps({"vaults": {"a": {"path": "/x/Notes"}}, "frame": "hidden"}), encoding="utf-8")
    (found,) = discover_vaults([listing])
    assert (found.name, found.last_opened_ms, found.open) == ("Notes", None, False)
