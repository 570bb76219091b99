"""The shared state as the management side sees it: writing the config (atomically, through
the one atomic writer every file of ours goes through), a vault's health, the vaults Obsidian
knows, the bundled sample vault.  The activity store is read through server/activity/queries.py.

May import `vault_recall.server` only.
"""
