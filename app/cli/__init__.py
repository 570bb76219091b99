"""The `vault-recall` command line: parsing, and one module per group of commands (the config,
the clients, the reports, the demo, the doctor).

The top of the app: may import every other part of `vault_recall.app` and `vault_recall.server`.
"""
