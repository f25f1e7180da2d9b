"""Every claim declares its instruments in :mod:`verify.experiments.instruments`, and the
declarations hold against the theorem files and the mutation catalogue.

Checked on the sources (ast): each declared known-answer function exists in the claim's theorem
file and runs there; every number the file prints (an evidence key, a decision's estimand) is
accounted for by an instrument, and every declared pattern matches something printed; each seam
is a public dotted path that resolves; a catalogue mutant that wraps a declared seam is aimed at
that claim's file; every claim (stochastic ones above all) declares instruments. Each check is
also tried on a planted violation.
"""

from __future__ import annotations

import re

import pytest

from tests.helpers import PROJECT_ROOT, is_public_path
from tests.instrument_sources import HOLE, defined_functions, printed
from verify.experiments.instruments import INSTRUMENTS, KINDS, Instrument
from verify.report.claims import CLAIMS
from verify.report.mutation.engine import resolve
from verify.report.mutation.runner import MUTANTS

ROOT = PROJECT_ROOT

#: catalogue mutants that wrap a seam the claim declares without being aimed at its file, with
#: the reason (each is aimed at the claim that sees that bug)
NOT_AIMED = {
    ("threshold_fit_sizes_log10", "SX-6"): "the same bug is threshold_fit_sizes_log10_finite_samples, aimed at SX-6",
    ("threshold_fit_sizes_log10_finite_samples", "SX-4"): "the same bug is threshold_fit_sizes_log10 (SX-4, SX-7)",
    ("threshold_fit_sizes_log10_finite_samples", "SX-7"): "the same bug is threshold_fit_sizes_log10 (SX-4, SX-7)",
    ("layer_norm_unbiased_variance", "SG-3"): "a variance convention: SG-3's bound holds under either (SG-6's)",
    ("no_positional_embedding", "SG-4"): "positions, not eps: the ablation compares one model at two eps (SG-8's)",
    ("no_positional_embedding", "SG-5"): "positions, not eps: the ablation compares one model at two eps (SG-8's)",
}
#: unit-test mutants that wrap a declared seam in a way no claim can see, with the reason
UNIT_MUTANTS_ON_CLAIM_SEAMS = {
    "public_gaussian_positions_normal": "bhattamishra_gaussian, an init scheme no claim draws",
    "readout_bias_drawn_with_layer_biases": "biases = scheme_except_readout, a convention no claim uses",
    "pre_ln_runs_post_ln": "SG-6's independent loop is post-LN; the pre-LN path has unit tests only",
}


def matches(text: str, pattern: str) -> bool:
    """Whether a printed ``text`` is accounted for by ``pattern``, in which ``*`` (the only
    wildcard) matches any run of characters; ``*`` alone stands for a key that is all formatted
    value and matches only that."""
    if pattern == HOLE:
        return text == HOLE
    return re.fullmatch(".*".join(map(re.escape, pattern.split("*"))), text, re.DOTALL) is not None


def violations(claim_id: str, source: str, instruments, mutants=MUTANTS, theorem_file=None) -> list[str]:
    """What is wrong with ``claim_id``'s declarations against its theorem file's ``source``."""
    bad = []
    theorem_file = theorem_file or CLAIMS[claim_id].theorem_file
    if not instruments:
        bad.append(f"{claim_id} declares no instrument")
    funcs = defined_functions(source)
    seen = printed(source, theorem_file)
    texts = seen.keys | seen.estimands
    for ins in instruments:
        if ins.kind not in KINDS:
            bad.append(f"{ins.name}: kind {ins.kind!r} is not one of {KINDS}")
        if not ins.known_answer:
            bad.append(f"{ins.name}: no known-answer function")
        for fn in ins.known_answer:
            if fn not in funcs:
                bad.append(f"{ins.name}: known answer {fn} is not a function of {theorem_file}")
            elif not funcs[fn]:
                bad.append(f"{ins.name}: known answer {fn} never runs in {theorem_file} (neither a test nor called)")
        for pattern in ins.prints:
            if not any(matches(t, pattern) for t in texts):
                bad.append(f"{ins.name}: pattern {pattern!r} matches nothing {theorem_file} prints")
        if not is_public_path(ins.seam):
            bad.append(f"{ins.name}: seam {ins.seam} is not public")
        for m in mutants:
            if m.target != ins.seam:
                continue
            if (m.kind == "unit" and m.name in UNIT_MUTANTS_ON_CLAIM_SEAMS) or (m.name, claim_id) in NOT_AIMED:
                continue
            if theorem_file not in m.claim_files:
                bad.append(f"mutant {m.name} wraps {ins.seam} ({claim_id}: {ins.name}) but is not aimed at "
                           f"{theorem_file}")
    patterns = [p for ins in instruments for p in ins.prints]
    for text in sorted(texts):
        if not any(matches(text, p) for p in patterns):
            bad.append(f"{theorem_file} prints {text!r}, which no instrument of {claim_id} accounts for")
    return bad


