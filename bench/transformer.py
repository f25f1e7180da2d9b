"""Benchmark: exact sensitivity profile of a random transformer, as formalised in
boolverify.

    python -m bench.transformer [--N 20] [--N-naive 12] [--D 32 --L 2 --H 2] [--threads 1] [--json FILE]

Reports, measured in one run:

- profile at ``N``: seconds, strings per second, model evaluations ``2^N`` (one batched
  forward pass per string, flips read from the table) against ``(N+1) 2^N`` when every
  flip is evaluated separately: the factor ``N+1`` saved;
- at ``N_naive`` (small enough for the naive method): the measured time ratio naive /
  table, and that both give the same profile;
- the eos-only last layer against the full last layer (same outputs);
- strings per second, side by side: the exact profile at ``N`` by the table-driven pass of
  :func:`numeric.transformer.evaluate_all` against the plain batched forward pass
  (the model's forward on 256-string chunks, ``--N-plain``), and the sampled sensitivities at
  ``--N-sample`` (each string with its N neighbours, :mod:`numeric.transformer`) against
  the plain batched forward of the same strings in passes of 256 sequences; ``--repeats``
  runs each, reporting the median. ``--speed-only`` runs only these.
"""

from __future__ import annotations

import argparse
import time

import torch

from numeric.boolean import profile
from numeric.transformer import TransformerConfig, evaluate_all, random_model
from numeric.transformer import evaluate_all_blowup, strings
from numeric.transformer import neighbour_sensitivities, sample_strings


def _table_profile(model, N):
    t = time.perf_counter()
    T = evaluate_all(model, N)  # chunks of DEFAULT_CHUNK = 256 strings on CPU
    t_eval = time.perf_counter() - t
    K = profile(model.readout(T).to(torch.uint8))
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


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


@torch.no_grad()
def _plain_exact(model, N, chunk=256):
    """All 2^N outputs by the model's own batched forward pass (no table-driven path)."""
    total = 1 << N
    T = torch.empty(total, dtype=torch.float64)
    for start in range(0, total, chunk):
        idx = torch.arange(start, min(start + chunk, total))
        T[start : start + len(idx)] = model(strings(idx, N))
    return T


@torch.no_grad()
def _plain_sampled(model, x, rows=256):
    """s(x, f) of the strings x by plain passes of ``rows`` sequences (x, then its neighbours)."""
    S, N = x.shape
    f = torch.cat([model(x[a : a + rows]) > 0 for a in range(0, S, rows)])
    nb = x.unsqueeze(1).repeat(1, N, 1)
    d = torch.arange(N)
    nb[:, d, d] ^= 1
    nb = nb.reshape(S * N, N)
    fn = torch.cat([model(nb[a : a + rows]) > 0 for a in range(0, S * N, rows)]).reshape(S, N)
    return f, (fn != f.unsqueeze(1)).sum(1)


