"""Each tool's answer: `recall_context` and `recall_activity` (`recall_records.py`, shaped in
`recall_answer.py`), `list_subjects` (`subjects.py`), `search_notes` (`search.py`),
`get_backlinks` (`backlinks.py`), `read_note` (`reading.py`), their argument checks
(`arguments.py`), the notes handed out and what changed since (`changed_since.py`), and the
subject rules a vault suggests (`rule_suggestions.py`).

May import `finding`, `ranking` and the modules of `vault_recall.server.recall` itself,
`vault`, `obsidian` and `errors`.
"""
