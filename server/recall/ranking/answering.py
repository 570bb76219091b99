"""When a record answers a query well enough for the answer not to be marked `weak_match`.

A record answers when it holds together (record_terms.together: one paragraph with the names
of what holds it) every meaningful word the query counts — or nearly all of them, at least
NEARLY_ALL, and either

- one of the words it holds is in its name (title, aliases, tags, top headings): the record is
  about that word, and the others it holds beside it make it the one meant; or
- every word it lacks is held by more of the records ranked than the rarest word it holds: what
  it lacks says less about which record is meant than what it has.

Anything less is weak, whatever its rank: a word no record holds in any form is never held by
more records than one the record holds, so missing one still marks the answer unless the
record holds all but a quarter of the words and is named after one of them.  A misspelt word's
correction (spelling.py) counts as the word asked: only a word no language of the call knows
is corrected ('evergren → evergreen').  So does a word of the asked word's family the stemmer
parts ('registration → registered') when the word asked is no word the languages know; when it
is one ('secret → secretary'), the relative is a guess, and an answer to a query with one is
always weak.

Why not less: measured on bench/recall_eval/ and two public vaults (docs/benchmarks.md), any
looser rule on words alone — two thirds held, a share of the words' weight (IDF), whole-note
holding, the gap between the first score and the second — lets a question that has no answer
pass for answered ("How much does Obsidian Sync cost per month?" finds *sync* and *month*
named and together; "do we allow personal laptops for work?" finds *allow* and *personal*).
"""

from __future__ import annotations

from collections.abc import Collection

from vault_recall.server.recall.ranking.query_terms import Query

NEARLY_ALL = 3 / 4


def answers(held: Collection[int], named: Collection[int], query: Query) -> bool:
    """Whether a record holding together the counted terms `held` (of which `named` are in its
    name) answers `query` (the module's docstring)."""
    counted = query.counted
    if any(query.terms[i].respelt for i in counted):
        return False  # a known word taken for another of its family: a guess, never held as asked
    held = [i for i in counted if i in held]
    if len(held) == len(counted):
        return True
    if len(held) < NEARLY_ALL * len(counted):
        return False
    if any(i in named for i in held):
        return True
    holding = query.held_by
    if not holding or not held:
        return False  # not counted (no pass ranked the records): nothing says the lacking words are common
    rarest = min(holding[i] for i in held)
    return all(holding[i] > rarest for i in counted if i not in held)
