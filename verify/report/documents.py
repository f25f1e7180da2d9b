"""Numbers of README.md and ``docs/results-*.md`` rendered from the data files of ``docs/data``,
never typed.

A document marks each rendered fragment with a pair of comments (invisible in Markdown)::

    the transition grows like <!-- data:sx4-statement -->...<!-- /data:sx4-statement --> ...

and only the text between a pair is rewritten, by the fragment of that name in
:data:`FRAGMENTS` (the data files it reads and the function that renders it; the SX-4
sentence is :func:`verify.report.statements.sx4_statement`, the one the ``xor_mstar`` figure's
title shares). A marker whose name has no fragment is refused. Regenerate after a run with::

    python -m verify.report.documents            # rewrite the marked fragments in place
    python -m verify.report.documents --check    # exit 1 if a document is stale

(``--root DIR`` chooses the folder holding README.md and docs/, ``--data-dir DIR`` the data).
``tests/verify/report/test_documents.py`` fails when a document differs from what the data
render, and when a changed number in a copy of the data leaves a document unchanged.
"""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from numeric.validation import InputError, reject
from verify.report.seed_bases import bases_text
from verify.report.statements import decade, dispersion, sx4_fit, sx4_statement

#: the documents with rendered fragments, relative to the project root
DOCUMENTS = ("README.md", "docs/results-paper-a.md", "docs/results-paper-b.md", "docs/results-boolean.md")

MARKER = re.compile(r"<!-- data:(?P<name>[a-z0-9-]+) -->(?P<body>.*?)<!-- /data:(?P=name) -->", re.S)


@dataclass(frozen=True)
class Fragment:
    """One rendered fragment: the data files it reads (under the data folder) and
    ``render(data) -> str``, where ``data`` caches the files' derived values per run."""

    files: tuple
    render: Callable


#: fits of data files, by (path, modification time, size, which fit)
FITS: dict = {}


class DataCache:
    """The data folder, read once per rendering: JSON files and SX-4's fit."""

    def __init__(self, data_dir):
        self.data_dir = Path(data_dir)
        self._cache = {}

    def json(self, name):
        if name not in self._cache:
            path = self.data_dir / name
            try:
                self._cache[name] = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise InputError(f"data file = {str(path)!r}: expected a readable JSON file ({exc})") from None
        return self._cache[name]

    def fitted(self, name, what, compute):
        """``compute()``, a fit of data file ``name``, kept across renderings while the file's
        size and modification time stay the same (a fit takes seconds; the tests render often)."""
        stat = (self.data_dir / name).stat()
        key = (str((self.data_dir / name).resolve()), stat.st_mtime_ns, stat.st_size, what)
        if key not in FITS:
            FITS[key] = compute()
        return FITS[key]

    def sx4(self):
        return self.fitted("xor_sweep.json", "sx4", lambda: sx4_fit(self.data_dir))


def _bounded(x) -> bool:
    # a profile interval of a threshold (> 0) whose end the cut never reached is reported as
    # 0 or inf (or nan)
    return x is not None and x == x and 0 < abs(x) < float("inf")


def _interval(est, lo, hi, digits=2, positive=True):
    lo_text = f"{lo:.{digits}f}" if (_bounded(lo) or not positive and lo == lo) else "not bounded"
    hi_text = f"{hi:.{digits}f}" if (_bounded(hi) or not positive and hi == hi) else "not bounded"
    return f"{est:.{digits}f} [{lo_text}, {hi_text}]"


def _sx4_thresholds_table(data):
    s = data.sx4()
    seeds, stream = {}, set()
    for cell in data.json("xor_sweep.json")["cells"]:
        seeds.setdefault(cell["d"], set()).add(cell["n_seeds"])
        if cell["key"].get("stream"):
            stream.add(cell["d"])
    lines = ["| d | seeds per cell | `m*_0.5(d)` | `m*_0.9(d)` |", "|---|---|---|---|"]
    for d, th in sorted(s["thresholds"].items()):
        n = "/".join(str(k) for k in sorted(seeds.get(d, ())))
        label = decade(d) + (" (streamed)" if d in stream else "")
        lines.append(f"| {label} | {n} | {_interval(*th[0.5])} | {_interval(*th[0.9])} |")
    return "\n" + "\n".join(lines) + "\n"


