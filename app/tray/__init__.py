"""The tray: a pure menu model built from a state snapshot (`menu.py`, `state.py`), what its
actions do (`actions.py`), the life shared by every backend (`tray_app.py`), the backend
choice (`backend.py`), and the backends: pystray (`pystray_view.py`) and a StatusNotifierItem
with a dbusmenu menu over D-Bus (`sni_view.py`, `sni_item.py`, `dbusmenu.py`,
`dbusmenu_layout.py`).

May import `vault_recall.app.state`, `clients`, `desktop`, `timefmt` and `vault_recall.server`.
"""
