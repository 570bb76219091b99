"""Measure how closely Vault Recall reads real vaults the way Obsidian does, against an
independent reading of Obsidian's rules.  Nothing is asserted; nothing of the
vaults is kept.

    .venv/bin/pip install markdown-it-py     # the reference's Markdown parser (not a dependency)
    .venv/bin/python -m bench.obsidian_fidelity VAULT [VAULT …] [--json out.json]

Per vault it prints:
- notes called invalid, split into those the reference reads too (ruamel.yaml's YAML 1.2
  composer finds their properties fine: we are wrong, goal 0) and those it cannot read;
- backlinks: every (linking note, line) → target our get_backlinks gives, against the
  reference's links (markdown-it-py's code blocks and spans, a plain wikilink / markdown-link
  pattern, property values, and Obsidian's resolution rule as tests/support/obsidian_links.py
  states it), for the most linked notes (`--top`) and a sample of the rest (`--sample`), with the disagreements;
- headings: how many we list, how many markdown-it-py finds outside code, and how many are
  written with inline code.
The notes read are the listing's (hidden and Excluded files out) for both readings; links
resolve among those and the paths of the notes Excluded files hide, as Obsidian indexes them.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import warnings
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from markdown_it import MarkdownIt
from ruamel.yaml import YAML

from tests.support.obsidian_links import obsidian_link_target
from vault_recall.server.obsidian.note import decode_note_text
from vault_recall.server.recall.answers import backlinks
from vault_recall.server.recall.finding.scan import each_note
from vault_recall.server.recall.scope import Exposure, Scope
from vault_recall.server.vault.listing import excluded_notes, list_notes

_WIKI = re.compile(r"!?\[\[([^\[\]\n]+?)\]\]")
_MARKDOWN = re.compile(r"!?\[[^\[\]\n]*\]\(\s*(<[^<>\n]+>|[^()\s]+(?:\([^()\s]*\))?[^()\s]*)(?:\s+\"[^\"\n]*\")?\s*\)")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_MD = MarkdownIt("commonmark")


def reference_split(text: str) -> tuple[str | None, list[str], int]:
    """(properties text, body lines, file line of the body's first line)."""
    lines = text.split("\n")
    if lines and lines[0].rstrip(" \t") == "---":
        for number in range(1, len(lines)):
            if lines[number].rstrip(" \t") == "---":
                return "\n".join(lines[1:number]), lines[number + 1 :], number + 2
    return None, lines, 1


def reference_reads_properties(block: str) -> bool:
    yaml = YAML(typ="safe", pure=True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            node = yaml.compose(block)
    except Exception:
        return "\t" in block  # ruamel refuses some tabs YAML 1.2 allows: undecided, counted as read
    if node is None:
        return True
    names = [key.value for key, _ in getattr(node, "value", []) if hasattr(key, "value")]
    return isinstance(node.value, list) and len(names) == len(set(map(str, names)))


def code_lines(body_lines: list[str]) -> set[int]:
    """0-based body lines inside fenced or indented code blocks, by markdown-it-py."""
    lines: set[int] = set()
    for token in _MD.parse("\n".join(body_lines)):
        if token.type in ("fence", "code_block") and token.map:
            lines.update(range(token.map[0], token.map[1]))
    return lines


def reference_links(text: str) -> list[tuple[int, str]]:
    """(file line, link text) of every link outside code, properties included."""
    block, body, first = reference_split(text)
    found: list[tuple[int, str]] = []
    if block is not None:
        for number, line in enumerate(block.split("\n"), start=2):
            found.extend((number, m.group(1).split("|")[0].split("#")[0].strip()) for m in _WIKI.finditer(line))
    in_code = code_lines(body)
    for index, line in enumerate(body):
        if index in in_code:
            continue
        plain = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        for m in _WIKI.finditer(plain):
            found.append((first + index, m.group(1).replace("\\|", "|").split("|")[0].split("#")[0].strip()))
        for m in _MARKDOWN.finditer(plain):
            url = m.group(1).strip("<>")
            if not _SCHEME.match(url):
                found.append((first + index, unquote(url.split("#")[0]).strip()))
    return found


def reference_headings(text: str) -> tuple[int, int]:
    _, body, _ = reference_split(text)
    headings = [t for t in _MD.parse("\n".join(body)) if t.type == "heading_open" and t.markup.startswith("#")]
    with_code = 0
    for token in headings:
        assert token.map is not None
        with_code += "`" in body[token.map[0]]
    return len(headings), with_code


def _stem(name: str) -> str:
    return name.casefold().removesuffix(".md")


def measure(root: Path, sample: int, top: int) -> dict[str, Any]:
    listing = list_notes(root)
    paths = list(listing.paths)
    texts: dict[str, str] = {}
    invalid_ours: dict[str, str] = {}
    our_headings = 0
    for note, trouble in each_note(root, listing):
        if trouble is not None:
            invalid_ours[trouble.path] = trouble.reason
        if note is not None:
            our_headings += len(note.headings)
    for path in paths:
        data = (root / path).read_bytes()
        try:
            texts[path] = decode_note_text(data)
        except UnicodeDecodeError:
            texts[path] = data.decode("utf-8", errors="replace")
    wrongly_invalid = {}
    for path, reason in invalid_ours.items():
        block, _, _ = reference_split(texts.get(path, ""))
        if block is not None and reference_reads_properties(block) and "not UTF-8" not in reason:
            wrongly_invalid[path] = reason
    # The reference's backlinks: target → {(source, line)}.
    linked: dict[str, set[tuple[str, int]]] = {}
    heading_total = heading_code = 0
    # Every branch of the rule looks only at notes named as the link's last part: hand it those.
    by_name: dict[str, list[str]] = {}
    listed = set(paths)
    for path in [*paths, *excluded_notes(listing)]:
        by_name.setdefault(_stem(path.rpartition("/")[2]), []).append(path)
    for path in paths:
        for line, target in reference_links(texts[path]):
            named = by_name.get(_stem(target.strip().rstrip("/").rpartition("/")[2]), [])
            resolved = obsidian_link_target(named, target, path)
            if resolved is not None and resolved != path and resolved in listed:  # no excluded target
                linked.setdefault(resolved, set()).add((path, line))
        count, code = reference_headings(texts[path])
        heading_total += count
        heading_code += code
    ranked = sorted(linked, key=lambda p: (-len(linked[p]), p))
    rest = ranked[top:]
    chosen = ranked[:top] + random.Random(7).sample(rest, min(sample, len(rest)))
    scope = Scope(client="measure", vault=root, exposure=Exposure(mode="vault"))
    disagreements: list[dict[str, Any]] = []
    lines_compared = 0
    for target in chosen:
        ours: set[tuple[str, int]] = set()
        offset: int | None = 0
        while offset is not None:
            page = backlinks.get_backlinks(scope, target, limit=200, budget=65536, offset=offset)
            ours |= {(h["path"], h["line"]) for h in page["records"]}
            offset = page.get("next_offset")
        expected = linked.get(target, set())
        lines_compared += len(ours | expected)
        for path, line in sorted(ours ^ expected):
            disagreements.append(
                {"target": target, "path": path, "line": line, "only": "ours" if (path, line) in ours else "reference"}
            )
    return {
        "vault": root.name,
        "notes": len(paths),
        "invalid": len(invalid_ours),
        "invalid_reasons": Counter(re.sub(r"^.*?line \d+: ", "", r)[:60] for r in invalid_ours.values()).most_common(8),
        "invalid_but_obsidian_reads": wrongly_invalid,
        "backlink_targets_compared": len(chosen),
        "backlink_lines_compared": lines_compared,
        "backlink_disagreements": disagreements,
        "headings_ours": our_headings,
        "headings_reference": heading_total,
        "headings_with_code": heading_code,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vaults", nargs="+", type=Path)
    parser.add_argument("--top", type=int, default=20, help="the most linked notes compared")
    parser.add_argument("--sample", type=int, default=40, help="linked notes compared beyond those, at random")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = [measure(vault, args.sample, args.top) for vault in args.vaults]
    for r in results:
        print(f"== {r['vault']}: {r['notes']} notes")
        print(f"   invalid: {r['invalid']}; of them Obsidian reads: {len(r['invalid_but_obsidian_reads'])}")
        for reason, count in r["invalid_reasons"]:
            print(f"     {count} × {reason}")
        for reason in list(r["invalid_but_obsidian_reads"].values())[:10]:
            print(f"     READ BY OBSIDIAN: {reason}")
        print(
            f"   backlinks: {r['backlink_targets_compared']} notes, {r['backlink_lines_compared']} linking lines,"
            f" {len(r['backlink_disagreements'])} disagreements"
        )
        for d in r["backlink_disagreements"][:15]:
            print(f"     only {d['only']}: {d['path']}:{d['line']} → {d['target']}")
        print(
            f"   headings: ours {r['headings_ours']}, reference {r['headings_reference']}"
            f" ({r['headings_with_code']} written with code)"
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
