"""The OAuth store: one SQLite file in the state folder holding the apps that registered, the
requests waiting for the person's approval, the grants, codes and tokens — shared by the HTTP
endpoint (which serves OAuth from `vault_recall.server.http.oauth`), the command line and the
tray.

May import `config` and the layers below it (`recall`, `obsidian`, `vault`), and `errors`.
"""
