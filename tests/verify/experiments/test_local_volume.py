"""The local-volume experiment: the 1/2 crossing on log sigma, the record, the grid checks."""

import json
import math

from tests.helpers import raises_input_error
from verify.common.tolerances import assert_close
from verify.experiments.local_volume import check_sigmas, local_volume, log_crossing


def test_crossing_interpolates_on_log_sigma():
    r, how = log_crossing([1e-3, 1e-2, 1e-1], [1.0, 0.75, 0.25])
    assert how == "crossed"
    assert_close(r, math.sqrt(1e-2 * 1e-1), what="geometric midpoint")


def test_crossing_off_the_grid():
    assert log_crossing([1.0, 2.0], [0.4, 0.1]) == (None, "below grid")
    assert log_crossing([1.0, 2.0], [1.0, 0.5]) == (None, "above grid")


def test_sigma_grid_checks():
    with raises_input_error("sigmas", "increasing"):
        check_sigmas([0.1, 0.1])
    with raises_input_error("sigmas[1]"):
        check_sigmas([0.1, -1.0])
    with raises_input_error("sigmas"):
        check_sigmas([])


def test_curve_record_round_trips_through_json():
    grid = (1e-4, 1.0, 10.0)
    c = local_volume("majority", 4, grid, 8, seed=1)
    d = json.loads(c.to_json())
    assert d["points"][0]["exact"] == 8 and d["points"][0]["ci"][1] == 1.0
    assert d["n_params"] == c.n_params and d["include_ln"] is True
    assert d["radius"] is None or grid[0] < d["radius"] < grid[-1]


def test_same_directions_at_every_sigma():
    a = local_volume("first", 4, (0.05, 0.2), 16, seed=2)
    b = local_volume("first", 4, (0.2,), 16, seed=2)
    assert a.points[1] == b.points[0]


def test_evaluation_passes_do_not_change_the_counts():
    import torch

    from numeric.boolean._functions import truth_table
    from numeric.transformer._constructions import construct
    from numeric.transformer._local_volume import volume_point

    model, table = construct("first", 6), truth_table("first", 6)
    runs = [volume_point(model, table, 6, 0.08, 40, torch.Generator().manual_seed(3), chunk=chunk)
            for chunk in (32, 32)]
    assert runs[0] == runs[1]
    import numeric.transformer._local_volume as lv

    saved = lv.EVAL_PAIRS
    try:
        lv.EVAL_PAIRS = 1  # one model per pass
        assert volume_point(model, table, 6, 0.08, 40, torch.Generator().manual_seed(3)) == runs[0]
    finally:
        lv.EVAL_PAIRS = saved


def _measured_fractions(function, N, grid):
    """The 400-direction fractions of docs/data/local_volume.json, interpolated in log sigma."""
    import numpy as np

    from tests.helpers import PROJECT_ROOT

    data = json.loads((PROJECT_ROOT / "docs" / "data" / "local_volume.json").read_text())
    c = next(c for c in data["curves"] if c["function"] == function and c["N"] == N)
    return np.interp(np.log(grid), np.log([p["sigma"] for p in c["points"]]), [p["fraction"] for p in c["points"]])


def test_sg9_quick_plan_is_decided_with_probability_at_least_99_percent():
    """The power of SG-9's quick plan at the measured curves (the numbers of the theorem's
    docstring): every decided comparison passes with probability >= 99 %, and each radius
    interval is empty (bounds contradicting a non-increasing curve) with probability below 1 % of
    the 0.5 % that Bonferroni guarantees."""
    from numeric.transformer._constructions import CONSTRUCTED
    from verify.experiments.claim_rules import SG9
    from verify.experiments.plans import SG9_FAST, sg9_grid
    from verify.stats.intervals import bonferroni_level
    from verify.stats.power import crossing_comparison_miss, proportion_error_rates

    n, Ns, c = SG9_FAST["models"], SG9_FAST["Ns"], SG9.crossing
    grids = {fn: sg9_grid(fn, SG9_FAST) for fn in CONSTRUCTED}

    def miss(fa, Na, fb, Nb, models=n):
        return crossing_comparison_miss(grids[fa], _measured_fractions(fa, Na, grids[fa]), grids[fb],
                                        _measured_fractions(fb, Nb, grids[fb]), models, SG9.radius_level, c)["miss"]

    comparisons = [("parity", 2 * N, "parity", N) for N in Ns if 2 * N in Ns]
    comparisons += [("parity", N, "majority", N) for N in Ns]
    misses = {cmp: miss(*cmp) for cmp in comparisons}
    assert max(misses.values()) <= 1 - SG9.level, misses
    assert miss("parity", 4, "majority", 4, 200) > 1 - SG9.level  # why the plan needs more than 200
    for fn in CONSTRUCTED:
        tail = 1 - (1 - bonferroni_level(SG9.radius_level, len(grids[fn]))) / 2
        for N in Ns:
            v = _measured_fractions(fn, N, grids[fn])
            empty = sum(proportion_error_rates(n, float(p), c, tail, "lower" if p <= c else "upper") for p in v
                        if 0 < p < 1)
            assert empty < (1 - SG9.radius_level) / 100, (fn, N, empty)  # far below the guarantee


