"""The tray's menu as data: the tree of items built from a state snapshot (`tree.py`), the
items, the snapshot type and the wording every submenu shares (`items.py`), the client parts
(`client_items.py`, with the *Copy URL snippet* item in `url_snippet.py`) and the subject
parts (`subject_items.py`).  Pure functions of the snapshot, but for the URL snippet's copy,
which makes a token when the config has none to reuse.

May import the tray's base modules (`notices`, `installed`), `vault_recall.app.state`,
`clients`, `desktop`, `timefmt` and `vault_recall.server`.
"""
