"""The public real vaults of the recall evaluation (tests/support/public_vaults.py): each
questions file is well formed without needing its vault, the loader materialises exactly the
pinned notes from a small real git repository, and the BM25 baseline keeps to its scope.
Figures over the public vaults are never computed here."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support import public_vaults as pv
from tests.support.recall_eval import ANSWERABLE, STYLES, english_stemmer, stable_mtime_ns

NAMES = pv.public_vault_names()
SPECS = {name: pv.load_public_vault(name) for name in NAMES}
MINIMUM_PER_STYLE = {"keywords": 20, "question": 20, "paraphrase": 20, "distinctive": 10, "no_answer": 15}
MINIMUM_QUESTIONS = 120


def test_there_is_at_least_one_public_vault_and_each_file_holds_exactly_the_known_fields() -> None:
    assert NAMES
    top = {"name", "repository", "commit", "commit_date", "vault", "description", "questions_written"}
    top |= {"notes", "folders", "questions"}
    for name in NAMES:
        raw = json.loads((pv.PUBLIC_ROOT / f"{name}.json").read_text(encoding="utf-8"))
        assert set(raw) == top, name
        assert all(set(q) == {"id", "style", "query", "expected", "folder", "lang"} for q in raw["questions"]), name
        assert all(set(f) == {"folder", "subject", "notes"} for f in raw["folders"]), name


@pytest.mark.parametrize("name", NAMES)
def test_a_public_vault_is_pinned_to_one_commit_of_a_public_repository(name: str) -> None:
    spec = SPECS[name]
    assert spec.name == name
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", spec.repository)
    assert re.fullmatch(r"[0-9a-f]{40}", spec.commit)
    assert not spec.vault.startswith("/") and not spec.vault.endswith("/") and ".." not in spec.vault.split("/")
    assert spec.description.strip() and spec.questions_written.strip()
    assert spec.notes >= sum(f.notes for f in spec.folders) > 0


@pytest.mark.parametrize("name", NAMES)
def test_question_ids_are_unique_and_every_style_is_asked_often_enough(name: str) -> None:
    questions = SPECS[name].questions
    assert [i for i, n in Counter(q.id for q in questions).items() if n > 1] == []
    assert [q.id for q in questions if q.style not in STYLES or not q.query.strip() or not q.lang] == []
    counts = Counter(q.style for q in questions)
    assert {s: counts[s] for s, n in MINIMUM_PER_STYLE.items() if counts[s] < n} == {}
    assert len(questions) >= MINIMUM_QUESTIONS
    assert len({q.query.casefold() for q in questions}) == len(questions)


@pytest.mark.parametrize("name", NAMES)
def test_every_expected_path_has_the_vaults_note_path_form(name: str) -> None:
    wrong = [
        (q.id, path)
        for q in SPECS[name].questions
        for path in q.expected
        if not path.endswith(".md")
        or path.startswith("/")
        or "\\" in path
        or any(part in ("", ".", "..") or part.startswith(".") for part in path.split("/"))
        or path != path.strip()
    ]
    assert wrong == []


@pytest.mark.parametrize("name", NAMES)
def test_no_answer_questions_expect_nothing_and_the_others_expect_distinct_notes(name: str) -> None:
    questions = SPECS[name].questions
    assert [q.id for q in questions if (q.style == "no_answer") != (q.expected == ())] == []
    assert [q.id for q in questions if len(set(q.expected)) != len(q.expected)] == []
    assert {q.style for q in questions if q.expected} <= set(ANSWERABLE)


@pytest.mark.parametrize("name", NAMES)
def test_every_question_asks_in_a_top_level_folder_that_holds_one_of_its_answers(name: str) -> None:
    spec = SPECS[name]
    folders = {f.folder for f in spec.folders}
    assert [q.id for q in spec.questions if q.folder not in folders] == []
    assert [q.id for q in spec.questions if q.expected and q.folder not in {pv.top_folder(p) for p in q.expected}] == []


@pytest.mark.parametrize("name", NAMES)
def test_each_top_level_folder_has_its_own_subject_slug(name: str) -> None:
    folders = SPECS[name].folders
    assert [f.folder for f in folders if f.subject != pv.folder_slug(f.folder) or not f.subject] == []
    assert len({f.subject for f in folders}) == len(folders)
    assert all(f.notes > 0 and "/" not in f.folder for f in folders)


def test_a_folder_slug_is_lower_case_with_one_dash_for_each_run_of_other_characters() -> None:
    assert pv.folder_slug("02 - Community Expansions") == "02-community-expansions"
    assert pv.folder_slug("Obsidian Web Clipper") == "obsidian-web-clipper"
    assert pv.folder_slug("Guides, Workflows, & Courses") == "guides-workflows-courses"


# --- the loader, over a small real repository ---------------------------------------------------


def git(where: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(where), *args], capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def repository(tmp_path: Path) -> tuple[Path, str]:
    """A clone with two commits; the first holds the vault under docs/ that the spec pins."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "eval@example.invalid")
    git(repo, "config", "user.name", "eval")
    files = {
        "docs/Garden/Tomatoes.md": "---\naliases: [Love apples]\n---\nTomatoes want full sun and deep watering.\n",
        "docs/Garden/Compost.md": "Turn the compost heap every week.\n",
        "docs/Kitchen/Sauce.md": "A tomato sauce simmers for an hour.\n",
        "docs/Kitchen/photo.png": "not a note\n",
        "docs/.obsidian/app.json": "{}\n",
        "docs/.trash/Old.md": "deleted tomato note\n",
        "docs/Home.md": "Start here.\n",
        "README.md": "The repository, not the vault.\n",
    }
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "vault")
    pinned = git(repo, "rev-parse", "HEAD")
    (repo / "docs/Garden/Later.md").write_text("Added after the pinned commit.\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "later")
    return repo, pinned


def spec_for(commit: str, vault: str = "docs") -> pv.PublicVault:
    question = pv.PublicQuestion("t-kw-1", "keywords", "tomato sun", ("Garden/Tomatoes.md",), "Garden", "en")
    folders = (pv.FolderSubject("Garden", "garden", 2), pv.FolderSubject("Kitchen", "kitchen", 1))
    return pv.PublicVault("tiny", "https://github.com/example/tiny", commit, vault, "d", "w", 4, folders, (question,))


def test_the_pinned_commit_gives_the_vaults_notes_and_settings_and_nothing_else(repository: tuple[Path, str]) -> None:
    repo, pinned = repository
    with pv.materialised_vault(spec_for(pinned), repo) as vault:
        written = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*") if p.is_file())
        assert written == [
            ".obsidian/app.json",
            "Garden/Compost.md",
            "Garden/Tomatoes.md",
            "Home.md",
            "Kitchen/Sauce.md",
        ]
        assert (vault / "Garden/Tomatoes.md").read_text(encoding="utf-8").startswith("---\naliases: [Love apples]")
        assert [p for p in written if os.stat(vault / p).st_mtime_ns != stable_mtime_ns(p)] == []
        assert pv.missing_expected(spec_for(pinned), vault) == []
    assert not vault.exists()


def contents(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_a_bare_git_directory_gives_the_same_vault_as_a_clone(repository: tuple[Path, str], tmp_path: Path) -> None:
    repo, pinned = repository
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(bare)], check=True)
    with pv.materialised_vault(spec_for(pinned), repo) as a, pv.materialised_vault(spec_for(pinned), bare) as b:
        assert contents(a) == contents(b) and contents(a)