def _minus(x, digits=2) -> str:
    return f"{x:.{digits}f}".replace("-", "−")


def _sx4_laws_table(data):
    s = data.sx4()
    p, k = s["power"], s["polylog"]
    return ("\n| law | exponent (95 % profile interval) | log-likelihood |\n|---|---|---|\n"
            f"| power `m* ∝ d^α` | α = {_interval(p['alpha'], *p['interval'], digits=3, positive=False)} | "
            f"{_minus(s['loglik']['power'])} |\n"
            f"| polylog `m* ∝ (ln d)^k` | k = {_interval(k['k'], *k['interval'], digits=3, positive=False)} | "
            f"{_minus(s['loglik']['polylog'])} |\n"
            f"| free location per `d` | — | {_minus(s['loglik']['free'])} |\n")


def _sx4_m50(data):
    th = data.sx4()["thresholds"]
    ds = sorted(th)
    return (", ".join(f"{th[d][0.5][0]:.1f}" for d in ds) + f" at `d` = {decade(ds[0])} … {decade(ds[-1])}")


def _sx4_curve(data):
    s = data.sx4()
    lapses = ", ".join(f"{v:.3f}" for _, v in sorted(s["lapses"].items()))
    return (f"common slope `s = {s['slope']:.2f}`, a lapse per `d` (`λ` = {lapses} at "
            f"`d = {decade(min(s['lapses']))} … {decade(max(s['lapses']))}`), dispersion φ = "
            f"deviance/df = {s['deviance']:.0f}/{s['dof']} = {dispersion(s):.1f}, over all "
            f"{s['cells']} cells")


def _sx5_softmax(data):
    from verify.stats.intervals import wilson_interval

    cmp = data.json("xor_compare.json")
    n, frac = cmp["config"]["n_seeds"], cmp["softmax"]["one_step"]["frac_below_1e-6"]
    lo, hi = wilson_interval(round(frac * n), n)
    return (f"one softmax step reaches `L < 1e-6` in {100 * frac:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}] "
            f"of {n} seeds at `d = {cmp['config']['d']}, m = {cmp['config']['m']}`")


def _sx6_fits(data, conf):
    from verify.experiments.claim_rules import SX6
    from verify.experiments.fits import samples_laws
    from verify.experiments.records import load_cells

    return {name: data.fitted(name, ("sx6", conf), lambda name=name: samples_laws(
        load_cells(data.data_dir / name), conf=conf, margin=SX6.law_margin)) for name in SX6_FILES}


#: the SX-6 data files: one empirical step, training on a fixed sample
SX6_FILES = ("xor_samples_grid.json", "xor_fixed_sample_training.json")


def _sx6_exponents(data):
    from verify.experiments.claim_rules import SX6

    step, flow = (_sx6_fits(data, SX6.level)[name]["power"] for name in SX6_FILES)
    return (f"`d^{step['alpha']:.2f} [{step['interval'][0]:.2f}, {step['interval'][1]:.2f}]` for one empirical "
            f"step and `d^{flow['alpha']:.2f} [{flow['interval'][0]:.2f}, {flow['interval'][1]:.2f}]` when "
            f"training on a fixed sample ({100 * SX6.level:g} % intervals)")


def _sx6_alpha(name):
    def render(data):
        from verify.experiments.claim_rules import SX6

        power = _sx6_fits(data, SX6.level)[name]["power"]
        return f"**{power['alpha']:.2f} [{power['interval'][0]:.2f}, {power['interval'][1]:.2f}]**"
    return render


