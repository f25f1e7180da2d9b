"""The rendered fragments of paper B's claims (SG-2 to SG-9 and Theorem 4.5): the sentences and tables
of README.md, ``docs/results-paper-b.md`` and ``docs/results-boolean.md``, each ``render(data)``
over a :class:`~verify.report.fragments.DataCache`.
"""

from __future__ import annotations

import math

from verify.report.fragment_formats import markdown_table, signed_number


def _volume_curves(data, name="local_volume.json"):
    curves = {}
    for c in data.json(name)["curves"]:
        curves.setdefault(c["function"], {})[c["N"]] = c
    return curves


def _radius(c) -> str:
    lo, hi = c["radius_range"]
    return f"{c['radius']:#.3g} [{lo:#.3g}, {hi:#.3g}]"


def volume_table(name):
    def render(data):
        curves = _volume_curves(data, name)
        functions = sorted(curves)
        Ns = sorted({N for f in functions for N in curves[f]})
        lines = ["| N | " + " | ".join(f"r_{f.upper()}" for f in functions) + " |", "|---" * (len(functions) + 1) + "|"]
        for N in Ns:
            lines.append(f"| {N} | " + " | ".join(_radius(curves[f][N]) if N in curves[f] else "—"
                                                   for f in functions) + " |")
        return "\n" + "\n".join(lines) + "\n"
    return render


def volume_slopes(data):
    import numpy as np

    curves = _volume_curves(data)
    parts = []
    for f in sorted(curves):
        Ns = sorted(curves[f])
        slope = np.polyfit(np.log(Ns), np.log([curves[f][N]["radius"] for N in Ns]), 1)[0]
        parts.append(f"{f.upper()} {slope:.2g}".replace("-", "−"))
    Ns = sorted({N for f in curves for N in curves[f]})
    return f"Log-log slopes of `r_f(N)` over `N = {Ns[0]} … {Ns[-1]}`: " + ", ".join(parts)


def parity_radii(data):
    parity = _volume_curves(data)["parity"]
    Ns = [N for N in sorted(parity) if N % 4 == 0]
    return (", ".join(f"{parity[N]['radius']:.2g}" for N in Ns) + " at `N` = " + ", ".join(map(str, Ns)))


def certified_at_8(data):
    cert = {c["function"]: c for c in data.json("certified_volume.json")["certified"] if c["N"] == 8}
    curves = _volume_curves(data, "certified_volume.json")
    functions = sorted(cert)
    widths = ", ".join(f"{cert[f]['half_width']:.2g}" for f in functions)
    shares = [cert[f]["half_width"] / curves[f][8]["radius"] for f in functions]
    return (f"`h` = {widths} for {', '.join(f.upper() for f in functions)} at `N = 8`, "
            f"{100 * min(shares):.0f}–{100 * max(shares):.0f} % of the sampled radius")


def _learned(data, name):
    """Per target and N of an SG-8 file: (runs that learned, runs, mean accuracy), learned
    meaning the exact accuracy reaches the claim's threshold for that target."""
    from verify.experiments.claim_rules import SG8

    out = {}
    for s in data.json(name)["summary"].values():
        threshold = SG8.learned_parity if s["target"] == "parity" else SG8.learned_held_out
        acc = s["accuracy"]
        out[(s["target"], s["N"])] = (sum(a >= threshold for a in acc), len(acc), sum(acc) / len(acc))
    return out


def _steps(data, name):
    steps = {r["steps"] for r in data.json(name)["runs"]}
    return "/".join(map(str, sorted(steps)))


def sg8_training(data):
    learned = _learned(data, "sg8_training.json")
    easy = [t for t in ("majority", "first") if all(k == n for (tt, _), (k, n, _) in learned.items() if tt == t)]
    easy_Ns = sorted({N for (t, N) in learned if t in easy})
    failed = sorted(N for (t, N), (k, n, _) in learned.items() if t == "parity" and k == 0)
    means = [learned[("parity", N)][2] for N in failed]
    lowest = min(a for r in data.json("sg8_training.json")["runs"] if r["target"] in easy for a in [r["accuracy"]])
    text = (f"{' and '.join(t.upper() for t in easy)} reach accuracy {lowest:.1f} at `N` = "
            f"{', '.join(map(str, easy_Ns))} in every run") if lowest == 1 else (
        f"{' and '.join(t.upper() for t in easy)} learn at `N` = {', '.join(map(str, easy_Ns))} (lowest accuracy "
        f"{lowest:.3f})")
    if failed:
        text += (f"; PARITY fails at `N` = {', '.join(map(str, failed))} (mean accuracy "
                 f"{min(means):.2f}–{max(means):.2f} with {_steps(data, 'sg8_training.json')} steps)")
    return text


