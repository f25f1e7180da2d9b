"""The rendered fragments of paper A's claims (SX-4 to SX-7): the sentences and tables of README.md
and ``docs/results-paper-a.md``, each ``render(data)`` over a
:class:`~verify.report.fragments.DataCache`.
"""

from __future__ import annotations

import math

from verify.report.fragment_formats import markdown_table, signed_number
from verify.report.statements import decade, dispersion


def _bounded(x) -> bool:
    # a profile interval of a threshold (> 0) whose end the cut never reached is reported as
    # 0 or inf (or nan)
    return x is not None and x == x and 0 < abs(x) < float("inf")


def _interval(est, lo, hi, digits=2, positive=True):
    lo_text = f"{lo:.{digits}f}" if (_bounded(lo) or not positive and lo == lo) else "not bounded"
    hi_text = f"{hi:.{digits}f}" if (_bounded(hi) or not positive and hi == hi) else "not bounded"
    return f"{est:.{digits}f} [{lo_text}, {hi_text}]"


def sx4_thresholds_table(data):
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


def sx4_laws_table(data):
    s = data.sx4()
    p, k = s["power"], s["polylog"]
    return ("\n| law | exponent (95 % profile interval) | log-likelihood |\n|---|---|---|\n"
            f"| power `m* ∝ d^α` | α = {_interval(p['alpha'], *p['interval'], digits=3, positive=False)} | "
            f"{signed_number(s['loglik']['power'])} |\n"
            f"| polylog `m* ∝ (ln d)^k` | k = {_interval(k['k'], *k['interval'], digits=3, positive=False)} | "
            f"{signed_number(s['loglik']['polylog'])} |\n"
            f"| free location per `d` | — | {signed_number(s['loglik']['free'])} |\n")


def sx4_m50(data):
    th = data.sx4()["thresholds"]
    ds = sorted(th)
    return (", ".join(f"{th[d][0.5][0]:.1f}" for d in ds) + f" at `d` = {decade(ds[0])} … {decade(ds[-1])}")


def sx4_curve(data):
    s = data.sx4()
    lapses = ", ".join(f"{v:.3f}" for _, v in sorted(s["lapses"].items()))
    return (f"common slope `s = {s['slope']:.2f}`, a lapse per `d` (`λ` = {lapses} at "
            f"`d = {decade(min(s['lapses']))} … {decade(max(s['lapses']))}`), dispersion φ = "
            f"deviance/df = {s['deviance']:.0f}/{s['dof']} = {dispersion(s):.1f}, over all "
            f"{s['cells']} cells")


def sx5_softmax(data):
    from verify.stats.intervals import wilson_interval

    from verify.experiments.attention_comparison import ONE_STEP_BELOW_KEY, threshold_text
    from verify.experiments.claim_rules import SX5

    cmp = data.json("xor_compare.json")
    n, frac = cmp["config"]["n_seeds"], cmp["softmax"]["one_step"][ONE_STEP_BELOW_KEY]
    lo, hi = wilson_interval(round(frac * n), n)
    return (f"one softmax step reaches `L < {threshold_text(SX5.one_step_loss_threshold)}` in {100 * frac:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}] "
            f"of {n} seeds at `d = {cmp['config']['d']}, m = {cmp['config']['m']}`")


def sx5_others(data):
    cmp = data.json("xor_compare.json")
    lowest = min(cmp[a][o]["min_final_loss"] for a in ("linear", "erf") for o in ("gd", "adam"))
    bounds = cmp["linear_bound_per_seed"]
    return (f"stay at `L ≥ {math.floor(lowest * 1e5) / 1e5:.5f}` after {cmp['config']['steps']} GD/Adam steps, above "
            f"their lower bounds (linear ≥ {math.floor(min(bounds) * 1e4) / 1e4:.4f} on {len(bounds)} instances; erf "
            f"exactly `(1 − 2/d²)²` = {cmp['erf_bound']:.6f})")


def _sx6_fits(data, conf):
    from verify.experiments.claim_rules import SX6
    from verify.experiments.fits import samples_laws
    from verify.experiments.records import load_cells

    return {name: data.fitted(name, ("sx6", conf), lambda name=name: samples_laws(
        load_cells(data.data_dir / name), conf=conf, margin=SX6.law_margin)) for name in SX6_FILES}


#: the SX-6 data files: one empirical step, training on a fixed sample
SX6_FILES = ("xor_samples_grid.json", "xor_fixed_sample_training.json")


def sx6_exponents(data):
    from verify.experiments.claim_rules import SX6

    step, flow = (_sx6_fits(data, SX6.level)[name]["power"] for name in SX6_FILES)
    return (f"`d^{step['alpha']:.2f} [{step['interval'][0]:.2f}, {step['interval'][1]:.2f}]` for one empirical "
            f"step and `d^{flow['alpha']:.2f} [{flow['interval'][0]:.2f}, {flow['interval'][1]:.2f}]` when "
            f"training on a fixed sample ({100 * SX6.level:g} % intervals)")


def sx6_alpha(name):
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


def sx6_thresholds_table(data):
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


def sx6_legacy(data):
    from verify.experiments.claim_rules import SX6
    from verify.experiments.fits import samples_laws
    from verify.experiments.records import load_cells

    power = data.fitted("xor_samples.json", ("sx6-legacy", SX6.report_conf), lambda: samples_laws(
        load_cells(data.data_dir / "xor_samples.json"), conf=SX6.report_conf, margin=SX6.law_margin))["power"]
    lo, hi = power["interval"]
    return f"`α = {power['alpha']:.2f} [{signed_number(lo)}, {signed_number(hi)}]`"


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


def sx7_bound(data):
    from verify.experiments.claim_rules import SX7

    th = _sx7_fit(data)["thresholds"]
    top = max(th)
    bound = max(2 * t[SX7.quantile][2] for t in th.values())
    return (f"`2 m*_{SX7.quantile:g}(d) ≤ {bound:.0f}` parameters up to `d = {decade(top)}` "
            f"({100 * SX7.level:g} % bound)")


def sx7_table(data):
    from verify.experiments.claim_rules import SX7

    rows = []
    for d, th in sorted(_sx7_fit(data)["thresholds"].items()):
        est, _, hi = th[SX7.quantile]
        note = "" if d >= SX7.decide_from else " (reported, not decided)"
        rows.append([decade(d), f"{2 * est:.1f}", f"{2 * hi:.1f}" if _bounded(hi) else "not bounded",
                     f"{d // SX7.param_divisor:,}".replace(",", " "), f"{_ratio(2 * est / d)}{note}"])
    return markdown_table(["d", f"`2 m*_{SX7.quantile:g}(d)`", f"{100 * SX7.level:g} % upper bound",
                   f"`d / {SX7.param_divisor}`", "ratio `2m*/d`"], rows)
