"""What draws the tray: what the tray and a view agree on (`protocol.py`), which view the panels
there call for and following them as they come and go (`panels.py`), and the views: pystray's
icon (`pystray_icon.py`; macOS, Windows, GTK's XEmbed tray) and a StatusNotifierItem with a
dbusmenu menu over D-Bus (`status_notifier/`), with the menu we pop up ourselves for a panel
that gives the item a left click (`popup_menu.py`).  A view only draws the menu's items and
reports clicks; the tray picks one when it starts (running/backend_choice.py).

May import `menu`, `vault_recall.app.desktop` and `app_errors`.
"""
