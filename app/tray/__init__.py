"""The tray: a pure menu model built from a state snapshot, the state gathering, the backend
choice, and the thin adapter that shows the model through pystray.

May import `vault_recall.app.state`, `clients`, `desktop`, `timefmt` and `vault_recall.server`.
"""
