"""Experiments on the engine: paper-A sweeps and attention comparisons, paper-B training and
random-transformer sweeps, statistics and fits, and the plans (which d, m, N and seeds) that
quick and full runs use (:mod:`verify.experiments.plans`)."""
