"""Benchmark of the two-head engine: ``python -m bench.xor [--threads N] [--quick]``.

All numbers are measured in one run and reported as ratios (medians of repeats):

1. ``d = 10^6, m = 64``, float64, CPU: time of ``population_grad`` (both heads) over the time
   of the two mat-vecs ``V theta`` and ``V^T w`` (``ratio_grad_over_floor``, goal <= 3), and
   over one read of ``V`` (one mat-vec ``V theta``): ``grad_over_one_read`` (the one-pass
   gradient, goal <= 1.2) beside ``two_pass_over_one_read`` (the full-vector path that reads
   ``V`` twice, kept as the fallback). Which path ``population_grad`` ran on this machine and
   why (:mod:`numeric.xor`), and the time of both paths forced, so that the choice can be
   checked: ``default_is_faster``.
2. The speed-up over autograd through the expanded closed form (same ``d, m``).
3. The speed-up over a Monte-Carlo gradient with ``n = d`` samples at ``d = 10^4``.
4. A batched run of 256 seeds at ``d = 10^4`` (each seed its own ``V`` and init): seeds/s,
   and the ratio to the two batched mat-vecs over the same 1.3 GB of embeddings.
5. Small ``d`` (100, 1000, 10^4; ``m = 8``), where a call costs its dispatch more than its
   arithmetic: ``population_grad`` over plain torch autograd through the same closed form
   (``grad_over_autograd``, goal <= 1.3) and, where JAX is installed (a bench-only optional
   peer, never a dependency), over a jitted JAX gradient of it (``grad_over_jax``, goal <= 1.5),
   each call between calls of the others (caches cold: the harder case for a call that runs
   Python); beside it, both in loops of consecutive calls (``grad_over_jax_loop``, caches warm).

6. The compiled path (``path="compiled"``) beside the default at small ``d`` and at ``d = 10^6``,
   and the pull-back ``W V`` on torch's BLAS against numpy's. The full run records this
   machine's measured choices (one or two passes, which BLAS for the pull-back) in the
   calibration file that ``auto`` reads (:mod:`numeric.xor`).

Not a test: nothing here asserts on wall-clock time. numpy's BLAS runs on one thread (set here
before numpy is loaded, unless ``OPENBLAS_NUM_THREADS`` is set), as torch's does by default.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import torch  # noqa: E402  (after the BLAS thread setting)


def median_time(fn, repeats, warmup=1):
    """``(median, all times)`` in seconds of ``repeats`` calls of ``fn`` after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times


def _interleaved(fns, repeats):
    """Median wall and thread-CPU time of each function, the measurements interleaved so that
    load from other processes hits all of them alike (with one torch thread the work runs in
    this thread, so its CPU time is steadier on a shared machine)."""
    wall = {name: [] for name in fns}
    cpu = {name: [] for name in fns}
    for fn in fns.values():
        fn()
    for _ in range(repeats):
        for name, fn in fns.items():
            t0, c0 = time.perf_counter(), time.thread_time()
            fn()
            wall[name].append(time.perf_counter() - t0)
            cpu[name].append(time.thread_time() - c0)
    return ({k: statistics.median(v) for k, v in wall.items()},
            {k: statistics.median(v) for k, v in cpu.items()})


