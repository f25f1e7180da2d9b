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