def sg8_transition(data):
    from verify.experiments.claim_rules import SG8

    learned = _learned(data, "sg8_parity_transition.json")
    parts = [f"`N = {N}` in {k} of {n}" for (t, N), (k, n, _) in sorted(learned.items()) if t == "parity"]
    return (f"with {_steps(data, 'sg8_parity_transition.json')} steps it is learned (exact accuracy ≥ "
            f"{SG8.learned_parity:g}) at " + ", ".join(parts))


def sg8_pilot(data):
    from verify.experiments.claim_rules import SG8

    pilot = SG8.pilot
    return (f"PARITY at `N = {SG8.parity_long_N}` reached {SG8.learned_parity:g} in {pilot['parity_long'][0]} of "
            f"{pilot['parity_long'][1]} runs, the 2-sparse parity in {pilot['parity01_long'][0]} of "
            f"{pilot['parity01_long'][1]} and FIRST in {pilot['first_long'][0]} of {pilot['first_long'][1]}")


_SG8_NAMES = {"majority": "MAJORITY", "first": "FIRST", "parity": "PARITY", "parity01": "parity of bits 0, 1"}


def sg8_decisions(data):
    """The table of ``sg8_decisions.json``: per SG-8 decision its settings, the runs that pass
    their per-run threshold at the deciding look, the interval and the outcome."""
    report = data.json("sg8_decisions.json")
    rows = []
    for name, d in report["decisions"].items():
        look = d["looks_taken"][-1]
        lo, hi = look["interval"]
        if name == "profiles":
            what, setting = "profiles (pooled first looks)", "the MAJORITY, FIRST and long-N PARITY runs"
            per_run = f"as ≤ {d['threshold']:g} N"
        else:
            what = f"{_SG8_NAMES.get(d['target'], d['target'])} `N = {d['N']}`" + (
                " (control)" if name.endswith("_long") and d["target"] != "parity" else "")
            setting = f"{d['steps']} steps of batch {d['batch_size']}" + (
                f", {d['train_strings']} fixed strings" if d["train_strings"] else "")
            per_run = f"{'held-out' if d['quantity'] == 'held_out_accuracy' else 'exact'} accuracy ≥ {d['threshold']:g}"
        claim = "p > 1/2" if d["side"] == "lower" else "p < 1/2"
        looks = f"{len(d['looks_taken'])} of {len(d.get('looks', [look['runs']]))}"
        rows.append([what, setting, per_run, claim, f"{look['hits']} of {look['runs']}", looks,
                     f"[{lo:.3f}, {hi:.3f}] ({100 * look['level']:.2f} %)", d["outcome"]])
    rules = report["rules"]
    return (f"\nTrained in {report['dtype']} at seed base {report['seed_base']}; the interval of `p` is the pair of "
            f"one-sided {100 * rules['level']:g} % Clopper-Pearson bounds at the deciding look, the level split over "
            f"the cell's looks (Bonferroni); the threshold of `p` is {rules['most_runs']:g}.\n"
            + markdown_table(["decision", "training", "a run counts when", "claim", "runs that count",
                              "looks taken", "interval of p", "outcome"], rows))


#: the trained-solution files of SG-9 (N = 4 .. 10, and the N = 12 subset grid)
TRAINED_FILES = ("local_volume_trained.json", "local_volume_trained_N12.json")


def trained_table(data):
    constructed = _volume_curves(data)
    lines = ["| function | N | runs (seed) | trained r [bracket] | s/curve | constructed r [bracket] | "
             "trained / constructed |", "|---|---|---|---|---|---|---|"]
    for name in TRAINED_FILES:
        trained = _volume_curves(data, name)
        for t in data.json(name)["training"]:
            f, N = t["function"], t["N"]
            built = constructed.get(f, {}).get(N)
            built_text = _radius(built) if built else "—"
            curve = trained.get(f, {}).get(N)
            if curve is None:
                lines.append(f"| {f.upper()} | {N} | none of {t['tries']} | — | — | {built_text} | — |")
                continue
            ratio = f"{curve['radius'] / built['radius']:.2f}" if built else "—"
            lines.append(f"| {f.upper()} | {N} | {t['tries']} ({t['seed']}) | {_radius(curve)} | "
                         f"{curve['seconds']:.0f} | {built_text} | {ratio} |")
    return "\n" + "\n".join(lines) + "\n"