def speed(a, res):
    """Strings per second: table-driven exact pass and sampler, each beside the plain pass."""
    cfg = TransformerConfig(D=a.D, L=a.L, H=a.H, eps=0.0, N_max=max(64, a.N))
    model = random_model(cfg, "uniform", 0)
    evaluate_all(model, 8)
    out = {"repeats": a.repeats}
    fast_s, plain_s, fast_c, plain_c = [], [], [], []
    for _ in range(a.repeats):
        # wall clock and the working thread's CPU time (steadier on a shared machine)
        t, c = time.perf_counter(), time.thread_time()
        T_fast = evaluate_all(model, a.N)
        fast_s.append(time.perf_counter() - t)
        fast_c.append(time.thread_time() - c)
        t, c = time.perf_counter(), time.thread_time()
        T_plain = _plain_exact(model, a.N_plain)
        plain_s.append(time.perf_counter() - t)
        plain_c.append(time.thread_time() - c)
    same = a.N_plain != a.N or torch.equal(T_fast > 0, T_plain > 0)
    if a.N_plain != a.N:  # the tables are compared at the plain length
        same = torch.equal(evaluate_all(model, a.N_plain) > 0, T_plain > 0)
    out["exact"] = {"N": a.N, "seconds_fast": fast_s, "strings_per_second_fast": (1 << a.N) / _median(fast_s),
                    "cpu_seconds_fast": fast_c, "cpu_strings_per_second_fast": (1 << a.N) / _median(fast_c),
                    "N_plain": a.N_plain, "seconds_plain": plain_s, "cpu_seconds_plain": plain_c,
                    "strings_per_second_plain": (1 << a.N_plain) / _median(plain_s),
                    "cpu_strings_per_second_plain": (1 << a.N_plain) / _median(plain_c), "tables_equal": bool(same)}
    e = out["exact"]
    print(f"exact profile, N={a.N}: table-driven pass {_median(fast_s):.1f} s ({e['strings_per_second_fast']:.0f} "
          f"strings/s) | plain batched forward at N={a.N_plain}: {e['strings_per_second_plain']:.0f} strings/s "
          f"({e['strings_per_second_fast'] / e['strings_per_second_plain']:.2f}x); Boolean tables equal: {same}")
    print(f"  CPU time of the thread: fast {_median(fast_c):.1f} s ({e['cpu_strings_per_second_fast']:.0f} strings/s), "
          f"plain {e['cpu_strings_per_second_plain']:.0f} strings/s")
    cfg_s = TransformerConfig(D=a.D_sample, L=a.L, H=a.H, eps=0.0, N_max=max(64, a.N_sample))
    ms = random_model(cfg_s, "uniform", 0)
    x = sample_strings(a.N_sample, a.strings, torch.Generator().manual_seed(0))
    neighbour_sensitivities(ms, x[:1])
    samp_s, plain2_s, samp_c, plain2_c = [], [], [], []
    for _ in range(a.repeats):
        t, c = time.perf_counter(), time.thread_time()
        f1, s1 = neighbour_sensitivities(ms, x)
        samp_s.append(time.perf_counter() - t)
        samp_c.append(time.thread_time() - c)
        t, c = time.perf_counter(), time.thread_time()
        f2, s2 = _plain_sampled(ms, x)
        plain2_s.append(time.perf_counter() - t)
        plain2_c.append(time.thread_time() - c)
    same = torch.equal(s1, s2) and torch.equal(f1, f2)
    out["sampled"] = {"N": a.N_sample, "D": a.D_sample, "strings": a.strings, "seconds": samp_s,
                      "strings_per_second": a.strings / _median(samp_s),
                      "strings_per_minute": 60 * a.strings / _median(samp_s), "seconds_plain": plain2_s,
                      "strings_per_second_plain": a.strings / _median(plain2_s), "cpu_seconds": samp_c,
                      "cpu_strings_per_minute": 60 * a.strings / _median(samp_c), "cpu_seconds_plain": plain2_c,
                      "cpu_strings_per_minute_plain": 60 * a.strings / _median(plain2_c),
                      "sensitivities_equal": bool(same)}
    p = out["sampled"]
    print(f"sampled, N={a.N_sample}, D={a.D_sample}: {p['strings_per_second']:.2f} strings/s "
          f"({p['strings_per_minute']:.0f} per minute, each with its {a.N_sample} neighbours) | plain passes of 256 "
          f"sequences: {p['strings_per_second_plain']:.2f} strings/s; sensitivities equal: {same}")
    print(f"  CPU time of the thread: {p['cpu_strings_per_minute']:.0f} strings per CPU-minute "
          f"(plain {p['cpu_strings_per_minute_plain']:.0f})")
    res["speed"] = out
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m bench.transformer")
    ap.add_argument("--N", type=int, default=20)
    ap.add_argument("--N-naive", dest="N_naive", type=int, default=12)
    ap.add_argument("--D", type=int, default=32)
    ap.add_argument("--L", type=int, default=2)
    ap.add_argument("--H", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--N-plain", dest="N_plain", type=int, default=None,
                    help="length of the plain-pass comparison (default --N)")
    ap.add_argument("--N-sample", dest="N_sample", type=int, default=256)
    ap.add_argument("--D-sample", dest="D_sample", type=int, default=32)
    ap.add_argument("--strings", type=int, default=8, help="sampled strings (default 8)")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--speed-only", dest="speed_only", action="store_true")
    ap.add_argument("--json", metavar="FILE")
    a = ap.parse_args(argv)
    if a.N_plain is None:
        a.N_plain = a.N
    torch.set_num_threads(a.threads)
    if a.speed_only:
        res = {"config": {"D": a.D, "L": a.L, "H": a.H, "eps": 0.0, "init": "uniform"}, "threads": a.threads,
               "device": "cpu"}
        speed(a, res)
        if a.json:
            from verify.common.atomic_io import atomic_write_json

            atomic_write_json(a.json, res)
        return res
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
    speed(a, res)
    if a.json:
        from verify.common.atomic_io import atomic_write_json

        atomic_write_json(a.json, res)
    return res


if __name__ == "__main__":
    from verify.common.provenance import begin_script

    begin_script("bench.transformer")  # the provenance of what it writes
    main()
