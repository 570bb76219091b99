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
        # the 10,000 notes / 42 MB vault of docs/benchmarks.md).
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


# A vault kept for years looks different from the uniform one above: long notes and clippings,
# many links (a few notes linked from everywhere), embedded attachments beside the notes,
# folders six deep, text that is not ASCII, Windows line endings, a trash and plugin folders.
REAL_TOPS = ("Projects", "Areas", "Resources", "Journal", "People", "Meetings", "Zettelkasten", "Clippings")
REAL_WORDS = (*WORDS, "Überblick", "café", "naïve", "résumé", "東京", "Ωmega", "straße", "señal", "français")
REAL_GENERATOR_VERSION = 1


def _real_title(rng: random.Random, index: int) -> str:
    shape = rng.random()
    words = [rng.choice(REAL_WORDS) for _ in range(rng.randint(1, 4))]
    if shape < 0.1:
        return f"2025-{rng.randint(1, 12):02}-{rng.randint(1, 28):02} {index:05}"  # a daily note
    if shape < 0.2:
        return f"{' '.join(words).title()} (draft) {index:05}"
    return f"{' '.join(words).capitalize()} {index:05}"


def _real_body(rng: random.Random, title: str, titles: list[str], attachments: list[str]) -> str:
    parts = [f"# {title}", ""]
    clipping = rng.random() < 0.03
    sections = rng.randint(80, 300) if clipping else min(60, int(rng.lognormvariate(2.4, 0.8)) + 1)
    for number in range(sections):
        kind = rng.random()
        if kind < 0.15:
            parts += [f"## {rng.choice(REAL_WORDS).capitalize()} {number}", ""]
        if kind < 0.55:
            parts += [_paragraph(rng, rng.randint(2, 9)).replace(" the ", " — the "), ""]
        elif kind < 0.75:
            parts += [f"- [{' x'[rng.random() < 0.5]}] {_paragraph(rng, 1)}" for _ in range(rng.randint(2, 6))] + [""]
        elif kind < 0.85:
            parts += ["```python", f"def f_{number}(x):", "    return x  # [[not a link]] #not-a-tag", "```", ""]
        elif kind < 0.92:
            parts += ["> [!note] " + _paragraph(rng, 1), "> " + _paragraph(rng, 2), ""]
        else:
            parts += ["| a | b |", "|---|---|", f"| {rng.choice(WORDS)} | {rng.randint(1, 99)} |", ""]
        if titles and rng.random() < 0.7:
            # A few notes are linked from everywhere (hubs); most links go to recent notes.
            hub = rng.random() < 0.3
            linked = titles[rng.randrange(min(20, len(titles)))] if hub else rng.choice(titles)
            style = rng.random()
            if style < 0.6:
                parts.append(f"See [[{linked}]] and #{rng.choice(WORDS)}/{rng.choice(WORDS)}.")
            elif style < 0.75:
                parts.append(f"As in [[{linked}|that note]] or [[{linked}#Notes]].")
            else:
                parts.append(f"Also [this]({linked.replace(' ', '%20')}.md).")
        if attachments and rng.random() < 0.08:
            parts.append(f"![[{rng.choice(attachments)}]]")
    return "\n".join(parts) + "\n"


def generate_realistic(root: Path, n: int, seed: int = 13) -> SyntheticVault:
    """Write a vault of `n` notes shaped like a real one kept for years (see REAL_TOPS)."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    (root / ".obsidian/plugins/dataview").mkdir(parents=True, exist_ok=True)
    (root / ".obsidian/plugins/dataview/data.json").write_text("{}", encoding="utf-8")
    (root / ".obsidian/app.json").write_text(
        json.dumps({"userIgnoreFilters": ["Templates/", "Clippings/Old/"]}), encoding="utf-8"
    )
    (root / ".trash").mkdir(exist_ok=True)
    (root / ".trash/Deleted note.md").write_text("# Deleted\n\ncache [[Deleted]]\n", encoding="utf-8")
    folders = [Path(top) for top in REAL_TOPS]
    for _ in range(max(8, n // 15)):  # about 15 notes a folder, down to six deep
        parent = rng.choice(folders)
        if len(parent.parts) < 6:
            folders.append(parent / f"{rng.choice(REAL_WORDS).capitalize()} {rng.randrange(100)}")
    attachments: list[str] = []
    total = 0
    records = 0
    titles: list[str] = []
    for index in range(n):
        folder = rng.choice(folders)
        if rng.random() < 0.25:  # attachments live beside the notes that embed them
            name = f"Pasted image {index:05}.{rng.choice(('png', 'jpg', 'pdf'))}"
            (root / folder).mkdir(parents=True, exist_ok=True)
            (root / folder / name).write_bytes(b"\x89PNG\r\n\x1a\n\0\0" + rng.randbytes(rng.randint(2_000, 40_000)))
            attachments.append(name)
        title = _real_title(rng, index)
        body = _real_body(rng, title, titles, attachments)
        titles.append(title)
        lines = [f"created: 2025-{rng.randint(1, 12):02}-{rng.randint(1, 28):02}"]
        if rng.random() < 0.5:
            lines.append(f"tags: [{rng.choice(WORDS)}, {rng.choice(WORDS)}/{rng.choice(WORDS)}]")
        if rng.random() < 0.2:
            lines.append(f"aliases:\n  - {rng.choice(REAL_WORDS).capitalize()} {index}")
        if rng.random() < 0.25:
            lines.append(f"subject: {rng.choice(SUBJECTS)}")
            if rng.random() < 0.15:
                lines += ["kind: event", f"date: 2026-{rng.randint(1, 12):02}-{rng.randint(1, 28):02}"]
            records += 1
        if rng.random() < 0.1:
            lines.append(f'related: "[[{rng.choice(titles)}]]"')
        text = ("---\n" + "\n".join(lines) + "\n---\n" if rng.random() < 0.85 else "") + body
        if rng.random() < 0.1:
            text = text.replace("\n", "\r\n")  # written on Windows
        data = text.encode("utf-8")
        path = root / folder / f"{title}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        stamp = 1_767_225_600 + index * 60
        os.utime(path, (stamp, stamp))
        total += len(data)
    return SyntheticVault(root=root, notes=n, bytes=total, records=records)