def _size(x) -> str:
    # sample sizes: integers from 100 on (thin groups of three), three significant digits below
    if not _bounded(x):
        return "not bounded"
    return f"{x:,.0f}".replace(",", " ") if x >= 100 else f"{x:#.3g}"


def _sx6_thresholds_table(data):
    from verify.experiments.claim_rules import SX6

    fits = _sx6_fits(data, SX6.report_conf)
    level = f"{100 * SX6.report_conf:g} %"
    lines = [f"| d | one step `n*_0.5` [{level}] | one step `n*_0.9` [{level}] | fixed-sample training `n*_0.5` "
             f"[{level}] | training `n*_0.9` [{level}] |", "|---|---|---|---|---|"]
    step, flow = (fits[name]["thresholds"] for name in SX6_FILES)
    for d in sorted(step):
        row = [f"{_size(t[0])} [{_size(t[1])}, {_size(t[2])}]" for fit in (step, flow) for t in (fit[d][0.5], fit[d][0.9])]
        lines.append(f"| {d} | " + " | ".join(row) + " |")
    return "\n" + "\n".join(lines) + "\n"


def _volume_curves(data, name="local_volume.json"):
    curves = {}
    for c in data.json(name)["curves"]:
        curves.setdefault(c["function"], {})[c["N"]] = c
    return curves


def _radius(c) -> str:
    lo, hi = c["radius_range"]
    return f"{c['radius']:#.3g} [{lo:#.3g}, {hi:#.3g}]"


def _volume_table(name):
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


def _volume_slopes(data):
    import numpy as np

    curves = _volume_curves(data)
    parts = []
    for f in sorted(curves):
        Ns = sorted(curves[f])
        slope = np.polyfit(np.log(Ns), np.log([curves[f][N]["radius"] for N in Ns]), 1)[0]
        parts.append(f"{f.upper()} {slope:.2g}".replace("-", "−"))
    Ns = sorted({N for f in curves for N in curves[f]})
    return f"Log-log slopes of `r_f(N)` over `N = {Ns[0]} … {Ns[-1]}`: " + ", ".join(parts)


def _parity_radii(data):
    parity = _volume_curves(data)["parity"]
    Ns = [N for N in sorted(parity) if N % 4 == 0]
    return (", ".join(f"{parity[N]['radius']:.2g}" for N in Ns) + " at `N` = " + ", ".join(map(str, Ns)))


def _certified_at_8(data):
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


def _sg8_training(data):
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


def _sg8_transition(data):
    from verify.experiments.claim_rules import SG8

    learned = _learned(data, "sg8_parity_transition.json")
    parts = [f"`N = {N}` in {k} of {n}" for (t, N), (k, n, _) in sorted(learned.items()) if t == "parity"]
    return (f"with {_steps(data, 'sg8_parity_transition.json')} steps it is learned (exact accuracy ≥ "
            f"{SG8.learned_parity:g}) at " + ", ".join(parts))


def _sg8_pilot(data):
    from verify.experiments.claim_rules import SG8

    pilot = SG8.pilot
    return (f"PARITY at `N = {SG8.parity_long_N}` reached {SG8.learned_parity:g} in {pilot['parity_long'][0]} of "
            f"{pilot['parity_long'][1]} runs, the 2-sparse parity in {pilot['parity01_long'][0]} of "
            f"{pilot['parity01_long'][1]} and FIRST in {pilot['first_long'][0]} of {pilot['first_long'][1]}")


#: the trained-solution files of SG-9 (N = 4 .. 10, and the N = 12 subset grid)
TRAINED_FILES = ("local_volume_trained.json", "local_volume_trained_N12.json")


def _trained_table(data):
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


def _certified_table(data):
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
        volumes = ", ".join(_minus(row[f]["log_volume"], 0) for f in functions)
        lines.append(f"| {N} | {M} | " + " | ".join(cells) + f" | {volumes} |")
    return "\n" + "\n".join(lines) + "\n"


