"""What a click on the menu does, on the tray's action worker (never on a backend's UI
thread): `perform` (`perform.py`) runs every action the other files do not own — the vault,
pause, notifications, start at login, the pages it opens in the browser (`pages.py`); connecting,
installing and uninstalling clients (`client_setup.py`); adding and removing subject rules
(`rule_changes.py`).

May import the tray's base modules, `menu` (with the snapshot and the tray's own settings),
`vault_recall.app.state`, `clients`, `desktop`, `timefmt` and `vault_recall.server`.
"""