def _sig3(x) -> str:
    """Three significant digits in positional notation (0.0000888, not 8.88e-05)."""
    return f"{x:.{max(0, 2 - math.floor(math.log10(abs(x))))}f}" if x else "0"


def certified_table(data):
    cert = {}
    for c in data.json("certified_volume.json")["certified"]:
        cert.setdefault(c["N"], {})[c["function"]] = c
    curves = _volume_curves(data, "certified_volume.json")
    functions = sorted({f for row in cert.values() for f in row})
    lines = ["| N | M | " + " | ".join(f"h_{f.upper()} (r)" for f in functions) + " | log-volume M log(2h): "
             + ", ".join(f.upper() for f in functions) + " |", "|---" * (len(functions) + 3) + "|"]
    for N, row in sorted(cert.items()):
        M = next(iter(row.values()))["n_params"]
        cells = [f"{_sig3(row[f]['half_width'])} ({_sig3(curves[f][N]['radius'])})" for f in functions]
        volumes = ", ".join(signed_number(row[f]["log_volume"], 0) for f in functions)
        lines.append(f"| {N} | {M} | " + " | ".join(cells) + f" | {volumes} |")
    return "\n" + "\n".join(lines) + "\n"


def sg9_constructed_order(data):
    curves = _volume_curves(data)
    first = [c["radius"] for c in curves["first"].values()]
    majority = [curves["majority"][N]["radius"] for N in sorted(curves["majority"])]
    return (f"FIRST's radius is nearly flat ({min(first):.2g}–{max(first):.2g}) and **above** MAJORITY's "
            f"({majority[0]:.2g} … {majority[-1]:.2g})")


def sg9_trained_summary(data):
    trained = {}
    for name in TRAINED_FILES:
        for f, by_N in _volume_curves(data, name).items():
            trained.setdefault(f, {}).update(by_N)
    parts = []
    for f in ("parity", "majority", "first"):
        Ns = sorted(trained[f])
        r = [trained[f][N]["radius"] for N in Ns]
        parts.append(f"{f.upper()} {r[0]:.2g} at `N = {Ns[0]}` … {r[-1]:.2g} at `N = {Ns[-1]}` (range "
                     f"{min(r):.2g}–{max(r):.2g})")
    second = _volume_curves(data, "local_volume_trained_seed10.json")
    factor = max(max(a, b) / min(a, b) for f, by_N in second.items() for N, c in by_N.items()
                 for a, b in [(c["radius"], trained[f][N]["radius"])])
    return "; ".join(parts) + f"; a second training seed moves a radius by a factor of up to {factor:.1f}"


def theorem45_crossover(data):
    p = data.json("theorem45.json")["preset_bhattamishra"]["params"]
    return f"crossover `N* = {p['N_star']}` for `(D, L) = ({p['D']}, {p['L']})`"


def _by_N(mapping):
    return sorted(mapping.items(), key=lambda kv: int(kv[0]))


def sg2_exact_table(data):
    return markdown_table(["N", "functions", "`P(K_0 ≥ 1)`", "float", "`E[K_0]`", "`Var[K_0]` (= formula)"],
                  [[N, e["functions"], e["p_K0_ge_1"], f"{e['p_float']:.7g}", e["E_K0"], e["Var_K0"]]
                   for N, e in _by_N(data.json("sg2_random_functions.json")["exact"])])


def sg2_monte_carlo_table(data):
    return markdown_table(["N", "`P̂(K_0 ≥ 1)`", "95% Wilson", "mean `K_0`"],
                  [[N, f"{r['p_hat']:.4f}", f"[{r['wilson'][0]:.4f}, {r['wilson'][1]:.4f}]", f"{r['mean_K0']:.4f}"]
                   for N, r in _by_N(data.json("sg2_random_functions.json")["monte_carlo"])])


def sg2_monte_carlo_plan(data):
    mc = list(data.json("sg2_random_functions.json")["monte_carlo"].values())
    samples = sorted({r["samples"] for r in mc})
    offset = {r["seed"] - r["N"] for r in mc}
    seed = f"seed\n{offset.pop()} + N" if len(offset) == 1 else "a seed per N"
    return f"{'/'.join(map(str, samples))} functions per N, {seed}"


