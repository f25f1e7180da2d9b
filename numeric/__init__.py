"""The torch engine (CPU and CUDA, float64 by default).

Depends on nothing in the suite but :mod:`verify.errors` (the shared exception type).
"""
