"""The AI clients we configure: their catalogue (where each keeps its config, in which
format), snippets in each format, the command they launch, and the safe install that edits
their files (JSON in place, TOML and YAML by round-trip).

May import `vault_recall.app.state` and `vault_recall.server`.
"""
