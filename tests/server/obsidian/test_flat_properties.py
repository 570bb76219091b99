"""The flat reading of properties must give exactly what YAML gives, or step aside (None)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given

from tests.support.paths import SAMPLE_VAULT
from tests.support.synthetic_vault import generate
from tests.support.yaml_blocks import LEFT, NAMES, TAKEN, blocks, exact, yaml_reading
from vault_recall.server.errors import PropertiesError
from vault_recall.server.obsidian.flat_properties import read_flat_properties
from vault_recall.server.obsidian.properties import parse_properties, parse_yaml_properties, split_properties


@given(blocks())
def test_the_flat_reading_agrees_with_yaml_or_steps_aside(text: str) -> None:
    flat = read_flat_properties(text)
    if flat is not None:
        assert exact(flat) == yaml_reading(text), text


def test_every_piece_in_every_place_reads_as_yaml_reads_it() -> None:
    # Exhaustive over the pieces (the random blocks above combine them): each value as a
    # scalar, in a flow list, in a block list; each name with a plain value.
    checked = 0
    for value in TAKEN + LEFT:
        for text in (f"\nk: {value}\n", f"\nk: [x, {value}]\n", f"\nk: [{value}]\n", f"\nk:\n  - {value}\n"):
            flat = read_flat_properties(text)
            if flat is not None:
                checked += 1
                assert exact(flat) == yaml_reading(text), text
    for name in NAMES:
        flat = read_flat_properties(f"\n{name}: x\n")
        if flat is not None:
            checked += 1
            assert exact(flat) == yaml_reading(f"\n{name}: x\n"), name
    assert checked > 3 * len(TAKEN)  # most of the taken pieces were read flat, in every place


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\nsubject: build-system\n", {"subject": "build-system"}),
        ("\ntags:\n  - cache\n  - ci\n", {"tags": ["cache", "ci"]}),
        ("\ntags:\n- cache\n", {"tags": ["cache"]}),
        ('\naliases: [Bazel cache, "x, y"]\n', {"aliases": ["Bazel cache", "x, y"]}),
        (
            "\ndate: 2026-03-01\nstatus: archived\npriority: 2\n",
            {"date": "2026-03-01", "status": "archived", "priority": 2},
        ),
        ("\ndone: yes\nnote:\n", {"done": "yes", "note": None}),  # YAML 1.2: 'yes' is text
        ("\ndone: true\nYes: on\n", {"done": True, "Yes": "on"}),
        # As templates leave them: empty items, and '@' within a value.
        (
            "\naliases:\n  -\ntags:\n- \n- x\nby: Ann @ Lab\n",
            {"aliases": [None], "tags": [None, "x"], "by": "Ann @ Lab"},
        ),
        ("\n", {}),
    ],
)
def test_common_blocks_are_read_flat(text: str, expected: dict[str, object]) -> None:
    assert read_flat_properties(text) == expected
    assert exact(read_flat_properties(text)) == exact(parse_yaml_properties(text))


@pytest.mark.parametrize(
    "text",
    [
        "\nsubject: a\nsubject: b\n",  # duplicate: YAML's error names the line
        "\nsubject: hiring # a comment\n",
        "\nn: 012\n",  # twelve in YAML 1.2 (octal in 1.1): not a value read flat
        "\nt: 2026-03-01T10:00:00\n",
        '\na: "caf\\u00e9"\n',
        "\nmeta:\n  subject: x\n",
        "\ntags:\n  - a\n - b\n",
        "\nx: [a, b,]\n",
        "\nx:\ty\n",
        "\n" + "k" * 1025 + ": x\n",  # YAML refuses names over 1024 characters
    ],
)
def test_anything_less_plain_is_left_to_yaml(text: str) -> None:
    assert read_flat_properties(text) is None


def _blocks_of(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        try:
            split = split_properties(text)
        except PropertiesError:
            continue
        if split.yaml_text is not None:
            found.append(split.yaml_text)
    return found


def test_the_sample_and_generated_vaults_read_the_same_both_ways(tmp_path: Path) -> None:
    generate(tmp_path / "v", 300, seed=11)
    texts = _blocks_of(SAMPLE_VAULT) + _blocks_of(tmp_path / "v")
    flat = 0
    for text in texts:
        reading = read_flat_properties(text)
        if reading is not None:
            flat += 1
            assert exact(reading) == yaml_reading(text)
        assert exact(parse_properties(text)) == yaml_reading(text)
    # The generated vault writes properties the way Obsidian does: all of them are flat.
    assert flat >= len(texts) - 2
