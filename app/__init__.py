"""The management side, installed as `vault_recall.app`: the tray and the command line.

Its rooms, lower first: `state` (the shared files as the app reads and writes them) ←
`clients` (client configs: catalogue, snippets, install) ← `desktop` (platform glue: icon,
clipboard, opener, folder picker, start at login, launcher) ← `tray` (menu model, its life and
its backends) ← `cli` (the `vault-recall` command).  `timefmt` is a leaf both front ends use.  May import
`vault_recall.server`; the server never imports this (tests/project/test_layers.py checks both).
"""
