"""The tray as a StatusNotifierItem on the session bus: the view that owns the connection and
registers with the panel (`bus_view.py`), the item itself, its icon and clicks
(`notifier_item.py`), and its menu over `com.canonical.dbusmenu` (`dbusmenu.py`), numbered and
diffed as data (`menu_numbering.py`).

May import `menu`, the views' own modules (`protocol`, `popup_menu`, `panels`),
`vault_recall.app.desktop` and `app_errors`.
"""
