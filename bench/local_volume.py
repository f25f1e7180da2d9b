"""Benchmark: evaluation of perturbed models for the local volume, as formalised in boolverify.

    python -m bench.local_volume [--N 12] [--function parity] [--models 128] [--loop-models 8]
                                 [--threads 1] [--repeats 3] [--json FILE]

Reports perturbed models per second over all 2^N strings, measured in one run (median of
``--repeats``; wall time and the process's CPU time, which a busy machine disturbs less):

- batched: :func:`numeric.transformer.volume_point` (draw ``--models`` perturbations, the
  batched one-layer pass of :func:`numeric.transformer.batched_outputs`, compare with the table);
- loop: the same perturbations one model at a time, each loaded into a
  :class:`~numeric.transformer.BooleanTransformer` and evaluated by
  :func:`numeric.transformer.evaluate_all` (``--loop-models`` of them);

and that both give the same Boolean tables on the looped models. The CPU is named (``lscpu``).
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import time

import torch

from numeric.boolean import truth_table
from numeric.transformer import construct
from numeric.transformer import (
    batched_outputs, kept_values, load_parameters, perturbed_parameters, volume_point,
)
from numeric.transformer import BooleanTransformer, evaluate_all


def cpu_name() -> str:
    """The CPU's model name (``lscpu``; the platform's processor string if that fails)."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
        for line in out.splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return platform.processor() or "unknown"


def _timed(fn, repeats):
    walls, cpus = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return sorted(walls)[len(walls) // 2], sorted(cpus)[len(cpus) // 2]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m bench.local_volume")
    ap.add_argument("--N", type=int, default=12)
    ap.add_argument("--function", default="parity")
    ap.add_argument("--sigma", type=float, default=3e-3)
    ap.add_argument("--models", type=int, default=128)
    ap.add_argument("--loop-models", dest="loop_models", type=int, default=8)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", metavar="FILE")
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    model = construct(a.function, a.N)
    table = truth_table(a.function, a.N)

    def batched():
        volume_point(model, table, a.N, a.sigma, a.models, torch.Generator().manual_seed(0))

    theta = perturbed_parameters(model, a.sigma, a.loop_models, torch.Generator().manual_seed(1))
    copy = BooleanTransformer(model.config)

    def loop():
        for k in range(a.loop_models):
            kept_values(evaluate_all(load_parameters(copy, theta, k), a.N).unsqueeze(0), table)

    batched_outputs(model, perturbed_parameters(model, a.sigma, 2, torch.Generator()), 4)  # warm-up
    bw, bc = _timed(batched, a.repeats)
    lw, lc = _timed(loop, a.repeats)
    Tb = batched_outputs(model, theta, a.N)
    same = all(torch.equal(Tb[k] > 0, evaluate_all(load_parameters(copy, theta, k), a.N) > 0)
               for k in range(a.loop_models))
    res = {
        "cpu": cpu_name(), "threads": a.threads, "N": a.N, "function": a.function, "sigma": a.sigma,
        "config": {"D": model.config.D, "L": model.config.L, "H": model.config.H, "F": model.config.F},
        "batched": {"models": a.models, "seconds": bw, "cpu_seconds": bc, "models_per_second": a.models / bw,
                    "models_per_cpu_second": a.models / bc},
        "loop": {"models": a.loop_models, "seconds": lw, "cpu_seconds": lc, "models_per_second": a.loop_models / lw,
                 "models_per_cpu_second": a.loop_models / lc},
        "speedup_wall": (a.models / bw) / (a.loop_models / lw), "speedup_cpu": (a.models / bc) / (a.loop_models / lc),
        "tables_equal": bool(same),
    }
    print(f"{res['cpu']}, {a.threads} thread(s); {a.function} construction at N = {a.N} "
          f"(D={model.config.D}, L=1, F={model.config.F}), sigma = {a.sigma:g}:")
    print(f"  batched: {res['batched']['models_per_second']:.1f} models/s "
          f"({res['batched']['models_per_cpu_second']:.1f} per CPU-second), {a.models} models")
    print(f"  loop:    {res['loop']['models_per_second']:.2f} models/s "
          f"({res['loop']['models_per_cpu_second']:.2f} per CPU-second), {a.loop_models} models")
    print(f"  speedup {res['speedup_wall']:.1f}x wall, {res['speedup_cpu']:.1f}x CPU; tables equal: {same}")
    if a.json:
        from verify.common.atomic_io import atomic_write_json

        atomic_write_json(a.json, res)
    return res


if __name__ == "__main__":
    from verify.common.provenance import begin_script

    begin_script("bench.local_volume")  # the provenance of what it writes
    main()