def _sx5_others(data):
    cmp = data.json("xor_compare.json")
    lowest = min(cmp[a][o]["min_final_loss"] for a in ("linear", "erf") for o in ("gd", "adam"))
    bounds = cmp["linear_bound_per_seed"]
    return (f"stay at `L ≥ {math.floor(lowest * 1e5) / 1e5:.5f}` after {cmp['config']['steps']} GD/Adam steps, above "
            f"their lower bounds (linear ≥ {math.floor(min(bounds) * 1e4) / 1e4:.4f} on {len(bounds)} instances; erf "
            f"exactly `(1 − 2/d²)²` = {cmp['erf_bound']:.6f})")


def _sg9_constructed_order(data):
    curves = _volume_curves(data)
    first = [c["radius"] for c in curves["first"].values()]
    majority = [curves["majority"][N]["radius"] for N in sorted(curves["majority"])]
    return (f"FIRST's radius is nearly flat ({min(first):.2g}–{max(first):.2g}) and **above** MAJORITY's "
            f"({majority[0]:.2g} … {majority[-1]:.2g})")


def _sg9_trained_summary(data):
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


def _sx6_legacy(data):
    from verify.experiments.claim_rules import SX6
    from verify.experiments.fits import samples_laws
    from verify.experiments.records import load_cells

    power = data.fitted("xor_samples.json", ("sx6-legacy", SX6.report_conf), lambda: samples_laws(
        load_cells(data.data_dir / "xor_samples.json"), conf=SX6.report_conf, margin=SX6.law_margin))["power"]
    lo, hi = power["interval"]
    return f"`α = {power['alpha']:.2f} [{_minus(lo)}, {_minus(hi)}]`"


def _theorem45_crossover(data):
    p = data.json("theorem45.json")["preset_bhattamishra"]["params"]
    return f"crossover `N* = {p['N_star']}` for `(D, L) = ({p['D']}, {p['L']})`"


def _seed_bases_sentence(claim_id):
    def render(data):
        summary = data.json("seed_bases.json")
        claim = next(c for c in summary["claims"] if c["claim"] == claim_id)
        where = bases_text(claim["bases"], dash="–")
        decisions = [d for d in summary["decisions"] if d["claim"] == claim_id]
        if all(d["counts"]["pass"] == len(d["bases"]) for d in decisions):
            return f"over seed bases {where} every {claim_id} decision ({len(decisions)} of them) passed at every base"
        counts = {k: sum(d["counts"][k] for d in decisions) for k in ("pass", "inconclusive", "fail")}
        return (f"over seed bases {where} the {len(decisions)} {claim_id} decisions came out {counts['pass']} pass, "
                f"{counts['inconclusive']} inconclusive, {counts['fail']} fail")
    return render


def _mutants(data):
    m = data.json("mutants.json")
    return (f"the {m['total']} plausible bugs of its catalogue one at a time and reports which claim test "
            f"catches each (last run: {m['caught']} of {m['total']} caught)")


def _table(header, rows) -> str:
    """A Markdown table on lines of its own (the markers stay outside it)."""
    lines = ["| " + " | ".join(map(str, header)) + " |", "|---" * len(header) + "|"]
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in rows]
    return "\n" + "\n".join(lines) + "\n"


def _by_N(mapping):
    return sorted(mapping.items(), key=lambda kv: int(kv[0]))


def _sg2_exact_table(data):
    return _table(["N", "functions", "`P(K_0 ≥ 1)`", "float", "`E[K_0]`", "`Var[K_0]` (= formula)"],
                  [[N, e["functions"], e["p_K0_ge_1"], f"{e['p_float']:.7g}", e["E_K0"], e["Var_K0"]]
                   for N, e in _by_N(data.json("sg2_random_functions.json")["exact"])])


def _sg2_monte_carlo_table(data):
    return _table(["N", "`P̂(K_0 ≥ 1)`", "95% Wilson", "mean `K_0`"],
                  [[N, f"{r['p_hat']:.4f}", f"[{r['wilson'][0]:.4f}, {r['wilson'][1]:.4f}]", f"{r['mean_K0']:.4f}"]
                   for N, r in _by_N(data.json("sg2_random_functions.json")["monte_carlo"])])


