"""The tray's menu as data: the tree of items built from a state snapshot (`tree.py`), the
items, the snapshot type and the wording every submenu shares (`items.py`), the snapshot
gathered from the shared files, with the tray's own settings (`snapshot.py`), the client parts
(`client_items.py`, with the *Copy URL snippet* item in `url_snippet.py`) and the subject parts
(`subject_items.py`).  The menu is a pure function of the snapshot; only gathering the snapshot
reads files, and only the URL snippet's copy writes (a token, when the config has none to reuse).

May import the tray's base modules (`notices`, `installed`), `vault_recall.app.state`,
`clients`, `desktop`, `timefmt` and `vault_recall.server`.
"""