def _gradient_at_the_floor(d, m, support, gen, repeats):
    """Population gradient against the memory floor (two passes over V) and against autograd."""
    from numeric.xor import population_grad, sample_embeddings, sample_init

    V = sample_embeddings(d, m, generator=gen)
    th, tt = sample_init(m, generator=gen)
    w = torch.randn(d, dtype=torch.float64, generator=gen)

    def floor():
        torch.mv(V, th)
        torch.mv(V.T, w)

    def one_read():
        torch.mv(V, th)

    Th2 = torch.stack((th, tt))

    def two_columns():
        # V read once by a product with both queries (the logits of both heads)
        V @ Th2.T

    def two_pass():
        # the full-vector path: logits of both heads, cotangent W, then W V (V read twice)
        population_grad(V, th, tt, support, path="two-pass")

    def one_pass():
        population_grad(V, th, tt, support, path="one-pass")

    def compiled():
        population_grad(V, th, tt, support, path="compiled")

    from numeric.xor import weight_pullback

    W2 = torch.stack((w, w.flip(0)))

    t0 = time.perf_counter()
    compiled()      # compiled here (the process's first compilation), not in the timings
    first_compiled = time.perf_counter() - t0
    fns = {"floor": floor, "one_read": one_read, "two_columns": two_columns, "grad": lambda: population_grad(V, th, tt, support),
           "one_pass": one_pass, "two_pass": two_pass, "compiled": compiled,
           "pullback_torch": lambda: weight_pullback(V, W2, "torch"),
           "pullback_numpy": lambda: weight_pullback(V, W2, "numpy"),
           "autograd": _autograd_gradient(V, th, tt, support)}
    med, cmed = _interleaved(fns, repeats)
    res = dict(d=d, m=m, t_floor=med["floor"], t_grad=med["grad"], t_autograd=med["autograd"],
               cpu_floor=cmed["floor"], cpu_grad=cmed["grad"], cpu_autograd=cmed["autograd"],
               t_one_read=med["one_read"], t_two_pass=med["two_pass"], t_one_pass=med["one_pass"],
               cpu_one_read=cmed["one_read"], cpu_two_pass=cmed["two_pass"], cpu_one_pass=cmed["one_pass"])
    from numeric.xor import choose_path, resolve_path

    ran = resolve_path()
    res["path"], res["path_reason"], res["block_bytes"] = ran.path, ran.reason, ran.block_bytes
    res["t_two_columns"] = med["two_columns"]
    res["one_read_over_two_columns"] = res["t_one_read"] / res["t_two_columns"]
    res["t_pullback_torch"], res["t_pullback_numpy"] = med["pullback_torch"], med["pullback_numpy"]
    res["pullback_numpy_over_torch"] = med["pullback_numpy"] / med["pullback_torch"]
    res["t_compiled"], res["cpu_compiled"] = med["compiled"], cmed["compiled"]
    res["t_first_compiled_large"] = first_compiled
    res["compiled_over_one_read"] = res["t_compiled"] / res["t_one_read"]
    res["one_over_two_pass"] = res["t_one_pass"] / res["t_two_pass"]
    res["faster_path"] = choose_path(None, measured_ratio=res["one_over_two_pass"]).path
    res["default_is_faster"] = res["faster_path"] == ran.path
    res["grad_over_one_read"] = res["t_grad"] / res["t_one_read"]
    res["two_pass_over_one_read"] = res["t_two_pass"] / res["t_one_read"]
    res["cpu_grad_over_one_read"] = res["cpu_grad"] / res["cpu_one_read"]
    res["cpu_two_pass_over_one_read"] = res["cpu_two_pass"] / res["cpu_one_read"]
    res["ratio_grad_over_floor"] = res["t_grad"] / res["t_floor"]
    res["cpu_ratio_grad_over_floor"] = res["cpu_grad"] / res["cpu_floor"]
    res["speedup_over_autograd"] = res["t_autograd"] / res["t_grad"]
    res["cpu_speedup_over_autograd"] = res["cpu_autograd"] / res["cpu_grad"]
    return res, th, tt


def _autograd_gradient(V, th, tt, support):
    """Plain torch autograd through the expanded closed form: both heads' gradients, one call."""
    from numeric.xor import attention_weights, closed_form_loss

    def run():
        a = th.detach().clone().requires_grad_()
        b = tt.detach().clone().requires_grad_()
        closed_form_loss(attention_weights(V, a), attention_weights(V, b), support).backward()
    return run