def test_given_construction_measures_as_the_construction_path():
    from numeric.transformer._constructions import construct

    grid = (1e-3, 1e-2, 1e-1)
    built = local_volume("parity", 4, grid, 12, seed=5)
    given = local_volume("parity", 4, grid, 12, seed=5, solution=construct("parity", 4))
    assert given.points == built.points and given.radius == built.radius
    assert given.radius_range == built.radius_range and given.n_params == built.n_params
    assert (built.solution, given.solution) == ("constructed", "given")


def test_a_model_that_does_not_compute_the_function_is_refused():
    from numeric.transformer._constructions import construct
    from numeric.transformer import TransformerConfig, random_model

    with raises_input_error("solution", "computes parity exactly"):
        local_volume("parity", 4, (0.1,), 2, solution=construct("majority", 4))
    untrained = random_model(TransformerConfig(D=8, L=2, H=2, eps=1e-5, N_max=4), "xavier_uniform", 0)
    with raises_input_error("solution", "computes first exactly"):
        local_volume("first", 4, (0.1,), 2, solution=untrained)
    with raises_input_error("solution", "length N = 5"):
        local_volume("majority", 5, (0.1,), 2, solution=construct("majority", 4))
    with raises_input_error("solution", "batched pass"):
        local_volume("majority", 4, (0.1,), 2, solution="a model")
    with raises_input_error("F"):
        local_volume("majority", 4, (0.1,), 2, F=8, solution=construct("majority", 4))


def test_trained_solution_computes_the_function_and_is_measured():
    import torch

    from numeric.boolean._functions import truth_table
    from numeric.transformer import boolean_table
    from verify.experiments.local_volume import trained_solution

    seen = []
    s = trained_solution("first", 3, steps=150, tries=3, D=8, progress=lambda i, seed, acc: seen.append((i, seed)))
    assert s.learned and s.tries == len(s.seeds) == len(s.accuracies) == len(seen) and s.accuracies[-1] == 1.0
    assert s.seeds == tuple(range(s.tries)) and s.seed == s.seeds[-1] and (s.model.config.L, s.model.config.N_max) == (2, 3)
    assert torch.equal(boolean_table(s.model, 3), truth_table("first", 3).to(torch.int64))
    c = local_volume("first", 3, (1e-6, 10.0), 6, seed=1, solution=s.model)
    assert [p.exact for p in c.points][0] == 6 and (c.L, c.solution) == (2, "given")
    assert "model" not in s.as_dict() and json.loads(json.dumps(s.as_dict()))["seed"] == s.seed


def test_trained_solution_reports_a_budget_that_does_not_learn():
    from verify.experiments.local_volume import trained_solution

    s = trained_solution("parity", 5, steps=1, tries=2, D=4, H=1)
    assert not s.learned and s.model is None and s.seed is None and s.seeds == (0, 1) and max(s.accuracies) < 1.0


def test_trained_shape_is_the_training_default():
    from verify.experiments import training
    from verify.experiments.local_volume import TRAINED_SHAPE

    assert TRAINED_SHAPE == {"D": training.DEFAULT_D, "L": training.DEFAULT_L, "H": training.DEFAULT_H,
                             "eps": training.DEFAULT_EPS}
