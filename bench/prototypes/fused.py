"""Fused one-pass prototypes: ``python -m bench.prototypes.fused [--d D] [--m M]``.

How close does a fused loop over ``V`` (logits of both heads, running maximum, weights and the
six weighted row sums of the one-pass softmax gradient, tile by tile) get to one read of ``V``
(``torch.mv``, one thread)? Two prototypes, each checked against the same sums computed in
torch: plain C (``fused_softmax_sums.c``, ``gcc -O3 -march=native``, when gcc is present) and
numba (when it is installed; it is not a dependency of boolverify). The C file is also timed
with parts of the loop removed, which splits its time into the logits, the exponentials and the
row sums. Ratios only, medians of repeats; nothing is asserted. Not part of the engine: neither
prototype reaches the 1.2x goal, so the engine keeps its torch one pass (see
docs/performance.md).
"""

from __future__ import annotations

import argparse
import ctypes
import math
import shutil
import subprocess
import tempfile
from pathlib import Path

import torch

from bench.xor import median_time

HERE = Path(__file__).resolve().parent
FLAGS = ["-O3", "-march=native", "-ffp-contract=fast", "-fassociative-math", "-fno-signed-zeros",
         "-fno-trapping-math", "-shared", "-fPIC"]
# parts of the loop removed: what is left is timed (the sums are then wrong, and not checked)
VARIANTS = {
    "full": {},
    "without row sums": {"for (; i + 4 <= n; i += 4) {": "for (; i + 4 <= n && 0; i += 4) {",
                         "for (; i < n; i++) {\n            const double *v0":
                         "for (i = n; i < n; i++) {\n            const double *v0"},
    "without exp": {"double e1 = exp(z1[i] - M1), e2 = exp(z2[i] - M2);":
                    "double e1 = z1[i] - M1, e2 = z2[i] - M2;"},
}


def _reference(V, th, tt, a, b):
    Z = torch.stack((th, tt)) @ V.T
    E = torch.exp(Z - Z.max(1, keepdim=True).values)
    E[:, [a, b]] = 0
    W = torch.stack((E[0], E[1], E[0] ** 2, E[1] ** 2, E[0] * E[1], (E[0] * E[1]) ** 2))
    return W @ V


def _c_kernel(source, tmp):
    so = Path(tmp) / f"fused{abs(hash(source))}.so"
    c = so.with_suffix(".c")
    c.write_text(source)
    subprocess.run(["gcc", *FLAGS, str(c), "-o", str(so), "-lm"], check=True)
    lib = ctypes.CDLL(str(so))
    P = ctypes.POINTER(ctypes.c_double)
    lib.fused.argtypes = [P, ctypes.c_long, ctypes.c_long, P, P, ctypes.c_long, ctypes.c_long,
                          P, P, P, ctypes.c_long]
    ptr = lambda t: ctypes.cast(t.data_ptr(), P)

    def run(V, th, tt, a, b, T=256):
        d, m = V.shape
        M = torch.full((2,), -math.inf, dtype=torch.float64)
        S = torch.zeros(6, dtype=torch.float64)
        Mom = torch.zeros(6, m, dtype=torch.float64)
        lib.fused(ptr(V), d, m, ptr(th), ptr(tt), a, b, ptr(M), ptr(S), ptr(Mom), T)
        return Mom
    return run


def _numba_kernel():
    import numpy as np
    from numba import njit

    @njit(fastmath={"reassoc", "contract", "nsz"}, nogil=True)
    def fused(V, th1, th2, a, b, Mom, T):
        d, m = V.shape
        z1, z2 = np.empty(T), np.empty(T)
        M1 = M2 = -np.inf
        for s in range(0, d, T):
            e = min(s + T, d)
            bm1 = bm2 = -np.inf
            for i in range(s, e):
                acc1 = 0.0
                acc2 = 0.0
                for j in range(m):
                    acc1 += V[i, j] * th1[j]
                    acc2 += V[i, j] * th2[j]
                z1[i - s], z2[i - s] = acc1, acc2
                bm1, bm2 = max(bm1, acc1), max(bm2, acc2)
            if bm1 > M1 or bm2 > M2:
                n1, n2 = max(M1, bm1), max(M2, bm2)
                al1, al2 = math.exp(M1 - n1), math.exp(M2 - n2)
                f = (al1, al2, al1 * al1, al2 * al2, al1 * al2, (al1 * al2) ** 2)
                for k in range(6):
                    for j in range(m):
                        Mom[k, j] *= f[k]
                M1, M2 = n1, n2
            for i in range(s, e):
                if i == a or i == b:
                    continue
                w1, w2 = math.exp(z1[i - s] - M1), math.exp(z2[i - s] - M2)
                w5 = w1 * w2
                w = (w1, w2, w1 * w1, w2 * w2, w5, w5 * w5)
                for j in range(m):
                    v = V[i, j]
                    for k in range(6):
                        Mom[k, j] += w[k] * v

    def run(V, th, tt, a, b, T=256):
        Mom = np.zeros((6, V.shape[1]))
        fused(V.numpy(), th.numpy(), tt.numpy(), a, b, Mom, T)
        return torch.from_numpy(Mom)
    return run


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--d", type=int, default=10**6)
    p.add_argument("--m", type=int, default=64)
    p.add_argument("--repeats", type=int, default=7)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(0)
    V = torch.randn(args.d, args.m, dtype=torch.float64, generator=g)
    V /= V.norm(dim=1, keepdim=True)
    th, tt = (torch.randn(args.m, dtype=torch.float64, generator=g) for _ in range(2))
    a, b = 0, 1
    ref = _reference(V, th, tt, a, b)
    one = median_time(lambda: torch.mv(V, th), args.repeats)[0]
    print(f"d = {args.d}, m = {args.m}, float64, 1 thread; one read (torch.mv): {1e3 * one:.1f} ms")
    if shutil.which("gcc"):
        src = (HERE / "fused_softmax_sums.c").read_text()
        with tempfile.TemporaryDirectory() as tmp:
            for name, edits in VARIANTS.items():
                s = src
                for old, new in edits.items():
                    assert old in s, old
                    s = s.replace(old, new)
                run = _c_kernel(s, tmp)
                t = median_time(lambda: run(V, th, tt, a, b), args.repeats)[0]
                err = ""
                if name == "full":
                    err = f", max error {float((run(V, th, tt, a, b) - ref).abs().max() / ref.abs().max()):.1e}"
                print(f"C, {name}: {t / one:.2f}x one read{err}")
    else:
        print("C: no gcc")
    try:
        run = _numba_kernel()
    except ImportError:
        print("numba: not installed")
    else:
        t = median_time(lambda: run(V, th, tt, a, b), args.repeats)[0]
        err = float((run(V, th, tt, a, b) - ref).abs().max() / ref.abs().max())
        print(f"numba: {t / one:.2f}x one read, max error {err:.1e}")


if __name__ == "__main__":
    main()
