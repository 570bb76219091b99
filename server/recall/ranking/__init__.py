"""Ranking records against a query: words folded (`words.py`), each language's stemmer and stop
words (`languages.py`, `stopwords.py`), abbreviations (`abbreviations.py`), the query parsed
into terms (`query_terms.py`) and their words found in a text (`word_scans.py`), a record's
evidence per field (the fields and what a hit in each weighs: `recall/results.py`)
in `record_terms.py`, BM25 over fields (`bm25.py`), every term required (`strict_match.py`),
the orderings a recall picks from (`relevance.py`), and a misspelt word taken for the nearest
one the records hold (`spelling.py`).

May import the modules of `vault_recall.server.recall` itself (records, packing), `vault`,
`obsidian` and `errors`; never `finding` or `answers`.
"""
