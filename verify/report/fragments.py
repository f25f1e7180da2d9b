"""The fragments the documents may mark, by name (:data:`FRAGMENTS`): each names the data files it
reads and renders from a :class:`DataCache`, which reads the data folder once per rendering and
keeps the slow fits across renderings. The renderers are paper A's
(:mod:`verify.report.paper_a_fragments`), paper B's (:mod:`verify.report.paper_b_fragments`), the
performance page's (:mod:`verify.report.performance_fragments`) and, here, the two that belong to
no paper: the seed-bases sentences and the mutation score.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from numeric.validation import InputError
from verify.report.paper_a_fragments import (
    SX6_FILES, sx4_curve, sx4_laws_table, sx4_m50, sx4_thresholds_table, sx5_others, sx5_softmax,
    sx6_alpha, sx6_exponents, sx6_legacy, sx6_thresholds_table, sx7_bound, sx7_table,
)
from verify.report.paper_b_fragments import (
    TRAINED_FILES, certified_at_8, certified_table, parity_radii, sg2_exact_table,
    sg2_monte_carlo_plan, sg2_monte_carlo_table, sg4_slopes, sg4_table, sg5_table, sg6_d32_table,
    sg6_table, sg8_decisions, sg8_pilot, sg8_training, sg8_transition, sg9_constructed_order, sg9_trained_summary,
    theorem45_crossover, theorem45_table, trained_table, volume_slopes, volume_table,
)
from verify.report.performance_fragments import (
    PROFILE, XOR, profile_check_table, profile_setting, profile_theorems_table, xor_small_d_table,
)
from verify.report.seed_bases import bases_text
from verify.report.statements import sx4_fit, sx4_statement


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


#: the fragments the documents may mark, by name
FRAGMENTS: dict[str, Fragment] = {
    "sx4-statement": Fragment(("xor_sweep.json",), lambda data: sx4_statement(data.sx4())),
    "sx4-thresholds-table": Fragment(("xor_sweep.json",), sx4_thresholds_table),
    "sx4-laws-table": Fragment(("xor_sweep.json",), sx4_laws_table),
    "sx4-m50": Fragment(("xor_sweep.json",), sx4_m50),
    "sx4-curve": Fragment(("xor_sweep.json",), sx4_curve),
    "sx5-softmax": Fragment(("xor_compare.json",), sx5_softmax),
    "sx5-others": Fragment(("xor_compare.json",), sx5_others),
    "sx6-legacy": Fragment(("xor_samples.json",), sx6_legacy),
    "theorem45-crossover": Fragment(("theorem45.json",), theorem45_crossover),
    "sg8-seed-bases": Fragment(("seed_bases.json",), _seed_bases_sentence("SG-8")),
    "sg9-seed-bases": Fragment(("seed_bases.json",), _seed_bases_sentence("SG-9")),
    "mutants": Fragment(("mutants.json",), _mutants),
    "sg2-exact-table": Fragment(("sg2_random_functions.json",), sg2_exact_table),
    "sg2-monte-carlo-table": Fragment(("sg2_random_functions.json",), sg2_monte_carlo_table),
    "sg2-monte-carlo-plan": Fragment(("sg2_random_functions.json",), sg2_monte_carlo_plan),
    "sx7-table": Fragment(("xor_sweep.json",), sx7_table),
    "sx7-bound": Fragment(("xor_sweep.json",), sx7_bound),
    "sg6-table": Fragment(("sg6_random_profiles.json",), sg6_table),
    "sg6-d32-table": Fragment(("sg6_random_profiles.json",), sg6_d32_table),
    "sg4-table": Fragment(("sg4_influence.json",), sg4_table),
    "sg4-slopes": Fragment(("sg4_influence.json",), sg4_slopes),
    "sg5-table": Fragment(("sg5_margin.json",), sg5_table),
    "theorem45-table": Fragment(("theorem45.json",), theorem45_table),
    "sx6-exponents": Fragment(SX6_FILES, sx6_exponents),
    "sx6-alpha-one-step": Fragment(SX6_FILES[:1], sx6_alpha(SX6_FILES[0])),
    "sx6-alpha-training": Fragment(SX6_FILES[1:], sx6_alpha(SX6_FILES[1])),
    "sx6-thresholds-table": Fragment(SX6_FILES, sx6_thresholds_table),
    "sg8-training": Fragment(("sg8_training.json",), sg8_training),
    "sg8-transition": Fragment(("sg8_parity_transition.json",), sg8_transition),
    "sg8-pilot": Fragment((), sg8_pilot),
    "sg8-decisions": Fragment(("sg8_decisions.json",), sg8_decisions),
    "sg9-radius-table": Fragment(("local_volume.json",), volume_table("local_volume.json")),
    "sg9-seed10-table": Fragment(("local_volume_trained_seed10.json",), volume_table("local_volume_trained_seed10.json")),
    "sg9-trained-table": Fragment(("local_volume.json", *TRAINED_FILES), trained_table),
    "sg9-certified-table": Fragment(("certified_volume.json",), certified_table),
    "sg9-constructed-order": Fragment(("local_volume.json",), sg9_constructed_order),
    "sg9-trained-summary": Fragment((*TRAINED_FILES, "local_volume_trained_seed10.json"), sg9_trained_summary),
    "sg9-slopes": Fragment(("local_volume.json",), volume_slopes),
    "sg9-parity-radii": Fragment(("local_volume.json",), parity_radii),
    "sg9-certified-n8": Fragment(("certified_volume.json",), certified_at_8),
    "profile-setting": Fragment((PROFILE,), profile_setting),
    "profile-check": Fragment((PROFILE,), profile_check_table),
    "profile-theorems": Fragment((PROFILE,), profile_theorems_table),
    "xor-small-d": Fragment((XOR,), xor_small_d_table),
}
