"""Notes in the vault's template folder (Obsidian's Templates core plugin, or Templater) are
never memory records nor problems, in any tool or in health; they stay notes a client that
sees the whole vault can read and search."""

from __future__ import annotations

import json
import os
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import SAMPLE_VAULT
from tests.support.posix import make_fifo
from tests.support.vaults import record, snapshot, write_vault
from tests.support.whole_vault import open_view
from vault_recall.app.state.health import check_health
from vault_recall.server.errors import NoteNotFound
from vault_recall.server.recall.answers.backlinks import get_backlinks
from vault_recall.server.recall.answers.changed_since import Handed, changed_since
from vault_recall.server.recall.answers.reading import read_note
from vault_recall.server.recall.answers.recall_records import recall_activity, recall_context
from vault_recall.server.recall.answers.search import search_notes
from vault_recall.server.recall.answers.subjects import list_subjects
from vault_recall.server.recall.scope import Exposure, ExposureMode, Scope
from vault_recall.server.vault.listing import list_notes
from vault_recall.server.vault.settings import MAX_SETTINGS_BYTES, read_template_folders, template_folder

CORE = ".obsidian/templates.json"
TEMPLATER = ".obsidian/plugins/templater-obsidian/data.json"

RECORDS: dict[str, str | bytes] = {
    "Projects/Build decision.md": record("build-system", "# We build with Bazel\n\nBazel, see [[CI cache]]."),
    "Projects/CI cache.md": record("build-system", "# CI cache\n\nA remote cache for Bazel."),
    "Journal/Outage.md": record("build-system", "Bazel outage.", kind="event", date="2026-03-14"),
    "Team/Reviews.md": record("team-practices", "# Reviews\n\nTwo approvals."),
}

TEMPLATES: dict[str, str | bytes] = {
    # The shapes templates take: an empty subject, a filled-in one, placeholders that are no
    # valid record properties, YAML that does not parse, bytes that are not UTF-8.
    "Templates/Decision.md": "---\nsubject:\nstatus: active\n---\n# Decision title\n\nBazel placeholder [[CI cache]]\n",
    "Templates/Filled.md": record("build-system", "# Filled\n\nBazel, a template with a real subject."),
    "Templates/Event.md": "---\nsubject: build-system\nkind: event\ndate: '{{date}}'\n---\nBazel event\n",
    "Templates/Sub/Broken.md": "---\nsubject: [\n---\nBazel broken properties\n",
    "Templates/Latin-1.md": b"---\nsubject: build-system\n---\nBazel caf\xe9\n",
}


def vault_with(tmp_path: Path, settings: dict[str, str]) -> Path:
    root = write_vault(tmp_path / "v", {**RECORDS, **TEMPLATES})
    for path, text in settings.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


def scope(root: Path, mode: ExposureMode = "records") -> Scope:
    return Scope(client="t", vault=root, exposure=Exposure(mode=mode, subjects=frozenset({"build-system"})))


# -- the setting -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "folder"),
    [
        ("Templates", "Templates/"),
        ("/Templates/", "Templates/"),
        (" Meta//Templates/ ", "Meta/Templates/"),
        ("./Meta/Templates", "Meta/Templates/"),
        ("Mode\u0300les", "Mod\u00e8les/"),  # NFD in the setting: compared in NFC
        ("", None),
        ("/", None),  # Templater's unset value: the vault itself is no template folder
        ("../Outside", None),
        (None, None),
        (7, None),
        (["Templates"], None),
    ],
)
def test_a_folder_setting_is_a_vault_folder_or_none(value: object, folder: str | None) -> None:
    assert template_folder(value) == folder


def test_the_core_plugin_and_templater_each_name_a_folder(tmp_path: Path) -> None:
    root = write_vault(tmp_path / "v", {"A.md": "a"})
    assert read_template_folders(root).prefixes == ()
    (root / ".obsidian").mkdir()
    (root / CORE).write_text(json.dumps({"folder": "Templates"}), encoding="utf-8")
    (root / TEMPLATER).parent.mkdir(parents=True)
    (root / TEMPLATER).write_text(json.dumps({"templates_folder": "Meta/Templater", "other": 1}), encoding="utf-8")
    found = read_template_folders(root)
    assert found.prefixes == ("Templates/", "Meta/Templater/")
    assert found.holds("Templates/T.md") and found.holds("Templates/Deep/er/T.md")
    assert found.holds("Meta/Templater/T.md") and found.holds("Templates/")
    assert not found.holds("Templates.md") and not found.holds("TemplatesX/T.md") and not found.holds("Meta/T.md")
    assert not found.holds("templates/T.md")  # names compare as written, as Excluded files do


