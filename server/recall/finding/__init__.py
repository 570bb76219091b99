"""Finding the notes a call needs: one pass over a listed vault (`scan.py`; one note read as it
reads it, and what it cannot read, in `one_note.py`), notes skipped on
their bytes before any parse (`subject_prefilter.py`, `text_prefilter.py`, which also lists
and counts a phrase's lines), the plainest records counted from their bytes
(`record_tally.py`), what a client sees and the pass started over when a note changed
(`view.py`), and names resolved on the listing or an exact path read without listing (`naming.py`).

May import the modules of `vault_recall.server.recall` itself (records, scope, results,
packing, subject rules), `vault`, `obsidian` and `errors`; never `ranking` or `answers`.
"""
