"""Experiments on the engine: paper-A sweeps and attention comparisons, paper-B training and
random-transformer sweeps, the threshold laws of sweep records (their statistics are in
:mod:`verify.stats`), and the plans (which d, m, N and seeds) that quick and full runs use
(:mod:`verify.experiments.plans`)."""
