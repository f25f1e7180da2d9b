"""The fragments of ``docs/performance.md`` rendered from ``docs/data/bench_profile.json``
(``python -m bench.profile``): where the proof-checking time goes, claim by claim in
``boolverify check`` and test by test in ``pytest theorems/``, as medians over the recorded runs."""

from __future__ import annotations

from pathlib import PurePosixPath

from verify.report.fragment_formats import markdown_table

PROFILE = "bench_profile.json"
XOR = "bench_xor.json"
#: tests listed one by one (the rest are summed per claim file)
SLOWEST_TESTS = 12


def _runs(part) -> str:
    return ", ".join(f"{s:.0f}" for s in part["total"]["seconds"])


def _setting(p) -> str:
    prov = p.get("provenance") or {}
    return (f"{p['repeats']} runs of each on {p['cpu'] or 'an unnamed CPU'} ({p['cores']} cores), commit "
            f"`{(prov.get('commit') or 'unknown')[:12]}`, {(prov.get('date') or 'unknown date')[:10]}")


def profile_setting(data) -> str:
    p = data.json(PROFILE)
    if "previous" not in p:
        return _setting(p)
    return f"after: {_setting(p)}; before: {_setting(p['previous'])}"


def _previous(p, part) -> dict:
    """The previous profile's ``part`` ("check" or "theorems"), empty when the file keeps none."""
    return (p.get("previous") or {}).get(part) or {}


def _before(p, part, key, name):
    """The previous profile's median of ``name`` (a claim or a test), or a dash."""
    entry = _previous(p, part).get(key, {}).get(name)
    return f"{entry['median']:.1f}" if entry else "–"


def profile_check_table(data) -> str:
    """Per claim, the median seconds in the check report (before and after a change when the file
    keeps the previous profile), its share of the claims' sum, and the check's own wall time."""
    p = data.json(PROFILE)
    check = p["check"]
    claims = sorted(check["claims"].items(), key=lambda kv: -kv[1]["median"])
    total = sum(c["median"] for _, c in claims)
    rows = [[cid, _before(p, "check", "claims", cid), f"{c['median']:.1f}", f"{100 * c['median'] / total:.0f} %",
             " / ".join(f"{s:.1f}" for s in c["seconds"])] for cid, c in claims]
    before = _previous(p, "check").get("total")
    rows.append(["**boolverify check, wall**", f"**{before['median']:.0f}**" if before else "–",
                 f"**{check['total']['median']:.0f}**", "", " / ".join(f"{s:.0f}" for s in check["total"]["seconds"])])
    return markdown_table(["claim", "before: median (s)", "median (s)", "share of the claims' sum", "each run (s)"],
                          rows)


def profile_theorems_table(data) -> str:
    """Per claim file, the sum of its tests' median seconds (before and after when the file keeps
    the previous profile), and the slowest tests one by one."""
    p = data.json(PROFILE)
    theorems = p["theorems"]
    tests = theorems["tests"]
    old = _previous(p, "theorems")

    def per_file(tests):
        out = {}
        for test, t in tests.items():
            name = PurePosixPath(test.split("::")[0]).name
            out[name] = out.get(name, 0.0) + t["median"]
        return out

    now, then = per_file(tests), per_file(old.get("tests", {}))
    total = sum(now.values())
    rows = [[f"`{name}`", f"{then[name]:.1f}" if name in then else "–", f"{s:.1f}", f"{100 * s / total:.0f} %"]
            for name, s in sorted(now.items(), key=lambda kv: -kv[1])]
    rows.append(["**pytest theorems/, wall**", f"**{old['total']['median']:.0f}**" if old else "–",
                 f"**{theorems['total']['median']:.0f}**", f"runs: {_runs(theorems)} s"])
    slowest = sorted(tests.items(), key=lambda kv: -kv[1]["median"])[:SLOWEST_TESTS]
    rows_tests = [[f"`{test.split('::', 1)[1]}`", PurePosixPath(test.split("::")[0]).name,
                   _before(p, "theorems", "tests", test), f"{t['median']:.1f}"] for test, t in slowest]
    return (markdown_table(["claim file", "before: sum of test medians (s)", "sum of test medians (s)", "share"], rows)
            + "\nThe slowest tests:\n"
            + markdown_table(["test", "file", "before: median (s)", "median (s)"], rows_tests))