def test_a_renamed_config_folder_names_it_and_so_does_a_leftover_one(tmp_path: Path) -> None:
    root = write_vault(
        tmp_path / "v",
        {
            ".config/app.json": "{}",
            ".config/templates.json": json.dumps({"folder": "Mine"}),
            ".obsidian/plugins/templater-obsidian/data.json": json.dumps({"templates_folder": "Old"}),
        },
    )
    assert set(read_template_folders(root).prefixes) == {"Mine/", "Old/"}


def test_a_folder_written_decomposed_on_disk_is_the_folder_the_setting_names(tmp_path: Path) -> None:
    nfc, nfd = "Mod\u00e8les", unicodedata.normalize("NFD", "Mod\u00e8les")
    root = vault_with(tmp_path, {CORE: json.dumps({"folder": nfc})})
    os.rename(root / "Templates", root / nfd)  # as macOS may write it
    listing = list_notes(root)
    assert f"{nfd}/Decision.md" in listing.paths
    assert listing.templates.holds(f"{nfd}/Decision.md") and listing.templates.holds(f"{nfc}/Decision.md")
    assert list_subjects(scope(root))["status"] == "ok"


@pytest.mark.parametrize(
    "text",
    ["{", "[]", '"Templates"', json.dumps({"folder": 3}), "[" * 100_000, " " * (MAX_SETTINGS_BYTES + 1) + "{}"],
    ids=["truncated", "list", "text", "not-text", "deep", "oversized"],
)
def test_a_broken_settings_file_names_no_folder(tmp_path: Path, text: str) -> None:
    root = vault_with(tmp_path, {CORE: text})
    assert read_template_folders(root).prefixes == ()
    assert list_subjects(scope(root))["status"] == "degraded"  # the templates are notes like any other


def test_a_settings_file_that_is_a_symlink_or_a_fifo_names_no_folder(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps({"folder": "Templates"}), encoding="utf-8")
    root = vault_with(tmp_path, {})
    (root / ".obsidian").mkdir()
    (root / CORE).symlink_to(elsewhere)
    assert read_template_folders(root).prefixes == ()
    (root / CORE).unlink()
    make_fifo(root / CORE)
    assert read_template_folders(root).prefixes == ()  # and did not block


def test_the_folder_is_read_again_on_every_call(tmp_path: Path) -> None:
    root = vault_with(tmp_path, {})
    assert list_subjects(scope(root))["status"] == "degraded"
    (root / ".obsidian").mkdir()
    (root / CORE).write_text(json.dumps({"folder": "Templates"}), encoding="utf-8")
    assert list_subjects(scope(root))["status"] == "ok"
    (root / CORE).write_text(json.dumps({"folder": "Elsewhere"}), encoding="utf-8")
    assert list_subjects(scope(root))["status"] == "degraded"


# -- the tools -----------------------------------------------------------------------------------


SETTINGS = {
    "core": {CORE: json.dumps({"folder": "Templates"})},
    "templater": {TEMPLATER: json.dumps({"templates_folder": "/Templates/"})},
}


def without_templates(tmp_path: Path) -> Path:
    """The same vault with no template folder at all (same files, same times, same name)."""
    return write_vault(tmp_path / "bare" / "v", RECORDS)


def same_times(root: Path, other: Path) -> None:
    for path in RECORDS:
        stamp = (root / path).stat().st_mtime_ns
        os.utime(other / path, ns=(stamp, stamp))


@pytest.mark.parametrize("setting", sorted(SETTINGS))
@pytest.mark.parametrize("mode", ["records", "subjects", "vault"])
def test_recall_and_subjects_answer_as_if_the_templates_were_not_there(
    tmp_path: Path, setting: str, mode: ExposureMode
) -> None:
    root = vault_with(tmp_path, SETTINGS[setting])
    bare = without_templates(tmp_path)
    same_times(root, bare)

    def answers(vault: Path) -> list[Mapping[str, Any]]:
        s = scope(vault, mode)
        return [
            list_subjects(s),
            recall_context(s, "build-system", "bazel", budget=512, limit=20, match="any"),
            recall_context(s, "build-system", "bazel decision"),
            recall_activity(s, "build-system"),
            recall_activity(s, "build-system", query="bazel", budget=512),
        ]

    with_templates = answers(root)
    assert all(answer["status"] == "ok" and not answer.get("problems") for answer in with_templates)
    # Not one byte more: no problem named, no record of a template counted or returned.
    assert with_templates == answers(bare)
    assert with_templates[0]["subjects"][0]["active"] == 2


