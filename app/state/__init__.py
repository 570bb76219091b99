"""The shared state as the management side sees it: writing the config (atomically, through
the one atomic writer every file of ours goes through), reading the activity store, a vault's
health, the vaults Obsidian knows, the bundled sample vault.

May import `vault_recall.server` only.
"""