def xor_small_d_table(data) -> str:
    """``python -m bench.xor``'s small-d rows: ``population_grad`` (the default path and the
    compiled one) against plain torch autograd through the closed form and a jitted JAX gradient
    (when the run had JAX), and the large-d gradient over one read of ``V``, with the machine named."""
    r = data.json(XOR)
    rows = []
    for row in r.get("small_d", []):
        has_jax = "t_jax" in row
        rows.append([f"{row['d']}", f"{row['m']}", f"{row['t_autograd'] * 1e6:.0f}",
                     f"{row['t_jax'] * 1e6:.0f}" if has_jax else "–",
                     f"{row['t_grad'] * 1e6:.0f}", f"{row['grad_over_autograd']:.2f}",
                     f"{row['grad_over_jax']:.2f}" if has_jax else "–",
                     f"{row['t_compiled'] * 1e6:.0f}", f"{row['compiled_over_autograd']:.2f}",
                     f"{row['compiled_over_jax']:.2f}" if has_jax else "–"])
    table = markdown_table(["d", "m", "torch autograd (µs)", "jitted JAX (µs)", "population_grad, auto (µs)",
                            "over autograd (goal ≤ 1.3)", "over JAX (goal ≤ 1.5)", "path='compiled' (µs)",
                            "over autograd", "over JAX"], rows)
    jax = next((row for row in r.get("small_d", []) if "jax" in row), None)
    peer = (f"JAX {jax['jax']}; its gradient differs from population_grad by at most "
            f"{max(row['jax_rel_diff'] for row in r['small_d'] if 'jax' in row):.1e} of the largest component"
            if jax else "JAX was not installed")
    loops = [row for row in r.get("small_d", []) if "t_jax_loop" in row]
    in_loops = ("" if not loops else
                "\nIn loops of consecutive calls (caches warm, as in a training loop; above, each call "
                "comes between calls of the other functions): population_grad takes "
                + ", ".join(f"{row['t_grad_loop'] * 1e6:.0f} µs at d = {row['d']}" for row in loops)
                + " against JAX's " + ", ".join(f"{row['t_jax_loop'] * 1e6:.0f}" for row in loops)
                + " µs: " + " / ".join(f"{row['grad_over_jax_loop']:.2f}" for row in loops) + "x.")
    compiled = max(row["compiled_rel_diff"] for row in r["small_d"])
    first = max(row["t_first_compiled_call"] for row in r["small_d"])
    faster = ("the faster of the two" if r["default_is_faster"]
              else f"not the faster of the two: the {r['faster_path']} path is faster here")
    return (f"{r['machine']}, {r['date']} ({peer}; the compiled path differs from the default by at most "
            f"{compiled:.1e} of the largest component, and its compilation at the run's first call took "
            f"{r.get('t_first_compiled_large', first):.1f} s):\n{table}{in_loops}\nAt d = {r['d']}, m = {r['m']} the gradient takes "
            f"**{r['grad_over_one_read']:.2f}x** one read of V (goal ≤ 2.0) on the path run by default, "
            f"{r['path']} ({r['path_reason']}; {faster}); forced, the one-pass path takes "
            f"{r['t_one_pass'] / r['t_one_read']:.2f}x, the two-pass path {r['two_pass_over_one_read']:.2f}x, "
            f"the compiled path {r['compiled_over_one_read']:.2f}x. The one read (the mat-vec `V θ`) took "
            f"{r['t_one_read'] * 1e3:.0f} ms, {r['one_read_over_two_columns']:.2f}x a product of `V` with both "
            f"queries ({r['t_two_columns'] * 1e3:.0f} ms), the fastest read of `V` measured here: against that "
            f"product the default takes {r['t_grad'] / r['t_two_columns']:.2f}x. The pull-back `W V` took "
            f"{r['t_pullback_torch'] * 1e3:.0f} ms on torch's BLAS and {r['t_pullback_numpy'] * 1e3:.0f} ms on "
            f"numpy's.")


__all__ = ["PROFILE", "XOR", "profile_setting", "profile_check_table", "profile_theorems_table", "xor_small_d_table"]
