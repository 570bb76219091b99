"""The configuration file (its schema, read strictly on every call) and each call's scope
resolved from it.

May import `recall` (for the `Scope` it builds and the subject rule it validates), `vault`,
`obsidian` and `errors`.  Writing the config is the app's job (`vault_recall.app.state`).
"""
