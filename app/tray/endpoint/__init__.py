"""The tray's HTTP endpoint: `vault-recall http` run as a child process and the menu's actions
for it (`process.py`), the log it writes (`log_file.py`), why it ended and when it is started
again (`restarts.py`), what the menu says of it besides start and stop (`status_items.py`), and
the tray's part in its OAuth: apps waiting for approval, grants given and revoked
(`app_grants.py`).

May import the tray's base modules, `menu` (with the snapshot and the tray's own settings),
`vault_recall.app.state`, `clients`, `desktop` and `vault_recall.server`.
"""