def sg6_table(data):
    sg6 = data.json("sg6_random_profiles.json")
    schemes = list(sg6["results"])
    rows = []
    for N in sg6["settings"]["Ns"]:
        cells = [sg6["results"][s][str(N)] for s in schemes]
        rand = cells[0]
        rows.append([N, sg6["settings"]["models"][str(N)]] + [
            f"{c['frac_K0_ge_1']:.3f} / {c['mean_K0_frac']:.3f} / {c['frac_constant']:.2f} / {c['mean_avg_sensitivity']:.3f}"
            for c in cells] + [f"≈{rand['random_function_P_K0_ge_1']:.2f} / {rand['random_function_mean_K0_frac']:.1e} / 0 / "
                               f"{N / 2:.1f}"])
    return markdown_table(["N", "models", *schemes, "random function"], rows)


def sg6_d32_table(data):
    d32 = data.json("sg6_random_profiles.json")["D32"]
    rows = [[s, c["models"], f"{c['frac_K0_ge_1']:.3f} [{c['frac_K0_ge_1_ci95'][0]:.3f}, {c['frac_K0_ge_1_ci95'][1]:.3f}]",
             c["min_K0"], f"{c['mean_K0_frac']:.3f}", f"{c['frac_constant']:.2f}", f"{c['mean_avg_sensitivity']:.3f}"]
            for s, c in d32["results"].items()]
    return markdown_table(["init", "models", "fraction `K_0 ≥ 1` [95% Wilson]", "min `K_0`", "mean `K_0/2^N`",
                   "fraction constant", "mean avg. sensitivity"], rows)


def sg4_table(data):
    import numpy as np

    sg4 = data.json("sg4_influence.json")
    influence = np.array(sg4["influence"])  # models x N
    geo = np.exp(np.log(influence).mean(axis=0))
    Ns = sg4["Ns"]
    return markdown_table(["N", *Ns], [["geometric mean", *(f"{g:.2e}" for g in geo)],
                               ["max over models", *(f"{m:.2e}" for m in influence.max(axis=0))],
                               ["N × geo. mean", *(f"{N * g:.2f}" for N, g in zip(Ns, geo))]])


def sg4_slopes(data):
    import numpy as np

    sg4 = data.json("sg4_influence.json")
    per_model = sg4["slope_per_model"]
    lo1, hi1 = sg4["slope_interval_rule1"]
    lo2, hi2 = sg4["slope_interval_rule2"]
    level = sg4["level"]
    return (f"**{signed_number(sg4['slope_mean_log'], 3)}** over {len(per_model)} models, one-sided "
            f"{level:.0%} upper bound {signed_number(hi1, 3)} (rule 1), two-sided {level:.0%} interval "
            f"[{signed_number(lo2, 3)}, {signed_number(hi2, 3)}] (rule 2); per-model slopes "
            f"{signed_number(min(per_model))} … {signed_number(max(per_model))}, median "
            f"{signed_number(float(np.median(per_model)))}; slope of the max over models {signed_number(sg4['slope_of_max'])}")


def sg5_table(data):
    sg5 = data.json("sg5_margin.json")
    rows = []
    for xi, counts in sg5["counts"].items():
        rows.append([f"{xi} (non-constant)", *counts["nonconstant"]])
        rows.append([f"{xi} (any function)", *counts["recognises"]])
    return markdown_table(["ξ", *(f"N={N}" for N in sg5["Ns"])], rows)


def theorem45_table(data):
    rows = []
    for c in data.json("theorem45.json")["cells"].values():
        rows.append([c["scheme"], c["N"], c["S"], f"{c['log2_Na']:.1f}", c["draws"],
                     f"{c['looked_constant_pilot']} + {c['looked_constant_sample']}", c["nonconstant"], c["k0_observed"],
                     f"**{c['bound_holds']}/{c['nonconstant']}**", f"{c['median_log2_K0_lower']:.1f}", f"{c['seconds']:.0f}"])
    return markdown_table(["scheme", "N", "S", "log2 N^a", "drawn", "looked constant (pilot + sample)", "non-constant",
                   "K_0 seen", "bound met", "median log2 K_0 lower bound", "s"], rows)
