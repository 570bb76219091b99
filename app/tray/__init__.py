"""The tray, in rooms: the menu as data (`menu/`), what a click does (`actions/`), the HTTP
endpoint it runs (`endpoint/`), what it tells of changes (`news/`), what draws it (`views/`),
and the tray running, which ties them together (`running/`).  Two base modules every room may
use: the words a notice says, the same in the menu, a notification and `vault-recall status`
(`notices.py`), and which clients have our entry installed (`installed.py`).

May import `vault_recall.app.state`, `clients`, `desktop`, `timefmt` and `vault_recall.server`.
"""
