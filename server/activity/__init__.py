"""The activity store: one SQLite file every server appends one event per call to (`database.py`),
the writer that does it without ever failing or delaying a call (`writer.py`), and every
statement on its events, the writer's and the readers' alike
(`queries.py`): the tray, the command line and the doctor read it only through those.

May import `config` and the layers below it (`recall`, `obsidian`, `vault`), and `errors`.
"""
