"""Fresh, scoped, bounded answers: memory records, recall, search, backlinks, reading one note,
packing whole records under a budget, and the argument checks behind them.

Every function takes a `Scope` (which vault, what this client may see) and its arguments and
returns a result shaped as docs/tools.md describes, typed in results.py.  May import `vault`,
`obsidian` and `errors`; never the config file, the activity store or the MCP layer.
"""