def _jax_gradient(V, th, tt, support):
    """A jitted JAX gradient of the same closed form (softmax attention), or None without JAX:
    the independent peer of the cross-validation, a bench-only optional import."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    a, b = support

    def loss(theta, theta_tilde, V):
        # numeric.xor.closed_form_loss of the two softmax heads, written in jax.numpy
        g, t = jax.nn.softmax(V @ theta), jax.nn.softmax(V @ theta_tilde)
        cross = g[a] * t[b] + g[b] * t[a]
        return (g @ g) * (t @ t) + 2 * (g @ t) ** 2 - 2 * ((g * t) @ (g * t)) - 2 * cross + 1

    step = jax.jit(jax.grad(loss, argnums=(0, 1)))
    args = tuple(jnp.asarray(x.numpy()) for x in (th, tt, V))

    def run():
        return jax.block_until_ready(step(*args))
    run.version = jax.__version__
    return run


#: interleaved calls of each function per size at small d: a call takes 0.1-1 ms, and JAX's wall
#: time (its work runs on its own thread pool) varies by half from run to run with 50 of them
SMALL_D_REPEATS = 400
#: the loop measurement at small d: rounds of blocks of consecutive calls of one function
LOOP_ROUNDS, LOOP_BLOCK = 40, 25


def _in_loops(fns, rounds=LOOP_ROUNDS, block=LOOP_BLOCK):
    """Median time per call of each function in blocks of ``block`` consecutive calls (its code and
    data stay in cache, as in a training loop), the blocks of all functions taken in turn."""
    times = {name: [] for name in fns}
    for fn in fns.values():
        for _ in range(block):
            fn()
    for _ in range(rounds):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(block):
                fn()
            times[name].append((time.perf_counter() - t0) / block)
    return {k: statistics.median(v) for k, v in times.items()}


def _small_d_gradients(m, support, gen, repeats, ds=(100, 1000, 10 ** 4)):
    """``population_grad`` where a step is cheap, against plain torch autograd through the same
    closed form (the floor of a reimplementation) and a jitted JAX gradient when JAX is installed:
    at these sizes a call costs its validation and dispatch more than its arithmetic."""
    import numpy as np

    from numeric.xor import population_grad, sample_embeddings, sample_init

    rows = []
    for d in ds:
        V = sample_embeddings(d, m, generator=gen)
        th, tt = sample_init(m, generator=gen)

        fns = {"grad": lambda: population_grad(V, th, tt, support),
               "compiled": lambda: population_grad(V, th, tt, support, path="compiled"),
               "autograd": _autograd_gradient(V, th, tt, support)}
        t0 = time.perf_counter()
        population_grad(V, th, tt, support, path="compiled")      # compiled here, not in the timings
        first_compiled_call = time.perf_counter() - t0
        jax_run = _jax_gradient(V, th, tt, support)
        if jax_run is not None:
            fns["jax"] = jax_run
        med, _ = _interleaved(fns, max(repeats, SMALL_D_REPEATS))
        ours = torch.cat(population_grad(V, th, tt, support))
        compiled = torch.cat(population_grad(V, th, tt, support, path="compiled"))
        row = {"d": d, "m": m, "t_grad": med["grad"], "t_autograd": med["autograd"],
               "grad_over_autograd": med["grad"] / med["autograd"], "t_compiled": med["compiled"],
               "compiled_over_autograd": med["compiled"] / med["autograd"],
               "t_first_compiled_call": first_compiled_call,
               "compiled_rel_diff": float((compiled - ours).abs().max() / ours.abs().max())}
        if "jax" in med:
            theirs = torch.cat([torch.as_tensor(np.asarray(g)) for g in jax_run()])
            row.update(t_jax=med["jax"], grad_over_jax=med["grad"] / med["jax"], jax=jax_run.version,
                       compiled_over_jax=med["compiled"] / med["jax"],
                       jax_rel_diff=float((ours - theirs).abs().max() / ours.abs().max()))
            loop = _in_loops({"grad": fns["grad"], "jax": jax_run})
            row.update(t_grad_loop=loop["grad"], t_jax_loop=loop["jax"],
                       grad_over_jax_loop=loop["grad"] / loop["jax"])
        rows.append(row)
    return {"small_d": rows}


def _against_monte_carlo(d2, m, th, tt, support, gen, repeats):
    """Closed-form gradient against the Monte-Carlo gradient with n = d samples."""
    from numeric.xor import empirical_grad, population_grad, sample_data, sample_embeddings

    V2 = sample_embeddings(d2, m, generator=gen)
    X, y = sample_data(d2, d2, support, generator=gen)
    res = {"d_mc": d2}
    res["t_grad_mc_d"], _ = median_time(lambda: population_grad(V2, th, tt, support), repeats)
    res["t_mc"], _ = median_time(lambda: empirical_grad(V2, th, tt, X, y), max(3, repeats // 2))
    res["speedup_over_mc"] = res["t_mc"] / res["t_grad_mc_d"]
    return res


def _batched_seeds(d2, m, seeds, support, gen, repeats):
    """Many seeds in one batched call, against the batched memory floor."""
    from numeric.xor import population_grad, sample_embeddings, sample_init

    Vb = sample_embeddings(d2, m, batch_shape=(seeds,), generator=gen)
    thb, ttb = sample_init(m, batch_shape=(seeds,), generator=gen)
    wb = torch.randn(seeds, d2, dtype=torch.float64, generator=gen)

    def floor_b():
        torch.matmul(Vb, thb.unsqueeze(-1))
        torch.matmul(wb.unsqueeze(-2), Vb)

    tb_floor, tb = [], []
    floor_b()
    population_grad(Vb, thb, ttb, support)
    for _ in range(max(3, repeats // 2)):
        for fn, acc in ((floor_b, tb_floor), (lambda: population_grad(Vb, thb, ttb, support), tb)):
            t0 = time.perf_counter()
            fn()
            acc.append(time.perf_counter() - t0)
    t_b = statistics.median(tb)
    res = dict(seeds=seeds, t_batched=t_b, seeds_per_s=seeds / t_b,
               t_batched_floor=statistics.median(tb_floor))
    res["ratio_batched_over_floor"] = t_b / res["t_batched_floor"]
    return res


def cpu_description() -> str:
    """The CPU's model name and last-level cache, as the OS reports them."""
    from numeric.machine import machine_key

    return machine_key()


