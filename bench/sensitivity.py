"""Benchmark: sensitivity profiles of truth tables. ``python -m bench.sensitivity``.

1. Profile at ``N = 24`` against the floor of ``N`` passes over the table. The floor is
   ``N`` calls of ``torch.bitwise_xor(t[:2^(N-1)], t[2^(N-1):], out=buf)`` on the uint8 table:
   one contiguous elementwise pass per bit that reads the whole table once (the least any
   flip-based method does). Both methods of :func:`numeric.boolean.profile` are timed:
   ``bitsliced`` (the CPU default) and ``bytes``. Ratios are measured in one run, floor and
   method interleaved, best of ``--repeat``, both in wall-clock time and in CPU time of the
   (single) working thread; the latter is the stable number on a shared, loaded machine.
2. Fourier ``as(f)`` at ``N = 12``: the fast Walsh–Hadamard transform (O(N 2^N), exact
   int64) against the O(4^N) character-matrix method of public code; speed-up factor.
3. ``--large``: one profile at ``N = 28`` (a 256 MB table) with its time and ratio.

Single-threaded by default (``--threads``) so that the ratios do not depend on the load of
a shared machine.
"""

from __future__ import annotations

import argparse
import time


def _best(fn, repeat, clock=time.perf_counter):
    best = float("inf")
    for _ in range(repeat):
        t0 = clock()
        fn()
        best = min(best, clock() - t0)
    return best


def _both(fn):
    """(wall seconds, CPU seconds of this thread) of one call."""
    w0, c0 = time.perf_counter(), time.thread_time()
    fn()
    return time.perf_counter() - w0, time.thread_time() - c0


def profile_vs_floor(N=24, repeat=5, seed=0, methods=("bitsliced", "bytes")):
    import torch

    from numeric.boolean import truth_table
    from numeric.boolean import profile

    t = truth_table("random", N, seed=seed, allow_large=True)
    half = 1 << (N - 1)
    buf = torch.empty(half, dtype=torch.uint8)

    def floor():
        for _ in range(N):
            torch.bitwise_xor(t[:half], t[half:], out=buf)

    ref = profile(t, method="bytes", allow_large=True)
    out = {"N": N, "repeat": repeat}
    wall = {"floor": float("inf")}
    cpu = {"floor": float("inf")}
    for _ in range(repeat):  # interleave, so that load changes hit every timing alike
        for key, fn in [("floor", floor)] + [(m, lambda m=m: profile(t, method=m, allow_large=True)) for m in methods]:
            w, c = _both(fn)
            wall[key] = min(wall.get(key, float("inf")), w)
            cpu[key] = min(cpu.get(key, float("inf")), c)
    for m in methods:
        assert torch.equal(profile(t, method=m, allow_large=True), ref), m
        out[f"ratio_{m}"] = wall[m] / wall["floor"]
        out[f"cpu_ratio_{m}"] = cpu[m] / cpu["floor"]
    out["seconds"] = wall
    out["cpu_seconds"] = cpu
    return out


def fourier_vs_character_matrix(N=12, repeat=3, seed=0):
    from numeric.boolean import truth_table
    from numeric.boolean import character_matrix_average_sensitivity, fourier_average_sensitivity

    t = truth_table("random", N, seed=seed)
    fast = _best(lambda: fourier_average_sensitivity(t), repeat)
    slow = _best(lambda: character_matrix_average_sensitivity(t, max_N=N), repeat)
    a, b = fourier_average_sensitivity(t), character_matrix_average_sensitivity(t, max_N=N)
    return {"N": N, "fast_s": fast, "character_matrix_s": slow, "speedup": slow / fast,
            "as_fast": a, "as_character_matrix": b, "abs_diff": abs(a - b)}


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m bench.sensitivity", description=__doc__.split("\n")[0])
    ap.add_argument("--N", type=int, default=24, help="profile size (default 24)")
    ap.add_argument("--fourier-N", type=int, default=12, help="Fourier comparison size (default 12)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    ap.add_argument("--large", action="store_true", help="also time one profile at N = 28")
    ap.add_argument("--json", metavar="FILE", default=None, help="write the numbers as JSON (atomic)")
    args = ap.parse_args(argv)

    import torch
    from rich.console import Console
    from rich.table import Table

    torch.set_num_threads(args.threads)
    res = {"threads": args.threads, "torch": torch.__version__}
    res["profile"] = profile_vs_floor(args.N, args.repeat)
    res["fourier"] = fourier_vs_character_matrix(args.fourier_N)
    if args.large:
        res["profile_N28"] = profile_vs_floor(28, 1, methods=("bitsliced",))

    tab = Table(title=f"sensitivity benchmarks ({args.threads} thread(s), torch {torch.__version__})")
    tab.add_column("what")
    tab.add_column("time", justify="right")
    tab.add_column("ratio", justify="right")
    for key in [k for k in ("profile", "profile_N28") if k in res]:
        p = res[key]
        tab.add_row(f"floor: {p['N']} xor passes, N = {p['N']}",
                    f"{p['seconds']['floor'] * 1e3:.1f} ms (cpu {p['cpu_seconds']['floor'] * 1e3:.1f})", "1")
        for m in ("bitsliced", "bytes"):
            if f"ratio_{m}" in p:
                tab.add_row(f"profile ({m}), N = {p['N']}",
                            f"{p['seconds'][m] * 1e3:.1f} ms (cpu {p['cpu_seconds'][m] * 1e3:.1f})",
                            f"{p[f'ratio_{m}']:.2f}x floor (cpu {p[f'cpu_ratio_{m}']:.2f}x)")
    f = res["fourier"]
    tab.add_row(f"as(f) fast WHT, N = {f['N']}", f"{f['fast_s'] * 1e3:.2f} ms", "")
    tab.add_row(f"as(f) character matrix, N = {f['N']}", f"{f['character_matrix_s'] * 1e3:.1f} ms",
                f"{f['speedup']:.0f}x slower")
    Console().print(tab)
    if args.json:
        from verify.common.atomic_io import atomic_write_json

        atomic_write_json(args.json, res)
    return res


if __name__ == "__main__":
    from verify.common.provenance import begin_script

    begin_script("bench.sensitivity")  # the provenance of what it writes
    main()
