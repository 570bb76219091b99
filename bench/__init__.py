"""Benchmarks, run from the repo root as modules: `.venv/bin/python -m bench.tools`, …."""
