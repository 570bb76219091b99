"""The tray started and running, whichever view draws it: which view draws it here and starting
it (`backend_choice.py`); its life — the action worker, the watcher, health, the view that
changes when the panels do (`tray_app.py`); when the watcher wakes (`wakeups.py`); when health
is checked next (`health_schedule.py`); and the one tray per person, with the requests other
commands leave it (`instance.py`).

May import every other room of the tray and its base modules, `vault_recall.app.state`,
`clients`, `desktop` and `vault_recall.server`.
"""
