"""boolverify's sharpness (numeric.transformer._sharpness) against Hahn & Rofin's own ``hessian_norm_proxy``
(lacoco-lab/sensitivity-hardness, vendored under tests/fixtures/sensitivity_hardness) on the same
models and the same noise draws (verify.crossval.sharpness), within the float64 tolerance table;
and the checks that make the comparison able to fail: the replayed draws are theirs, the mapped
model computes theirs, and planted bugs (noise scaled by sigma^2, the positions noised, a wrong
draw order) disagree."""

from __future__ import annotations

import pytest
import torch

from numeric.boolean._functions import all_strings, labels
from numeric.transformer._constructions import construct
from numeric.transformer._sharpness import model_sharpness
from numeric.validation import InputError
from verify.common.tolerances import assert_close
from verify.crossval import sharpness as xs
from tests.helpers import PROJECT_ROOT

PUBLIC_ROOT = PROJECT_ROOT / "tests" / "fixtures" / "sensitivity_hardness"

pytestmark = pytest.mark.skipif(not (PUBLIC_ROOT / "src" / "measurements.py").is_file(),
                                reason="the vendored public code (tests/fixtures/sensitivity_hardness) is absent")


@pytest.fixture(scope="module")
def public():
    return xs.load_public(PUBLIC_ROOT)


@pytest.fixture(scope="module")
def random_public_model(public):
    return xs.public_random_model(public, D=8, H=2, L=2, N=5, seed=1)


def _assert_agree(row):
    assert row.agrees(), (f"{row.model}: ours {row.ours!r}, theirs {row.theirs!r}, "
                          f"difference {row.difference:.3e} (base loss {row.base_loss:.3g})")


def test_quick_table_agrees(public):
    rows = xs.crossval_table(public, quick=True)
    assert len(rows) == 4
    for row in rows:
        _assert_agree(row)
        assert row.ours != 0.0


@pytest.mark.slow
def test_full_table_agrees(public):
    rows = xs.crossval_table(public)
    assert len(rows) >= 10
    for row in rows:
        _assert_agree(row)


def test_their_relative_scale_rho_agrees(public, random_public_model):
    _assert_agree(xs.compare_public_model(public, random_public_model, "rho", "first", 5, rho=0.5, draws=4, seed=3))


def test_the_draw_order_is_their_state_dict_order(public, random_public_model):
    names = [n for n in random_public_model.state_dict() if "positional_encoding" not in n]
    shapes = xs.public_noised_shapes(8, 2)
    assert [n for n, _ in shapes] == names
    sd = random_public_model.state_dict()
    assert all(tuple(sd[n].shape) == s for n, s in shapes)
    assert xs.public_n_params(8, 2) == sum(p.numel() for n, p in random_public_model.named_parameters()
                                           if "positional" not in n)


@pytest.mark.parametrize("last_bit", [0, 1])
def test_the_mapped_model_computes_theirs(public, random_public_model, last_bit):
    x = all_strings(5).to(torch.long)
    ours = xs.public_to_boolverify(random_public_model, 5, last_bit)
    with torch.no_grad():
        theirs = random_public_model.to(torch.float64)(torch.cat([x, torch.full((32, 1), last_bit)], 1))
        mine = ours(x)
    for a, b in zip(mine.tolist(), theirs.tolist()):
        assert_close(a, b, scale=max(1.0, abs(b)), what="T(x)")


def test_our_model_in_their_class_computes_ours(public):
    model = construct("first", 5)
    x = all_strings(5).to(torch.long)
    with torch.no_grad():
        assert torch.equal(xs.boolverify_as_public(public, model)(x), model(x))


def _planted(public, model, N, bug):
    """Ours with a planted bug, against theirs, on the boolverify-model path."""
    x = all_strings(N).to(torch.long)
    y = labels("majority", x)
    row = xs.compare_boolverify_model(public, model, "planted", "majority", N, sigma=0.1, draws=4, seed=7)
    shapes = [(n, tuple(p.shape)) for n, p in model.named_parameters() if n != "pos"]
    noise = xs.replay_public_draws(shapes, 4, 7)
    if bug == "sigma_squared":
        est = model_sharpness(model, x, y.double(), 0.1 ** 2, noise=noise)
    elif bug == "positions_noised":
        noise = xs.replay_public_draws([(n, tuple(p.shape)) for n, p in model.named_parameters()], 4, 7)
        est = model_sharpness(model, x, y.double(), 0.1, noise=noise)
    else:  # parameter-major instead of draw-major draws
        g = torch.Generator().manual_seed(7)
        noise = {n: torch.randn((4,) + s, generator=g, dtype=torch.float64) for n, s in shapes}
        est = model_sharpness(model, x, y.double(), 0.1, noise=noise)
    return xs.SharpnessComparison("planted", est.value, row.theirs, est.base_loss, 0.1, 4, 7)


@pytest.mark.parametrize("bug", ["sigma_squared", "positions_noised", "draw_order"])
def test_planted_bugs_disagree(public, bug):
    model = construct("majority", 5)
    assert not _planted(public, model, 5, bug).agrees()


def test_bad_input(public, random_public_model, tmp_path):
    with pytest.raises(InputError) as info:
        xs.load_public(tmp_path)
    assert info.value.name == "public"
    with pytest.raises(InputError) as info:
        xs.public_to_boolverify(random_public_model, 6)  # max_len = 6 holds 5 bits and the last one
    assert info.value.name == "N"
    with pytest.raises(InputError) as info:
        xs.public_to_boolverify(random_public_model, 5, last_bit=2)
    assert info.value.name == "last_bit"
    with pytest.raises(InputError) as info:
        xs.compare_public_model(public, random_public_model, "m", "first", 5, draws=0)
    assert info.value.name == "draws"
    bad = tmp_path / "src"
    bad.mkdir()
    (bad / "model.py").write_text("import a_module_that_is_not_installed\n")
    (bad / "measurements.py").write_text("from src.model import TorchModel\n")
    (bad / "__init__.py").write_text("")
    with pytest.raises(InputError) as info:
        xs.load_public(tmp_path)
    assert info.value.name == "public" and "a_module_that_is_not_installed" in str(info.value)


def test_cli_quick_run_and_bad_input(cli, tmp_path):
    out_json = tmp_path / "rows.json"
    rc, out, err = cli("crossval", "sharpness", "--public", str(PUBLIC_ROOT), "--quick", "--draws", "3",
                       "--json", str(out_json))
    assert rc == 0, out + err
    assert "4/4 models agree" in out and out_json.is_file()
    for argv, name in ((["--public", str(tmp_path)], "--public"), (["--draws", "0"], "--draws"),
                       (["--sigma", "-1"], "--sigma"), (["--sigma", "nan"], "--sigma"), (["--seed", "-1"], "--seed")):
        full = ["crossval", "sharpness", "--public", str(PUBLIC_ROOT), *argv] if argv[0] != "--public" else \
            ["crossval", "sharpness", *argv]
        rc, out, err = cli(*full)
        assert rc == 2 and name in err and len(err.strip().splitlines()) == 1, (argv, err)
