"""A small reference of Obsidian's link rule (getLinkpathDest, as its help and observed
behaviour state it), written plainly over a list of paths: the property tests of link
resolution and bench/obsidian_fidelity.py check our resolution against it."""

from __future__ import annotations


def obsidian_link_target(paths: list[str], link_text: str, source: str) -> str | None:
    def lower(text: str) -> str:
        return text.casefold()

    def stem(path: str) -> str:
        return lower(path[:-3] if lower(path).endswith(".md") else path)

    if not link_text:
        return source
    folder = source.rpartition("/")[0]
    if link_text.startswith(("./", "../")):
        parts = folder.split("/") if folder else []
        for piece in link_text.split("/"):
            if piece == "..":
                if not parts:
                    return None
                parts.pop()
            elif piece not in (".", ""):
                parts.append(piece)
        exact = [p for p in paths if stem(p) == stem("/".join(parts))]
        return exact[0] if len(exact) == 1 else None
    wanted = stem(link_text.strip().lstrip("/"))
    if not wanted:
        return None
    exact = sorted(p for p in paths if stem(p) == wanted)
    if exact:
        return exact[0]
    named = [p for p in paths if stem(p.rpartition("/")[2]) == wanted.rpartition("/")[2]]
    if len(named) == 1:
        return named[0]
    ending = [p for p in named if stem(p).endswith("/" + wanted)]
    under = [p for p in ending if not folder or lower(p).startswith(lower(folder) + "/")]
    chosen = under or ending
    return min(chosen, key=lambda p: (len(p), p)) if chosen else None