def _sg2_monte_carlo_plan(data):
    mc = list(data.json("sg2_random_functions.json")["monte_carlo"].values())
    samples = sorted({r["samples"] for r in mc})
    offset = {r["seed"] - r["N"] for r in mc}
    seed = f"seed\n{offset.pop()} + N" if len(offset) == 1 else "a seed per N"
    return f"{'/'.join(map(str, samples))} functions per N, {seed}"


def _sx7_fit(data):
    from verify.experiments.claim_rules import SX7
    from verify.experiments.fits import sweep_laws
    from verify.experiments.records import load_cells

    # one-sided upper bound at SX7.level: the upper end of the two-sided interval at 2 level - 1
    conf = 2 * SX7.level - 1
    return data.fitted("xor_sweep.json", ("sx7", conf), lambda: sweep_laws(
        load_cells(data.data_dir / "xor_sweep.json"), conf=conf, levels=(SX7.quantile,)))


def _ratio(x) -> str:
    if x >= 1e-3:
        return f"{x:.2g}"
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _sx7_bound(data):
    from verify.experiments.claim_rules import SX7

    th = _sx7_fit(data)["thresholds"]
    top = max(th)
    bound = max(2 * t[SX7.quantile][2] for t in th.values())
    return (f"`2 m*_{SX7.quantile:g}(d) ≤ {bound:.0f}` parameters up to `d = {decade(top)}` "
            f"({100 * SX7.level:g} % bound)")


def _sx7_table(data):
    from verify.experiments.claim_rules import SX7

    rows = []
    for d, th in sorted(_sx7_fit(data)["thresholds"].items()):
        est, _, hi = th[SX7.quantile]
        note = "" if d >= SX7.decide_from else " (reported, not decided)"
        rows.append([decade(d), f"{2 * est:.1f}", f"{2 * hi:.1f}" if _bounded(hi) else "not bounded",
                     f"{d // SX7.param_divisor:,}".replace(",", " "), f"{_ratio(2 * est / d)}{note}"])
    return _table(["d", f"`2 m*_{SX7.quantile:g}(d)`", f"{100 * SX7.level:g} % upper bound",
                   f"`d / {SX7.param_divisor}`", "ratio `2m*/d`"], rows)


def _sg6_table(data):
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
    return _table(["N", "models", *schemes, "random function"], rows)


def _sg6_d32_table(data):
    d32 = data.json("sg6_random_profiles.json")["D32"]
    rows = [[s, c["models"], f"{c['frac_K0_ge_1']:.3f} [{c['frac_K0_ge_1_ci95'][0]:.3f}, {c['frac_K0_ge_1_ci95'][1]:.3f}]",
             c["min_K0"], f"{c['mean_K0_frac']:.3f}", f"{c['frac_constant']:.2f}", f"{c['mean_avg_sensitivity']:.3f}"]
            for s, c in d32["results"].items()]
    return _table(["init", "models", "fraction `K_0 ≥ 1` [95% Wilson]", "min `K_0`", "mean `K_0/2^N`",
                   "fraction constant", "mean avg. sensitivity"], rows)


def _sg4_table(data):
    import numpy as np

    sg4 = data.json("sg4_influence.json")
    influence = np.array(sg4["influence"])  # models x N
    geo = np.exp(np.log(influence).mean(axis=0))
    Ns = sg4["Ns"]
    return _table(["N", *Ns], [["geometric mean", *(f"{g:.2e}" for g in geo)],
                               ["max over models", *(f"{m:.2e}" for m in influence.max(axis=0))],
                               ["N × geo. mean", *(f"{N * g:.2f}" for N, g in zip(Ns, geo))]])


