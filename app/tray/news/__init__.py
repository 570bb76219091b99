"""What the tray tells the person as things change, as data and wording: the vault's health
(`vault_health.py`: which note or folder, what is wrong), and notes changed since a client was
given them (`changed_notes.py`: who holds an old version, and when to say so), watched on the
tray's watcher thread (`recalled_watch.py`).

May import the tray's base modules, `menu` (the snapshot type), `vault_recall.app.state`,
`desktop`, `timefmt` and `vault_recall.server`.
"""
