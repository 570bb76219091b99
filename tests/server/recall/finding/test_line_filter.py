"""Backlinks look for links only on the lines that could hold one to the target: a line
holding a link whose target folds to the target's name must never be passed over."""

from __future__ import annotations

from urllib.parse import quote

from hypothesis import example, given
from hypothesis import strategies as st

from vault_recall.server.obsidian.resolve import fold
from vault_recall.server.obsidian.syntax import parse_links
from vault_recall.server.recall.finding.text_prefilter import line_filter

PIECES = ["a", "B", " ", "é", "e\u0301", "\ufb01", "ß", "SS", "K", "\u212a", "İ", "`x`", "-", "1"]
NAMES = st.lists(st.sampled_from(PIECES), min_size=1, max_size=8).map("".join).filter(lambda n: n.strip(" `"))
FORMS = st.sampled_from(
    ["[[{}]]", "see [[Folder/{}|shown]] here", "![[{}#Part]]", "[x]({}.md)", "[x](<{}.md>)", "[x]({q}.md)"]
)


@example("Pl`x`an", "[[{}]]")
@example("Straße", "[[STRASSE]]")
@given(NAMES, FORMS)
def test_a_line_with_a_link_to_the_target_is_always_looked_at(name: str, form: str) -> None:
    line = form.format(name, q=quote(name))
    wanted = line_filter(f"Notes/{name}.md")
    if wanted is None:
        return  # every line is looked at
    for link in parse_links(f"before\n{line}\nafter"):
        named = fold(link.target.rsplit("/", 1)[-1].removesuffix(".md"))
        if named == fold(name):
            assert wanted(line), (name, line)