def _sg4_slopes(data):
    import numpy as np

    sg4 = data.json("sg4_influence.json")
    per_model = sg4["slope_per_model"]
    return (f"**{_minus(sg4['slope_mean_log'], 3)}** (per-model slopes {_minus(min(per_model))} … "
            f"{_minus(max(per_model))}, median {_minus(float(np.median(per_model)))}; slope of the max over models "
            f"{_minus(sg4['slope_of_max'])})")


def _sg5_table(data):
    sg5 = data.json("sg5_margin.json")
    rows = []
    for xi, counts in sg5["counts"].items():
        rows.append([f"{xi} (non-constant)", *counts["nonconstant"]])
        rows.append([f"{xi} (any function)", *counts["recognises"]])
    return _table(["ξ", *(f"N={N}" for N in sg5["Ns"])], rows)


def _theorem45_table(data):
    rows = []
    for c in data.json("theorem45.json")["cells"].values():
        rows.append([c["scheme"], c["N"], c["S"], f"{c['log2_Na']:.1f}", c["draws"],
                     f"{c['looked_constant_pilot']} + {c['looked_constant_sample']}", c["nonconstant"], c["k0_observed"],
                     f"**{c['bound_holds']}/{c['nonconstant']}**", f"{c['median_log2_K0_lower']:.1f}", f"{c['seconds']:.0f}"])
    return _table(["scheme", "N", "S", "log2 N^a", "drawn", "looked constant (pilot + sample)", "non-constant",
                   "K_0 seen", "bound met", "median log2 K_0 lower bound", "s"], rows)


#: the fragments the documents may mark, by name
FRAGMENTS: dict[str, Fragment] = {
    "sx4-statement": Fragment(("xor_sweep.json",), lambda data: sx4_statement(data.sx4())),
    "sx4-thresholds-table": Fragment(("xor_sweep.json",), _sx4_thresholds_table),
    "sx4-laws-table": Fragment(("xor_sweep.json",), _sx4_laws_table),
    "sx4-m50": Fragment(("xor_sweep.json",), _sx4_m50),
    "sx4-curve": Fragment(("xor_sweep.json",), _sx4_curve),
    "sx5-softmax": Fragment(("xor_compare.json",), _sx5_softmax),
    "sx5-others": Fragment(("xor_compare.json",), _sx5_others),
    "sx6-legacy": Fragment(("xor_samples.json",), _sx6_legacy),
    "theorem45-crossover": Fragment(("theorem45.json",), _theorem45_crossover),
    "sg8-seed-bases": Fragment(("seed_bases.json",), _seed_bases_sentence("SG-8")),
    "sg9-seed-bases": Fragment(("seed_bases.json",), _seed_bases_sentence("SG-9")),
    "mutants": Fragment(("mutants.json",), _mutants),
    "sg2-exact-table": Fragment(("sg2_random_functions.json",), _sg2_exact_table),
    "sg2-monte-carlo-table": Fragment(("sg2_random_functions.json",), _sg2_monte_carlo_table),
    "sg2-monte-carlo-plan": Fragment(("sg2_random_functions.json",), _sg2_monte_carlo_plan),
    "sx7-table": Fragment(("xor_sweep.json",), _sx7_table),
    "sx7-bound": Fragment(("xor_sweep.json",), _sx7_bound),
    "sg6-table": Fragment(("sg6_random_profiles.json",), _sg6_table),
    "sg6-d32-table": Fragment(("sg6_random_profiles.json",), _sg6_d32_table),
    "sg4-table": Fragment(("sg4_influence.json",), _sg4_table),
    "sg4-slopes": Fragment(("sg4_influence.json",), _sg4_slopes),
    "sg5-table": Fragment(("sg5_margin.json",), _sg5_table),
    "theorem45-table": Fragment(("theorem45.json",), _theorem45_table),
    "sx6-exponents": Fragment(SX6_FILES, _sx6_exponents),
    "sx6-alpha-one-step": Fragment(SX6_FILES[:1], _sx6_alpha(SX6_FILES[0])),
    "sx6-alpha-training": Fragment(SX6_FILES[1:], _sx6_alpha(SX6_FILES[1])),
    "sx6-thresholds-table": Fragment(SX6_FILES, _sx6_thresholds_table),
    "sg8-training": Fragment(("sg8_training.json",), _sg8_training),
    "sg8-transition": Fragment(("sg8_parity_transition.json",), _sg8_transition),
    "sg8-pilot": Fragment((), _sg8_pilot),
    "sg9-radius-table": Fragment(("local_volume.json",), _volume_table("local_volume.json")),
    "sg9-seed10-table": Fragment(("local_volume_trained_seed10.json",), _volume_table("local_volume_trained_seed10.json")),
    "sg9-trained-table": Fragment(("local_volume.json", *TRAINED_FILES), _trained_table),
    "sg9-certified-table": Fragment(("certified_volume.json",), _certified_table),
    "sg9-constructed-order": Fragment(("local_volume.json",), _sg9_constructed_order),
    "sg9-trained-summary": Fragment((*TRAINED_FILES, "local_volume_trained_seed10.json"), _sg9_trained_summary),
    "sg9-slopes": Fragment(("local_volume.json",), _volume_slopes),
    "sg9-parity-radii": Fragment(("local_volume.json",), _parity_radii),
    "sg9-certified-n8": Fragment(("certified_volume.json",), _certified_at_8),
}