def test_a_vault_at_the_repositorys_root_keeps_hidden_folders_out(repository: tuple[Path, str]) -> None:
    repo, pinned = repository
    with pv.materialised_vault(spec_for(pinned, vault=""), repo) as vault:
        written = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*") if p.is_file())
    assert "README.md" in written and "docs/Home.md" in written
    assert [p for p in written if "/." in f"/{p}"] == []


def test_a_source_without_the_pinned_commit_is_told_how_to_fetch_it(repository: tuple[Path, str]) -> None:
    repo, _ = repository
    absent = "0123456789abcdef0123456789abcdef01234567"
    with pytest.raises(pv.SourceError) as raised:
        pv.vault_files(spec_for(absent), repo)
    message = str(raised.value)
    assert absent in message and "fetch" in message and "\n" not in message


def test_expected_notes_the_vault_lacks_are_listed(repository: tuple[Path, str]) -> None:
    repo, pinned = repository
    spec = spec_for(pinned)
    later = pv.PublicQuestion("t-q-1", "question", "later?", ("Garden/Later.md",), "Garden", "en")
    wrong = replace(spec, questions=(later,))
    with pv.materialised_vault(wrong, repo) as vault:
        assert pv.missing_expected(wrong, vault) == [("t-q-1", "Garden/Later.md")]


# --- the BM25+stem baseline ---------------------------------------------------------------------


def test_bm25_over_a_folder_ranks_only_that_folders_notes(repository: tuple[Path, str]) -> None:
    repo, pinned = repository
    method = pv.bm25_over_notes(english_stemmer())
    with pv.materialised_vault(spec_for(pinned), repo) as vault:
        everywhere = method(vault, None, "tomatoes").paths
        in_kitchen = method(vault, "Kitchen", "tomatoes").paths
        assert set(everywhere) == {"Garden/Tomatoes.md", "Kitchen/Sauce.md"}  # the stemmer joins tomato/tomatoes
        assert in_kitchen == ("Kitchen/Sauce.md",)
        assert method(vault, None, "love apples").paths == ("Garden/Tomatoes.md",)  # aliases are read
        assert method(vault, "Garden", "nothing holds this").paths == ()


