"""A deterministic synthetic Obsidian vault of any size, for benchmarks and tests.

Same `n` and `seed`, same bytes: realistic note sizes (a few hundred bytes to a few KiB),
nested folders, properties with a mix of subjects, archived and event records, notes without
properties, wikilinks and tags; a few invalid notes when asked.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass
from pathlib import Path

SUBJECTS = (
    "build-system",
    "release-process",
    "team-practices",
    "hiring",
    "security",
    "observability",
    "frontend",
    "data-platform",
    "billing",
    "mobile",
)
WORDS = tuple(
    " ".join(
        (
            "cache deploy bazel release review latency budget incident rollback schema migration token queue",
            "python rust kubernetes terraform dashboard alert oncall retro roadmap design api gateway auth",
            "storage backup index search vault decision policy owner service cluster region network proxy",
            "metric trace log error retry timeout window staging canary feature flag experiment cohort invoice",
            "refund tax ledger report export import sync offline cursor mobile android ios widget",
        )
    ).split()
)
# Bumped whenever what `generate` writes changes, so saved benchmark vaults are made anew.
GENERATOR_VERSION = 2
FOLDERS = ("Projects", "Areas", "Resources", "Archive", "Journal", "Team", "Inbox")


@dataclass(frozen=True)
class SyntheticVault:
    root: Path
    notes: int
    bytes: int
    records: int


def _paragraph(rng: random.Random, sentences: int) -> str:
    out = []
    for _ in range(sentences):
        words = [rng.choice(WORDS) for _ in range(rng.randint(6, 16))]
        out.append(" ".join(words).capitalize() + ".")
    return " ".join(out)


def generate(root: Path, n: int, seed: int = 7, invalid: int = 0) -> SyntheticVault:
    """Write `n` notes under `root` (which must not exist yet or be empty)."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    (root / ".obsidian").mkdir(exist_ok=True)
    (root / ".obsidian/app.json").write_text(json.dumps({"userIgnoreFilters": ["Templates/"]}), encoding="utf-8")
    titles: list[str] = []
    total = 0
    records = 0
    for index in range(n):
        # About 2% as many folders as notes, up to three deep, as in vaults people keep.
        folder = Path(rng.choice(FOLDERS)) / f"Area {rng.randrange(max(1, n // 700)):02}"
        if rng.random() < 0.3:
            folder = folder / f"Topic {rng.randrange(5)}"
        title = f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} {index:06}"
        titles.append(title)
        body_parts = [f"# {title}", ""]
        # Paragraphs per note: most notes are short, a few run long (about 4 KiB on average,
        # the 10,000 notes / 42 MB vault the speed figures of issue 7 were taken on).
        for _ in range(min(60, int(rng.lognormvariate(2.2, 0.8))) + 1):
            body_parts += [_paragraph(rng, rng.randint(2, 6)), ""]
        if titles and rng.random() < 0.6:
            body_parts.append(f"See [[{rng.choice(titles)}]] and #{rng.choice(WORDS)}.")
        body = "\n".join(body_parts) + "\n"
        kind = rng.random()
        if kind < 0.25:
            properties = ""  # a plain note
        else:
            subjects = rng.sample(SUBJECTS, 2 if rng.random() < 0.1 else 1)
            subject = subjects[0] if len(subjects) == 1 else "[" + ", ".join(subjects) + "]"
            lines = [f"subject: {subject}", f"tags: [{rng.choice(WORDS)}, {rng.choice(WORDS)}]"]
            if rng.random() < 0.1:
                lines.append("status: archived")
            if rng.random() < 0.15:
                lines += ["kind: event", f"date: 2026-{rng.randint(1, 12):02}-{rng.randint(1, 28):02}"]
            if rng.random() < 0.3:
                lines.append(f"aliases: [{rng.choice(WORDS).capitalize()} note {index}]")
            properties = "---\n" + "\n".join(lines) + "\n---\n"
            records += 1
        if index < invalid:
            properties = "---\nsubject: build-system\nsubject: build-system\n---\n"
        text = properties + body
        path = root / folder / f"{title}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        path.write_bytes(data)
        # Fixed times, so two generations are identical to the byte and to the second.
        stamp = 1_767_225_600 + index * 60
        os.utime(path, (stamp, stamp))
        total += len(data)
    return SyntheticVault(root=root, notes=n, bytes=total, records=records - min(invalid, records))
