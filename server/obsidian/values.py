"""Property values as every reader gives them (the flat reading and YAML alike), and reading
the text lists Obsidian's own properties hold (`aliases`, `tags`)."""

from __future__ import annotations

PropertyValue = str | int | float | bool | None | list["PropertyValue"] | dict[str, "PropertyValue"]


def text_list(value: PropertyValue, *, strip_hash: bool = False) -> list[str]:
    """Read `aliases`/`tags`-style values: a single text or a list of texts → list of texts.

    Numbers are taken as text (`tags: [2024]`); anything else that is no text (a mapping, a
    nested list, true/false) is skipped, as Obsidian skips it, and the rest are kept.
    """
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    out: list[str] = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, str | int | float):
            continue
        text = str(item).strip()
        if strip_hash:
            text = text.lstrip("#")
        if text:
            out.append(text)
    return out
