"""The activity store: one SQLite file every server appends one event per call to, and the
recorder that does it without ever failing or delaying a call.

May import `config` and the layers below it (`recall`, `obsidian`, `vault`), and `errors`.
"""
