"""Benchmarks (run by hand: ``python -m bench.<name>``); ratios measured in one run."""
