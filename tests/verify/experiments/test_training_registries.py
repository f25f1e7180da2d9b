"""Conformance of the training registries with the vocabularies: the losses of
:mod:`verify.experiments.training` are exactly ``numeric.vocabulary.LOSSES``, the optimisers of
:mod:`verify.experiments.attention_comparison` exactly ``numeric.vocabulary.OPTIMIZERS``; a name
added to a vocabulary without an entry is refused at every public entry point (never run as
another loss or optimiser); and the registries compute what the code computed before them
(outputs pinned bit for bit: the same operations in the same order)."""

from __future__ import annotations

import pytest
import torch

import numeric.vocabulary as vocabulary
from numeric.validation import InputError
from verify.cli import main
from verify.experiments import attention_comparison as ac
from verify.experiments import training
from verify.experiments.xor_sweeps import cell_support, make_instances

FAKE_LOSS = "hinge"
FAKE_OPTIMIZER = "sgd_momentum"


def test_registry_keys_are_the_vocabularies():
    assert tuple(training.TRAINING_LOSSES) == vocabulary.LOSSES
    assert tuple(ac.TRAINING_OPTIMIZERS) == vocabulary.OPTIMIZERS
    for registry in (training.TRAINING_LOSSES, ac.TRAINING_OPTIMIZERS):
        assert all(entry.name == key for key, entry in registry.items())


@pytest.fixture
def fake_loss(monkeypatch):
    monkeypatch.setattr(vocabulary, "LOSSES", vocabulary.LOSSES + (FAKE_LOSS,))
    return FAKE_LOSS


@pytest.fixture
def fake_optimizer(monkeypatch):
    monkeypatch.setattr(vocabulary, "OPTIMIZERS", vocabulary.OPTIMIZERS + (FAKE_OPTIMIZER,))
    return FAKE_OPTIMIZER


def _xor_instance():
    V, th0, tt0 = make_instances(8, 3, [0, 1, 2])
    return V, th0, tt0, cell_support(8, 1, 3)


def test_every_training_entry_point_refuses_a_loss_without_entry(fake_loss):
    calls = {
        "training_loss": lambda: training.training_loss(fake_loss),
        "validate_options": lambda: training.validate_options("majority", 4, loss=fake_loss),
        "train": lambda: training.train("majority", 4, steps=2, loss=fake_loss),
        "run_training_grid": lambda: training.run_training_grid(["majority"], [4], 1, loss=fake_loss),
    }
    for name, call in calls.items():
        with pytest.raises(InputError, match="implements") as info:
            call()
        assert FAKE_LOSS in str(info.value), name


def test_fit_refuses_a_loss_without_entry_before_any_step(fake_loss):
    model = torch.nn.Linear(4, 1).double()
    gen, pool, _ = training.training_data(4, 0, None)
    with pytest.raises(InputError, match="implements"):
        training.fit(model, "majority", 4, pool, gen, steps=1, batch_size=4, loss=fake_loss, lr=1e-3,
                     weight_decay=0.0, dtype=torch.float64, device="cpu", seed=0)


def test_the_cli_refuses_a_loss_without_entry(fake_loss, capsys):
    rc = main(["sensitivity", "train", "--target", "majority", "--N", "4", "--steps", "2",
               "--loss", fake_loss])
    assert rc == 2
    assert "--loss" in capsys.readouterr().err


def test_every_comparison_entry_point_refuses_an_optimizer_without_entry(fake_optimizer):
    V, th0, tt0, sup = _xor_instance()
    calls = {
        "optimizer_of": lambda: ac.optimizer_of(fake_optimizer),
        "train": lambda: ac.train(V, th0, tt0, sup, optimizer=fake_optimizer, steps=1),
        "train_entry": lambda: ac.train_entry(V, th0, tt0, sup, "softmax", fake_optimizer, 0.1, 1),
    }
    for name, call in calls.items():
        with pytest.raises(InputError, match="implement") as info:
            call()
        assert FAKE_OPTIMIZER in str(info.value), name


