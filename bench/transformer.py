"""Benchmark: exact sensitivity profile of a random transformer, as formalised in
boolverify.

    python -m bench.transformer [--N 20] [--N-naive 12] [--D 32 --L 2 --H 2] [--threads 1] [--json FILE]

Reports, measured in one run:

- profile at ``N``: seconds, strings per second, model evaluations ``2^N`` (one batched
  forward pass per string, flips read from the table) against ``(N+1) 2^N`` when every
  flip is evaluated separately: the factor ``N+1`` saved;
- at ``N_naive`` (small enough for the naive method): the measured time ratio naive /
  table, and that both give the same profile;
- the eos-only last layer against the full last layer (same outputs).
"""

from __future__ import annotations

import argparse
import time

import torch

from numeric.sensitivity import profile
from numeric.transformer import TransformerConfig, evaluate_all, random_model
from numeric.transformer_eval import evaluate_all_blowup, strings


def _table_profile(model, N):
    t = time.perf_counter()
    T = evaluate_all(model, N)  # chunks of DEFAULT_CHUNK = 256 strings on CPU
    t_eval = time.perf_counter() - t
    K = profile((T > 0).to(torch.uint8))
    return K, t_eval, time.perf_counter() - t


@torch.no_grad()
def _naive_profile(model, N, chunk=256):
    """Evaluate f(x) and every f(x ⊕ e_n) by its own forward pass: (N+1) 2^N evaluations."""
    t = time.perf_counter()
    total = 1 << N
    s = torch.zeros(total, dtype=torch.long)
    for start in range(0, total, chunk):
        idx = torch.arange(start, min(start + chunk, total))
        x = strings(idx, N)
        fx = model(x) > 0
        for n in range(N):
            xf = x.clone()
            xf[:, n] ^= 1
            s[idx] += (model(xf) > 0) != fx
    return torch.bincount(s, minlength=N + 1), time.perf_counter() - t


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m bench.transformer")
    ap.add_argument("--N", type=int, default=20)
    ap.add_argument("--N-naive", dest="N_naive", type=int, default=12)
    ap.add_argument("--D", type=int, default=32)
    ap.add_argument("--L", type=int, default=2)
    ap.add_argument("--H", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", metavar="FILE")
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    cfg = TransformerConfig(D=a.D, L=a.L, H=a.H, eps=0.0, N_max=max(64, a.N))
    model = random_model(cfg, "uniform", 0)
    evaluate_all(model, 8)  # warm-up

    res = {"config": {"D": a.D, "L": a.L, "H": a.H, "F": cfg.F, "eps": 0.0, "init": "uniform"},
           "threads": a.threads, "device": "cpu"}
    cpu0 = time.process_time()
    K, t_eval, t_all = _table_profile(model, a.N)
    res["N"] = a.N
    res["table"] = {
        "seconds_total": t_all, "seconds_forward": t_eval, "cpu_seconds": time.process_time() - cpu0,
        "strings_per_second": (1 << a.N) / t_all,
        "model_evaluations": 1 << a.N, "naive_model_evaluations": (a.N + 1) << a.N,
        "evaluations_saved_factor": a.N + 1, "K0": int(K[0]), "profile": K.tolist(),
    }
    print(f"N={a.N}: profile of a random transformer (D={a.D}, L={a.L}, H={a.H}) in {t_all:.1f} s "
          f"({res['table']['strings_per_second']:.0f} strings/s; forward {t_eval:.1f} s); "
          f"{1 << a.N} evaluations vs {(a.N + 1) << a.N} flip by flip: {a.N + 1}x fewer")

    Nn = a.N_naive
    Kt, _, t_tab = _table_profile(model, Nn)
    Kn, t_naive = _naive_profile(model, Nn)
    assert Kt.tolist() == Kn.tolist(), "naive and table profiles differ"
    res["naive"] = {"N": Nn, "seconds_table": t_tab, "seconds_naive": t_naive,
                    "time_ratio": t_naive / t_tab, "evaluation_ratio": Nn + 1, "profiles_equal": True}
    print(f"N={Nn}: table {t_tab:.2f} s, flip by flip {t_naive:.2f} s: time ratio {t_naive / t_tab:.1f} "
          f"(evaluation ratio {Nn + 1}); profiles equal")

    t = time.perf_counter()
    T_short = evaluate_all(model, Nn)
    t_short = time.perf_counter() - t
    t = time.perf_counter()
    T_full, _ = evaluate_all_blowup(model, Nn)
    t_full = time.perf_counter() - t
    res["eos_only_last_layer"] = {"N": Nn, "seconds_eos_only": t_short, "seconds_full_with_blowup": t_full,
                                  "speedup": t_full / t_short,
                                  "max_abs_diff": float((T_short - T_full).abs().max())}
    print(f"N={Nn}: eos-only last layer {t_short:.2f} s vs full last layer + blowup {t_full:.2f} s "
          f"({t_full / t_short:.2f}x); max |diff| {res['eos_only_last_layer']['max_abs_diff']:.1e}")
    if a.json:
        from verify.common.atomic_io import atomic_write_json

        atomic_write_json(a.json, res)
    return res


if __name__ == "__main__":
    main()