def run(threads=1, quick=False, repeats=7):
    """All measurements, as one dict of times (s) and ratios (same run, same machine)."""
    torch.set_num_threads(threads)
    gen = torch.Generator().manual_seed(0)
    res = {"threads": threads, "date": datetime.date.today().isoformat(), "cpu": cpu_description(),
           "machine": f"{cpu_description()}, {torch.get_num_threads()} torch thread(s), "
                      f"torch {torch.__version__}"}
    d, m = (10 ** 5, 64) if quick else (10 ** 6, 64)
    support = (3, 17)
    floor, th, tt = _gradient_at_the_floor(d, m, support, gen, repeats)
    res.update(floor)
    if not quick:
        # the measured choice of later processes' auto path (numeric.xor._path)
        from bench.calibration import write_calibration

        res["calibration_file"] = str(write_calibration(
            res["one_over_two_pass"], pullback_numpy_over_torch=res["pullback_numpy_over_torch"], d=d, m=m,
            date=res["date"]))
    d2 = 10 ** 4 if not quick else 2000
    res.update(_against_monte_carlo(d2, m, th, tt, support, gen, repeats))
    res.update(_batched_seeds(d2, m, 256 if not quick else 32, support, gen, repeats))
    res.update(_small_d_gradients(8, support, gen, repeats, ds=(100, 1000) if quick else (100, 1000, 10 ** 4)))
    return res


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    p.add_argument("--quick", action="store_true", help="small sizes (smoke run)")
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--json", metavar="FILE", help="also write the numbers to FILE (atomically)")
    args = p.parse_args(argv)
    r = run(args.threads, args.quick, args.repeats)
    if args.json:
        from verify.common.atomic_io import atomic_write_json

        atomic_write_json(args.json, r)
    print(f"bench.xor  {r['date']}  {r['machine']}")
    print(f"population_grad, d={r['d']}, m={r['m']}, float64 CPU (medians of {args.repeats}):")
    print("  (wall / CPU time of this thread)")
    print(f"  two mat-vecs V@theta, V^T@w : {r['t_floor'] * 1e3:9.1f} / {r['cpu_floor'] * 1e3:.1f} ms")
    print(f"  population_grad (both heads): {r['t_grad'] * 1e3:9.1f} / {r['cpu_grad'] * 1e3:.1f} ms"
          f"   ratio {r['ratio_grad_over_floor']:.2f} / {r['cpu_ratio_grad_over_floor']:.2f}"
          " (goal <= 3)")
    print(f"  one read of V (V@theta)     : {r['t_one_read'] * 1e3:9.1f} / {r['cpu_one_read'] * 1e3:.1f} ms")
    print(f"  V @ [theta, theta~]^T       : {r['t_two_columns'] * 1e3:9.1f} ms   (the mat-vec takes "
          f"{r['one_read_over_two_columns']:.2f}x this product)")
    print(f"  grad_over_one_read          : {r['grad_over_one_read']:9.2f} / "
          f"{r['cpu_grad_over_one_read']:.2f}   (two-pass path: {r['two_pass_over_one_read']:.2f} / "
          f"{r['cpu_two_pass_over_one_read']:.2f}; goal <= 1.2)")
    print(f"  path run by default         : {r['path']} ({r['path_reason']})")
    print(f"  one-pass path (forced)      : {r['t_one_pass'] * 1e3:9.1f} / {r['cpu_one_pass'] * 1e3:.1f} ms")
    print(f"  two-pass path (forced)      : {r['t_two_pass'] * 1e3:9.1f} / {r['cpu_two_pass'] * 1e3:.1f} ms"
          f"   one/two {r['one_over_two_pass']:.2f}: {r['faster_path']} is faster here; default "
          f"{'is' if r['default_is_faster'] else 'is NOT'} the faster path")
    print(f"  pull-back W V, torch / numpy: {r['t_pullback_torch'] * 1e3:9.1f} / {r['t_pullback_numpy'] * 1e3:.1f} ms"
          f"   (numpy over torch {r['pullback_numpy_over_torch']:.2f}; the calibration picks the faster)")
    print(f"  compiled path (forced)      : {r['t_compiled'] * 1e3:9.1f} / {r['cpu_compiled'] * 1e3:.1f} ms"
          f"   over one read {r['compiled_over_one_read']:.2f}")
    print(f"  autograd through closed form: {r['t_autograd'] * 1e3:9.1f} / "
          f"{r['cpu_autograd'] * 1e3:.1f} ms   speed-up {r['speedup_over_autograd']:.2f}x / "
          f"{r['cpu_speedup_over_autograd']:.2f}x")
    print(f"Monte-Carlo gradient, n = d = {r['d_mc']}: {r['t_mc'] * 1e3:.1f} ms vs "
          f"population_grad {r['t_grad_mc_d'] * 1e3:.2f} ms   speed-up {r['speedup_over_mc']:.0f}x")
    print(f"batched: {r['seeds']} seeds, d = {r['d_mc']}, m = {r['m']}: {r['t_batched'] * 1e3:.0f} ms"
          f" per call, {r['seeds_per_s']:.0f} seeds/s; ratio to the two batched mat-vecs "
          f"{r['ratio_batched_over_floor']:.2f}")
    print("small d, m = 8 (medians of interleaved calls): population_grad against torch autograd through the "
          "closed form (goal <= 1.3) and a jitted JAX gradient (goal <= 1.5)")
    for row in r["small_d"]:
        jax = (f"   JAX {row['t_jax'] * 1e6:7.0f} us   ratio {row['grad_over_jax']:.2f}" if "t_jax" in row
               else "   JAX not installed")
        print(f"  d = {row['d']:>6}: population_grad {row['t_grad'] * 1e6:7.0f} us   autograd "
              f"{row['t_autograd'] * 1e6:7.0f} us   ratio {row['grad_over_autograd']:.2f}{jax}")
        if "t_jax_loop" in row:
            print(f"  {'':>10}  in a loop: population_grad {row['t_grad_loop'] * 1e6:7.0f} us   JAX "
                  f"{row['t_jax_loop'] * 1e6:7.0f} us   ratio {row['grad_over_jax_loop']:.2f}")
        cjax = f", over JAX {row['compiled_over_jax']:.2f}" if "t_jax" in row else ""
        print(f"  {'':>10}  path='compiled' {row['t_compiled'] * 1e6:7.0f} us   over autograd "
              f"{row['compiled_over_autograd']:.2f}{cjax}   (first call {row['t_first_compiled_call']:.1f} s)")
    return r


if __name__ == "__main__":
    from verify.common.provenance import begin_script

    begin_script("bench.xor")  # the provenance of what it writes
    main()