def test_every_question_is_scored_over_the_whole_vault_and_within_its_folder(repository: tuple[Path, str]) -> None:
    repo, pinned = repository
    spec = spec_for(pinned)
    with pv.materialised_vault(spec, repo) as vault:
        outcomes = pv.evaluate_public(spec, vault)
    assert sorted((o.question_id, o.scope) for o in outcomes) == [("t-kw-1", "folder"), ("t-kw-1", "vault")]
    assert all(o.hit_at_3 and o.hit_at_1 for o in outcomes)
    assert pv.hit_rates(outcomes, "BM25+stem", "folder")["keywords"] == 1.0
    assert pv.hit_rates(outcomes, "BM25+stem", "vault")["question"] is None


# --- Vault Recall and search over a public vault ------------------------------------------------


def test_folder_rules_give_each_top_level_folder_its_subject(repository: tuple[Path, str]) -> None:
    rules = pv.folder_rules(spec_for(repository[1]))
    assert [(r.subject, r.folder) for r in rules.rules] == [("garden", "Garden"), ("kitchen", "Kitchen")]


def test_ours_within_a_folder_answers_from_that_folders_notes_only(repository: tuple[Path, str]) -> None:
    repo, pinned = repository
    spec = spec_for(pinned)
    method = pv.ours_over_notes(spec)
    with pv.materialised_vault(spec, repo) as vault:
        everywhere = method(vault, None, "tomato")
        in_kitchen = method(vault, "Kitchen", "tomato")
        in_garden = method(vault, "Garden", "compost heap")
    assert everywhere.error is None and set(everywhere.paths) == {"Garden/Tomatoes.md", "Kitchen/Sauce.md"}
    assert in_kitchen.paths == ("Kitchen/Sauce.md",)
    assert in_garden.paths[:1] == ("Garden/Compost.md",) and in_garden.weak[:1] == (False,)


def test_search_asks_the_whole_question_then_each_meaningful_word(repository: tuple[Path, str]) -> None:
    repo, pinned = repository
    spec = spec_for(pinned)
    method = pv.search_over_notes(spec)
    with pv.materialised_vault(spec, repo) as vault:
        # No line holds the whole question; "sun" and "heap" each find one note, "the" is not asked.
        assert set(method(vault, None, "the sun and the heap").paths) == {"Garden/Tomatoes.md", "Garden/Compost.md"}
        assert method(vault, "Kitchen", "the sun and the heap").paths == ()
        assert method(vault, "Kitchen", "tomato sauce").paths == ("Kitchen/Sauce.md",)


def test_public_figures_count_hits_and_the_answers_to_no_answer_questions() -> None:
    def outcome(style: str, paths: tuple[str, ...], weak: bool, hit: bool | None) -> pv.PublicOutcome:
        return pv.PublicOutcome("q", "m", "vault", style, paths, tuple(weak for _ in paths), None, hit, hit)

    outcomes = [
        outcome("keywords", ("a.md",), False, True),
        outcome("keywords", ("b.md",), True, False),
        outcome("no_answer", (), False, None),
        outcome("no_answer", ("c.md",), True, None),
        outcome("no_answer", ("c.md",), False, None),
        outcome("no_answer", ("c.md",), False, None),
    ]
    figures = pv.public_figures(outcomes, "m", "vault")
    assert figures["keywords hit@1"] == figures["keywords hit@3"] == 0.5
    assert figures["question hit@3"] is None
    assert figures["answerable weak"] == 0.5 and figures["answerable empty"] == 0.0
    assert (figures["no_answer empty"], figures["no_answer weak"], figures["no_answer confident"]) == (0.25, 0.25, 0.5)
    assert pv.public_figures(outcomes, "m", "folder")["keywords hit@3"] is None
    # The weak mark's calibration: the unmarked answer is a hit, the marked one a miss, and the
    # no-answer questions count in neither.
    assert (figures["unmarked hit@3"], figures["marked hit@3"]) == (1.0, 0.0)
    marked_hit = [*outcomes, outcome("question", ("d.md",), True, True)]
    assert pv.public_figures(marked_hit, "m", "vault")["marked hit@3"] == 0.5


def test_a_source_is_found_as_a_clone_a_bare_clone_or_a_mirror(repository: tuple[Path, str], tmp_path: Path) -> None:
    repo, pinned = repository
    spec = spec_for(pinned)  # https://github.com/example/tiny
    places = tmp_path / "places"
    places.mkdir()
    assert pv.find_source(spec, [places]) is None
    (places / "example+tiny").mkdir()
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(places / "example+tiny" / "repo")], check=True)
    assert pv.find_source(spec, [places]) == places / "example+tiny" / "repo"
    subprocess.run(["git", "clone", "-q", str(repo), str(places / "tiny")], check=True)
    assert pv.find_source(spec, [places]) == places / "tiny"
    assert pv.find_source(replace(spec, commit="0123456789abcdef0123456789abcdef01234567"), [places]) is None
