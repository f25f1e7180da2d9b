"""The local-volume figure draws trained curves beside the constructions' radii."""

from verify.experiments.local_volume import local_volume
from verify.report.volume_figures import volume_figure


def test_figure_with_constructed_radii_beside(tmp_path):
    grid = (1e-3, 1e-2, 1e-1, 1.0)
    curves = [local_volume("parity", N, grid, 4, seed=1).as_dict() for N in (3, 4)]
    path = volume_figure(curves, tmp_path / "v.png", compare=curves)
    assert path.stat().st_size > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.png", "v.provenance.json"]  # no temporary