def render_text(text: str, data, name="document") -> str:
    """``text`` with every marked fragment rendered from ``data`` (a :class:`DataCache`)."""
    def sub(match):
        fragment = FRAGMENTS.get(match["name"])
        if fragment is None:
            reject("marker", f"data:{match['name']} in {name}", f"a fragment name: {', '.join(FRAGMENTS)}")
        return f"<!-- data:{match['name']} -->{fragment.render(data)}<!-- /data:{match['name']} -->"
    return MARKER.sub(sub, text)


def fragment_names(text: str) -> list[str]:
    """The names of the fragments marked in ``text``, in order."""
    return [m["name"] for m in MARKER.finditer(text)]


def update_documents(root=".", data_dir=None, *, write=True, documents=DOCUMENTS) -> list[str]:
    """Render the marked fragments of ``documents`` (paths under ``root``) from ``data_dir``
    (default ``root/docs/data``); returns the documents that differed (rewritten with
    ``write``, atomically)."""
    from verify.common.atomic_io import atomic_write_text

    root = Path(root)
    data = DataCache(root / "docs" / "data" if data_dir is None else data_dir)
    stale = []
    for doc in documents:
        path = root / doc
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"document = {str(path)!r}: expected a readable text file ({exc})") from None
        new = render_text(text, data, name=str(path))
        if new != text:
            stale.append(doc)
            if write:
                atomic_write_text(path, new)
    return stale


def main(argv=None) -> int:
    """``python -m verify.report.documents [--root DIR] [--data-dir DIR] [--check]``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m verify.report.documents",
                                     description="Render the marked numbers of README.md and "
                                     "docs/results-*.md from docs/data.")
    parser.add_argument("--root", default=".", metavar="DIR", help="folder of README.md and docs/")
    parser.add_argument("--data-dir", default=None, metavar="DIR", help="data folder (default ROOT/docs/data)")
    parser.add_argument("--check", action="store_true", help="only compare: exit 1 if a document is stale")
    args = parser.parse_args(argv)
    try:
        stale = update_documents(args.root, args.data_dir, write=not args.check)
    except InputError as exc:
        print(f"boolverify: error: {exc}", file=sys.stderr)
        return 2
    for doc in DOCUMENTS:
        state = ("is stale" if args.check else "rewritten") if doc in stale else "is up to date"
        print(f"{doc}: rendered numbers {state}")
    return 1 if args.check and stale else 0


__all__ = ["DOCUMENTS", "MARKER", "Fragment", "DataCache", "FRAGMENTS", "render_text", "fragment_names",
           "update_documents", "main"]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
