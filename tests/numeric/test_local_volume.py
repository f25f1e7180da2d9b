"""The perturbation directions of numeric.transformer._local_volume: volume_point evaluates the chunks of
perturbation_chunks, each direction a fresh draw from one generator stream."""

import torch

from numeric.transformer._constructions import construct
from numeric.transformer._local_volume import (batched_outputs, kept_values, perturbation_chunks, stacked_parameters,
                                  volume_point)
from numeric.boolean._functions import truth_table


def test_chunks_cover_every_model_with_distinct_directions():
    model = construct("majority", 4)
    chunks = list(perturbation_chunks(model, 1.0, 70, torch.Generator().manual_seed(0), chunk=32))
    assert [c["tok"].shape[0] for c in chunks] == [32, 32, 6]
    star = stacked_parameters(model, 70)
    z = torch.cat([torch.cat([(c[k] - star[k][: c[k].shape[0]]).reshape(c[k].shape[0], -1) for k in c], 1)
                   for c in chunks])
    assert torch.unique(z, dim=0).shape[0] == 70


def test_volume_point_evaluates_the_chunks():
    model, N = construct("parity", 4), 4
    table = truth_table("parity", N)
    chunks = perturbation_chunks(model, 0.01, 40, torch.Generator().manual_seed(5), chunk=16)
    exact = sum(int(kept_values(batched_outputs(model, t, N), table).all(-1).sum()) for t in chunks)
    point = volume_point(model, table, N, 0.01, 40, torch.Generator().manual_seed(5), chunk=16)
    assert point["exact"] == exact and 0 < exact < 40
