"""End to end: real `serve`, `http` and CLI processes, the benchmarks run as scripts."""