def test_a_client_that_sees_the_whole_vault_reads_and_searches_templates(tmp_path: Path) -> None:
    root = vault_with(tmp_path, SETTINGS["core"])
    everything = scope(root, "vault")
    read = read_note(everything, "Templates/Decision")
    assert read["status"] == "ok" and "problems" not in read
    assert read["properties"] == {"subject": None, "status": "active"} and read["text"].startswith("# Decision title")
    broken = read_note(everything, "Templates/Sub/Broken")  # shown as Obsidian shows it, no problem named
    assert broken["status"] == "ok" and broken["text"] == "Bazel broken properties\n"
    assert read_note(everything, "Latin-1")["status"] == "ok"
    found = search_notes(everything, "bazel", limit=100)
    assert found["status"] == "ok" and "problems" not in found
    assert {hit["path"] for hit in found["records"]} >= {f for f in TEMPLATES}
    linked = get_backlinks(everything, "CI cache")
    assert {hit["path"] for hit in linked["records"]} == {"Projects/Build decision.md", "Templates/Decision.md"}
    assert linked["status"] == "ok" and not linked.get("problems")
    assert set(open_view(everything).visible) >= set(TEMPLATES)


@pytest.mark.parametrize("mode", ["records", "subjects"])
def test_for_a_client_that_sees_records_a_template_is_no_record(tmp_path: Path, mode: ExposureMode) -> None:
    root = vault_with(tmp_path, SETTINGS["core"])
    records = scope(root, mode)
    for template in ("Templates/Decision", "Templates/Filled", "Templates/Sub/Broken", "Filled"):
        with pytest.raises(NoteNotFound):
            read_note(records, template)
    found = search_notes(records, "bazel", limit=100)
    assert found["status"] == "ok" and not any(hit["path"].startswith("Templates/") for hit in found["records"])
    assert search_notes(records, "bazel", limit=100, subject="build-system") == {**found, "subject": "build-system"}
    linked = get_backlinks(records, "CI cache")
    assert [hit["path"] for hit in linked["records"]] == ["Projects/Build decision.md"] and linked["status"] == "ok"


def test_health_names_no_template_and_counts_them_as_notes(tmp_path: Path) -> None:
    root = vault_with(tmp_path, SETTINGS["templater"])
    report = check_health(root)
    assert report.status == "ok" and report.problems == ()
    assert (report.notes, report.records) == (len(RECORDS) + len(TEMPLATES), len(RECORDS))
    assert report.summary() == f"v — {len(RECORDS) + len(TEMPLATES)} notes, {len(RECORDS)} records, no problems"
    (root / TEMPLATER).unlink()
    assert {p["path"] for p in check_health(root).problems} == {
        "Templates/Decision.md",
        "Templates/Event.md",
        "Templates/Sub/Broken.md",
        "Templates/Latin-1.md",
    }


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads folders whatever their mode")
def test_a_template_folder_that_cannot_be_read_is_no_problem(tmp_path: Path) -> None:
    root = vault_with(tmp_path, SETTINGS["core"])
    (root / "Templates/Sub").chmod(0)
    (root / "Templates/Decision.md").chmod(0)
    try:
        assert list_notes(root).unreadable_folders == ()
        assert check_health(root).status == "ok"
        assert search_notes(scope(root, "vault"), "bazel", limit=100)["status"] == "ok"
    finally:
        (root / "Templates/Sub").chmod(0o755)
        (root / "Templates/Decision.md").chmod(0o644)


def test_a_note_handed_out_is_told_as_the_template_folder_now_sees_it(tmp_path: Path) -> None:
    root = vault_with(tmp_path, SETTINGS["core"])
    whole, records = scope(root, "vault"), scope(root, "records")
    template = read_note(whole, "Templates/Decision")
    decision = recall_context(records, "build-system", "bazel decision")["records"][0]
    handed_template = Handed(root, template["path"], template["revision"])
    handed_record = Handed(root, decision["path"], decision["revision"])
    assert changed_since(whole, [handed_template]) == []
    assert changed_since(records, [handed_record]) == []
    (root / "Templates/Decision.md").write_text("---\nsubject:\n---\n# Decision title\n\nedited\n", encoding="utf-8")
    [edited] = changed_since(whole, [handed_template])
    assert edited.now is not None and edited.now != template["revision"]
    # The person makes the record's folder a template folder: no longer a record for this client.
    (root / CORE).write_text(json.dumps({"folder": "Projects"}), encoding="utf-8")
    [gone] = changed_since(records, [handed_record])
    assert gone.now is None
    assert changed_since(whole, [Handed(root, decision["path"], decision["revision"])]) == []


def test_the_sample_vault_names_its_template_folder() -> None:
    assert json.loads((SAMPLE_VAULT / CORE).read_text(encoding="utf-8")) == {"folder": "Templates"}
    listing = list_notes(SAMPLE_VAULT)
    assert listing.templates.prefixes == ("Templates/",)
    assert not any(path.startswith("Templates/") for path in listing.paths)  # still excluded too


def test_nothing_in_the_vault_is_written(tmp_path: Path) -> None:
    root = vault_with(tmp_path, SETTINGS["core"])
    before = snapshot(root)
    for mode in ("records", "vault"):
        list_subjects(scope(root, mode))
        search_notes(scope(root, mode), "bazel")
    check_health(root)
    assert snapshot(root) == before
