"""Desktop integration, one small module per concern, each choosing its platform in one place:
the icon picture, clipboard, opening links and folders, the folder picker, start at login and
the applications-menu launcher; the session D-Bus (`session_bus.py`) for notifications and the
desktop portal's folder dialog.

May import `vault_recall.app.state`, `vault_recall.app.clients` (the command to launch) and
`vault_recall.server`.
"""
