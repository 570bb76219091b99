"""How many of our modules one recall_context call runs code in, held under a ceiling.

A reader following a call opens one file per module it runs; a one-function hop adds a file
and a stop without adding a thing to read.  `python -m bench.call_stops` prints the figures for
every tool.  When a change lowers them, lower the ceilings here to the new figures; a change that
raises them must say why in its commit.  These are counts of code that ran, not times.
"""

from __future__ import annotations

import anyio

from bench.call_stops import CALLS, in_fresh_process
from vault_recall.server.config.call_scope import ServeOptions
from vault_recall.server.mcp.tools import build_server

# recall_context on the sample vault as bench.call_stops measures it: the modules the call's own
# code runs in, and with those only imports ran code in.  The first call's stops (thousands,
# mostly reading word lists) move by a few with the environment: not held.
# Two modules more (and 27 stops) since a ranked call notes what a misspelt word's correction
# would need on its one pass (answers/respelling.py, with ranking/spelling.py's gates); three
# fewer since the one-function hops of activity, templates and Obsidian URIs were merged.
FIRST_CALL_MODULES, FIRST_CALL_WITH_IMPORTS = 46, 54
SECOND_CALL_MODULES, SECOND_CALL_STOPS = 44, 1559


def test_recall_context_runs_no_more_modules_than_its_ceiling() -> None:
    first, second = in_fresh_process("recall_context")
    assert second.modules > 10 and second.stops > 100, "the profile saw next to nothing of the call"
    assert first.modules <= FIRST_CALL_MODULES, sorted(first.per_module)
    assert first.with_imports <= FIRST_CALL_WITH_IMPORTS, sorted(first.importing)
    assert second.modules <= SECOND_CALL_MODULES, sorted(second.per_module)
    assert second.stops <= SECOND_CALL_STOPS


def test_the_bench_calls_every_registered_tool() -> None:
    server = build_server(ServeOptions(client="stops"))
    try:
        registered = {tool.name for tool in anyio.run(server.list_tools)}
    finally:
        server.activity.close()
    assert set(CALLS) == registered