@pytest.mark.parametrize("call, name", [
    (lambda: training.training_loss("BCE"), "loss"),
    (lambda: training.training_loss(None), "loss"),
    (lambda: training.training_loss(["bce"]), "loss"),
    (lambda: training.validate_options("majority", 4, loss="l2"), "loss"),
    (lambda: ac.optimizer_of("sgd"), "optimizer"),
    (lambda: ac.optimizer_of(0), "optimizer"),
    (lambda: ac.train(*_xor_instance(), optimizer="Adam", steps=1), "optimizer"),
])
def test_invalid_names_are_refused(call, name):
    with pytest.raises(InputError) as info:
        call()
    assert info.value.name == name


@pytest.mark.parametrize("argv", [["--loss", "l2"], ["--loss", ""]])
def test_the_cli_refuses_an_unknown_loss(argv, capsys):
    assert main(["sensitivity", "train", "--target", "majority", "--N", "4", "--steps", "2", *argv]) == 2
    assert "--loss" in capsys.readouterr().err


# ----------------------------------------------------------------------------- pinned outputs
# Captured from the code before the registries (its if/else dispatch) at these arguments; the
# registries run the same operations in the same order, so the floats are equal bit for bit.
# The softmax XOR values were captured again when the softmax cotangent took its fewer-pass form
# (the same formulas, rounded differently: the final losses moved by at most 3e-14 of themselves;
# linear and erf, whose cotangent did not change, kept their bits).

PINNED_TRAINING = {
    "bce": (float.fromhex("0x1.9eb1f5f4998afp-2"), float.fromhex("0x1.52f48cf2e3477p-2"), 1.0),
    "mse": (float.fromhex("0x1.b379e9d9b9f40p-1"), float.fromhex("0x1.0d9683d00228ep-1"), 0.8125),
}

PINNED_XOR_TRAINING = {
    "gd": ["0x1.93929e29b624ap-1", "0x1.d4890ac709991p-2", "0x1.a81cf3f32efcep-1"],
    "adam": ["0x1.e38e70ae63a51p-1", "0x1.a30bc0a114705p-1", "0x1.e6759ce1e254dp-1"],
}

PINNED_COMPARISON = {
    "softmax": {"gd": "0x1.acfdf2f17dd6ep-54", "adam": "0x1.db27b4c44cc93p-1"},
    "linear": {"gd": "0x1.cd990935a12ddp-1", "adam": "0x1.f8dcb17f72cd0p-1"},
    "erf": {"gd": "0x1.ea7cec77fb22ep-1", "adam": "0x1.f6b7176621ae3p-1"},
}


@pytest.mark.parametrize("loss", sorted(PINNED_TRAINING))
def test_training_losses_are_pinned(loss):
    r = training.train("majority", 4, steps=12, batch_size=8, seed=1, loss=loss)
    final, before_last, accuracy = PINNED_TRAINING[loss]
    assert r.final_loss == final
    assert r.loss_curve[-2] == (11, before_last)
    assert r.accuracy == accuracy


@pytest.mark.parametrize("optimizer, lr", [("gd", 5.0), ("adam", 0.05)])
def test_xor_optimizers_are_pinned(optimizer, lr):
    V, th0, tt0, sup = _xor_instance()
    res = ac.train(V, th0, tt0, sup, attention="softmax", optimizer=optimizer, steps=6, lr=lr,
                   record_every=3)
    assert res["loss"][-1].tolist() == [float.fromhex(x) for x in PINNED_XOR_TRAINING[optimizer]]


def test_comparison_is_pinned():
    res = ac.compare(d=8, m=3, n_seeds=3, steps=4, record_every=2)
    for att, by_optimizer in PINNED_COMPARISON.items():
        for opt, median in by_optimizer.items():
            assert res.results[att][opt]["median_final_loss"] == float.fromhex(median), (att, opt)
    assert ac.ONE_STEP_BELOW_KEY in res.results["softmax"]["one_step"]


def test_one_step_key_keeps_its_format():
    assert ac.ONE_STEP_BELOW_KEY == "frac_below_1e-6"
    assert ac.below_key(1e-10) == "frac_below_1e-10"