def _source(claim_id):
    return (ROOT / CLAIMS[claim_id].theorem_file).read_text(encoding="utf-8")


@pytest.mark.parametrize("claim_id", list(CLAIMS))
def test_claim_declares_instruments_that_hold(claim_id):
    assert violations(claim_id, _source(claim_id), INSTRUMENTS.get(claim_id, ())) == []


def test_registry_names_only_registered_claims_and_every_stochastic_claim_has_instruments():
    assert set(INSTRUMENTS) <= set(CLAIMS)
    assert [cid for cid, c in CLAIMS.items() if c.kind == "stochastic" and not INSTRUMENTS.get(cid)] == []
    assert [cid for cid in CLAIMS if not INSTRUMENTS.get(cid)] == []


@pytest.mark.parametrize("claim_id", list(INSTRUMENTS))
def test_seams_resolve(claim_id):
    for ins in INSTRUMENTS[claim_id]:
        resolve(ins.seam)  # raises on a path that does not import


def test_estimands_and_keys_are_resolved_statically():
    """A printed number must be readable from the source (a literal or f-string, a variable
    assigned one, or a parameter every caller passes one): else nothing can account for it."""
    unresolved = {cid: printed(_source(cid)).unresolved for cid in CLAIMS}
    allowed = {"SG-6": 1, "SG-8": 1}  # evidence[scheme], evidence[key]: pytest parameters, patterns '*'
    assert {cid: len(u) for cid, u in unresolved.items() if u} == allowed


def test_mutant_exemptions_are_current():
    """Each exemption names a catalogue mutant that wraps a seam the claim declares."""
    names = {m.name: m for m in MUTANTS}
    assert all(n in names and names[n].kind == "unit" for n in UNIT_MUTANTS_ON_CLAIM_SEAMS)
    for name, cid in NOT_AIMED:
        m = names[name]
        assert m.target in {i.seam for i in INSTRUMENTS[cid]} and CLAIMS[cid].theorem_file not in m.claim_files


# -- planted violations ----------------------------------------------------------------------

_PLANTED_FILE = "theorems/test_XX1_planted.py"
_PLANTED = '''
def _known(evidence):
    evidence["known_answer"] = 1
    evidence.decide(exact(f"P(success | d={d})", 0.5, "rule", True))


def test_claim(evidence):
    _known(evidence)
    evidence["alpha"] = 0.1
'''


def _declared(**change):
    base = dict(name="fit", kind="estimator", seam="verify.stats.thresholds.fit_threshold_curves",
                known_answer=("_known",), description="known", prints=("known_answer", "P(success | d=*", "alpha"))
    base.update(change)
    return (Instrument(**base),)


def test_checker_passes_the_planted_claim_as_declared():
    assert violations("SX-4", _PLANTED, _declared(), mutants=(), theorem_file=_PLANTED_FILE) == []


@pytest.mark.parametrize("change, expected", [
    (dict(known_answer=("_missing",)), "known answer _missing is not a function"),
    (dict(prints=("known_answer", "P(success | d=*")), "prints 'alpha'"),
    (dict(prints=("known_answer", "P(success | d=*", "alpha", "beta")), "pattern 'beta' matches nothing"),
    (dict(kind="thermometer"), "kind 'thermometer'"),
    (dict(seam="verify.stats.thresholds._private"), "is not public"),
])
def test_checker_catches_planted_declarations(change, expected):
    bad = violations("SX-4", _PLANTED, _declared(**change), mutants=(), theorem_file=_PLANTED_FILE)
    assert any(expected in b for b in bad), bad


def test_checker_catches_an_uncalled_known_answer_and_a_claim_without_instruments():
    source = _PLANTED.replace("    _known(evidence)\n", "")
    bad = violations("SX-4", source, _declared(prints=("alpha",)), mutants=(), theorem_file=_PLANTED_FILE)
    assert any("never runs" in b for b in bad), bad
    assert any("declares no instrument" in b for b in violations("SX-4", _PLANTED, (), mutants=(),
                                                                   theorem_file=_PLANTED_FILE))


def test_checker_catches_a_mutant_on_a_declared_seam_aimed_elsewhere():
    mutant = next(m for m in MUTANTS if m.target == "verify.stats.thresholds.fit_threshold_curves")
    bad = violations("SX-4", _PLANTED, _declared(), mutants=(mutant,), theorem_file=_PLANTED_FILE)
    assert any(f"mutant {mutant.name} wraps" in b for b in bad), bad
