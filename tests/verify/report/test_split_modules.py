"""``boolverify check`` deals the theorem files to its workers longest first by the claims' stored
times, keeps the files that share a cache in one worker, and names each claim's file once."""

from verify.report.claims import CLAIMS
from verify.report.runner import SHARED_CACHE_MODULES, claim_module, split_modules, theorem_modules


def test_longest_first_onto_the_least_loaded_worker():
    modules = theorem_modules()
    weights = {cid: 1.0 for cid in CLAIMS} | {"SG-8": 100.0, "SG-4": 30.0, "SG-5": 25.0, "SG-6": 20.0}
    groups = split_modules(modules, 2, weights)
    assert sorted(m for g in groups for m in g) == sorted(modules)          # every file exactly once
    heavy = next(g for g in groups if claim_module("SG-8") in g)
    # SG-8 (100 s) alone outweighs the rest but for the light files: the three sweeps go to the other worker
    assert not {claim_module(c) for c in ("SG-4", "SG-5", "SG-6")} & set(heavy)
    loads = [sum(weights[c] for c in CLAIMS if claim_module(c) in g) for g in groups]
    assert max(loads) == 100.0 + sum(1.0 for c in CLAIMS if claim_module(c) in heavy and c != "SG-8")
    assert all(g == sorted(g, key=modules.index) for g in groups)           # each keeps the files' order


def test_shared_cache_files_stay_together_and_unknown_claims_weigh_one():
    modules = theorem_modules()
    for jobs in (2, 3, 4):
        groups = split_modules(modules, jobs, {})
        for shared in SHARED_CACHE_MODULES:
            assert sum(any(m in g for m in shared) for g in groups) == 1
    assert split_modules(modules[:1], 4) == [modules[:1]]                   # no empty worker


def test_claim_module_names_each_theorem_file():
    assert claim_module("SX-4") == "theorems.test_SX4_one_step"
    assert sorted(claim_module(c) for c in CLAIMS) == theorem_modules()
