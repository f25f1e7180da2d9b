r"""Sharpness cross-validated against Hahn & Rofin's public code
(lacoco-lab/sensitivity-hardness, ``src/measurements.py::hessian_norm_proxy``).

Their definition (read from the code at :data:`PUBLIC_COMMIT`): on one batch ``(x, y)``, the
mean over ``n_repeats`` draws of ``MSELoss(model(x), y)`` with every entry of
``model.state_dict()`` whose name does not contain ``positional_encoding`` perturbed by
``torch.randn(shape, generator=rng) * epsilon``, minus the unperturbed loss; ``epsilon`` is an
absolute scale (or ``rho / sqrt(M)``, ``M`` the number of parameters whose names lack
``positional``). The noise is drawn parameter by parameter in ``state_dict`` order, one draw after
another, from ``rng``; ``random_state`` is accepted and not used, and without ``rng`` a fresh
``torch.Generator`` (its fixed default seed) is used. Their runs use ``epsilon = 0.02`` with 10
draws per batch (``conf/train_config.yaml``) or 100 (``generalization_add_train_sharpness.py``).

Two ways to put both implementations on the same model with the same draws:

- **Their model** (:func:`public_to_boolverify`). ``TorchModel`` (torch's post-LN encoder, ReLU
  MLP of width ``D``, LN :math:`\varepsilon = 10^{-5}`, a linear head read at the last position,
  token and position embeddings of width ``D/2`` concatenated) is a
  :class:`~numeric.transformer.BooleanTransformer` of the ``boolverify`` conventions with
  ``F = D`` and ``eps`` its LN epsilon: token rows :math:`(E_t, 0)`, position rows
  :math:`(0, P_n)`. boolverify reads at an appended ``eos``, the public model at its last token;
  so the public model is fed the ``N`` bits followed by one fixed bit ``c`` and the ``eos`` row is
  :math:`(E_c, 0)`; then both compute the same :math:`T(x)` for every ``x``. The noise of ``E``
  maps to the token rows (the ``eos`` row gets the noise of ``E_c``, the zero halves none), the
  fused ``in_proj`` noise splits into Q, K, V, the rest maps entry for entry.
- **Our model** (:func:`boolverify_as_public`): a subclass of their ``TorchModel`` whose forward
  is a boolverify model, with the positional table registered under ``positional_encoding``, so
  their function, unmodified, noises exactly our parameters (all but ``pos``) in our order.

In both, their function runs with ``rng = torch.Generator().manual_seed(seed)`` and torch's
default dtype set to float64 (so its draws and its model are float64; the code itself draws in
the default dtype) and torch's fused encoder-layer kernel off (:func:`_public_settings`), and :func:`replay_public_draws` draws the same numbers from the same seed in
their order for boolverify's :func:`numeric.transformer.model_sharpness`.
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import torch

from numeric.boolean import all_strings, labels
from numeric.transformer import model_sharpness
from numeric.transformer import BooleanTransformer, TransformerConfig, random_model
from numeric.transformer import CONSTRUCTED, construct
from numeric.validation import InputError, check_bool, check_int, check_real, check_seed, reject
from verify.common.tolerances import tolerance

#: The public repository and the commit whose definition is implemented here.
PUBLIC_REPO = "lacoco-lab/sensitivity-hardness"
PUBLIC_COMMIT = "146d91d51c1d47e277b83fcd402a55704f936cc7"
#: The public model's layer-norm epsilon (torch's ``TransformerEncoderLayer`` default).
PUBLIC_LN_EPS = 1e-5


@dataclass(frozen=True)
class PublicCode:
    """The public functions and classes, loaded by :func:`load_public`."""

    root: Path
    TorchModel: type
    hessian_norm_proxy: object


@contextlib.contextmanager
def _own_src_package(root):
    """Import the public ``src`` package from ``root`` without disturbing another ``src``."""
    saved = {k: v for k, v in sys.modules.items() if k == "src" or k.startswith("src.")}
    for k in saved:
        del sys.modules[k]
    sys.path.insert(0, str(root))
    try:
        yield
    finally:
        sys.path.remove(str(root))
        for k in [k for k in sys.modules if k == "src" or k.startswith("src.")]:
            del sys.modules[k]
        sys.modules.update(saved)


def load_public(root) -> PublicCode:
    """Load ``TorchModel`` and ``hessian_norm_proxy`` from a checkout of the public repository
    (or the vendored excerpt ``tests/fixtures/sensitivity_hardness``) at ``root``. The code is
    executed, in this process."""
    root = Path(root)
    if not (root / "src" / "measurements.py").is_file() or not (root / "src" / "model.py").is_file():
        reject("public", str(root), f"a checkout of {PUBLIC_REPO} (a folder with src/model.py and src/measurements.py)")
    with _own_src_package(root):
        try:
            import src.measurements as measurements
            import src.model as model
            import src.utils2 as utils2
        except ImportError as exc:
            raise InputError(f"public = {str(root)!r}: expected code that imports here; importing it failed: "
                             f"{type(exc).__name__}: {exc}") from None
    # what src.targets.Target(negative_value=0) does: the accuracy threshold of 0/1 labels
    utils2.get_output_loss_acc.negative_value = 0
    return PublicCode(root=root, TorchModel=model.TorchModel, hessian_norm_proxy=measurements.hessian_norm_proxy)


@contextlib.contextmanager
def _public_settings():
    """float64 as torch's default dtype (their draws and models follow it) and torch's fused
    inference kernel of the encoder layer off (their encoder then runs torch's standard layer
    code, as in training): in one run of six the fused float64 kernel gave a sharpness 6.6e-11
    away from the standard path's, which no rerun reproduced."""
    old = torch.get_default_dtype()
    old_fast = torch.backends.mha.get_fastpath_enabled()
    torch.set_default_dtype(torch.float64)
    torch.backends.mha.set_fastpath_enabled(False)
    try:
        with warnings.catch_warnings():
            # their code's own: the deprecated stateless.functional_call, the nested-tensor note
            warnings.filterwarnings("ignore", message=".*stateless.functional_call.*deprecated", category=FutureWarning)
            warnings.filterwarnings("ignore", message="enable_nested_tensor is True", category=UserWarning)
            yield
    finally:
        torch.set_default_dtype(old)
        torch.backends.mha.set_fastpath_enabled(old_fast)


# -- the public parameterisation -------------------------------------------------------------
def public_noised_shapes(D: int, L: int) -> list:
    """``(name, shape)`` of every entry of ``TorchModel(D, H, L).state_dict()`` that the public
    sharpness perturbs, in ``state_dict`` order (the order of its draws)."""
    shapes = [("embedding.weight", (2, D // 2))]
    for i in range(L):
        p = f"encoders.layers.{i}."
        shapes += [(p + "self_attn.in_proj_weight", (3 * D, D)), (p + "self_attn.in_proj_bias", (3 * D,)),
                   (p + "self_attn.out_proj.weight", (D, D)), (p + "self_attn.out_proj.bias", (D,)),
                   (p + "linear1.weight", (D, D)), (p + "linear1.bias", (D,)),
                   (p + "linear2.weight", (D, D)), (p + "linear2.bias", (D,)),
                   (p + "norm1.weight", (D,)), (p + "norm1.bias", (D,)),
                   (p + "norm2.weight", (D,)), (p + "norm2.bias", (D,))]
    return shapes + [("linear_head.weight", (1, D)), ("linear_head.bias", (1,))]


def replay_public_draws(shapes, draws: int, seed: int) -> dict:
    """The standard-normal draws of ``hessian_norm_proxy`` with ``rng`` seeded ``seed``: draw after
    draw, ``torch.randn(shape)`` for each ``(name, shape)`` in order (float64, as under a float64
    default dtype). Returns ``{name: (draws, *shape)}``."""
    draws = check_int(draws, "draws", lo=1)
    g = torch.Generator().manual_seed(check_int(seed, "seed", lo=0))
    out = {name: [] for name, _ in shapes}
    for _ in range(draws):
        for name, shape in shapes:
            out[name].append(torch.randn(shape, generator=g, dtype=torch.float64))
    return {name: torch.stack(zs) for name, zs in out.items()}


def _dims(public_model):
    layers = public_model.encoders.layers
    D = public_model.linear_head.in_features
    return D, layers[0].self_attn.num_heads, len(layers)


def _check_public_model(public_model, N):
    D, H, L = _dims(public_model)
    lay = public_model.encoders.layers[0]
    if lay.norm_first or lay.linear1.out_features != D or public_model.embedding.embedding_dim * 2 != D:
        reject("model", "<TorchModel>", "the public TorchModel (post-LN, MLP width = hidden_dim, even hidden_dim)")
    if public_model.positional_encoding.num_embeddings < N + 1:
        reject("N", N, f"at most max_len - 1 = {public_model.positional_encoding.num_embeddings - 1} "
               "(the public model reads N bits and the fixed last bit)")
    return D, H, L


@torch.no_grad()
def public_to_boolverify(public_model, N: int, last_bit: int = 0) -> BooleanTransformer:
    """The :class:`BooleanTransformer` (float64) that computes on ``x`` what ``public_model``
    computes on ``x`` followed by ``last_bit`` (module docstring)."""
    N = check_int(N, "N", lo=1)
    last_bit = check_int(last_bit, "last_bit", lo=0, hi=1)
    D, H, L = _check_public_model(public_model, N)
    eps = public_model.encoders.layers[0].norm1.eps
    model = BooleanTransformer(TransformerConfig(D=D, L=L, H=H, F=D, eps=eps, N_max=N))
    f64 = {k: v.detach().to(torch.float64) for k, v in public_model.state_dict().items()}
    for p in model.parameters():
        p.zero_()
    h = D // 2
    E, P = f64["embedding.weight"], f64["positional_encoding.weight"]
    model.tok[:2, :h] = E
    model.tok[2, :h] = E[last_bit]
    model.pos[:, h:] = P[: N + 1]
    for i, lay in enumerate(model.layers):
        pre = f"encoders.layers.{i}."
        for name, value in _layer_map(lay, f64, pre).items():
            value[0].copy_(value[1])
    model.out.weight.copy_(f64["linear_head.weight"])
    model.out.bias.copy_(f64["linear_head.bias"])
    return model


def _layer_map(lay, sd, pre):
    """``{our name: (our tensor, theirs)}`` of one encoder layer."""
    D = lay.q.weight.shape[0]
    W, b = sd[pre + "self_attn.in_proj_weight"], sd[pre + "self_attn.in_proj_bias"]
    pairs = {"q.weight": (lay.q.weight, W[:D]), "k.weight": (lay.k.weight, W[D:2 * D]),
             "v.weight": (lay.v.weight, W[2 * D:]), "q.bias": (lay.q.bias, b[:D]),
             "k.bias": (lay.k.bias, b[D:2 * D]), "v.bias": (lay.v.bias, b[2 * D:])}
    for ours, theirs in (("o", "self_attn.out_proj"), ("fc1", "linear1"), ("fc2", "linear2")):
        pairs[f"{ours}.weight"] = (getattr(lay, ours).weight, sd[pre + theirs + ".weight"])
        pairs[f"{ours}.bias"] = (getattr(lay, ours).bias, sd[pre + theirs + ".bias"])
    for ours, theirs in (("ln1", "norm1"), ("ln2", "norm2")):
        pairs[f"{ours}.gain"] = (getattr(lay, ours).gain, sd[pre + theirs + ".weight"])
        pairs[f"{ours}.bias"] = (getattr(lay, ours).bias, sd[pre + theirs + ".bias"])
    return pairs


def public_noise_to_boolverify(noise: dict, D: int, L: int, last_bit: int = 0) -> dict:
    """Their draws ``{their name: (K, *shape)}`` as the draws of the same perturbation of
    :func:`public_to_boolverify`'s parameters ``{our name: (K, *shape)}`` (no ``pos``)."""
    zE = noise["embedding.weight"]
    K, h = zE.shape[0], D // 2
    tok = torch.zeros(K, 3, D, dtype=zE.dtype)
    tok[:, :2, :h] = zE
    tok[:, 2, :h] = zE[:, last_bit]
    ours = {"tok": tok}
    for i in range(L):
        pre = f"encoders.layers.{i}."
        W, b = noise[pre + "self_attn.in_proj_weight"], noise[pre + "self_attn.in_proj_bias"]
        for j, name in enumerate("qkv"):
            ours[f"layers.{i}.{name}.weight"] = W[:, j * D:(j + 1) * D]
            ours[f"layers.{i}.{name}.bias"] = b[:, j * D:(j + 1) * D]
        for mine, theirs in (("o", "self_attn.out_proj"), ("fc1", "linear1"), ("fc2", "linear2")):
            ours[f"layers.{i}.{mine}.weight"] = noise[pre + theirs + ".weight"]
            ours[f"layers.{i}.{mine}.bias"] = noise[pre + theirs + ".bias"]
        for mine, theirs in (("ln1", "norm1"), ("ln2", "norm2")):
            ours[f"layers.{i}.{mine}.gain"] = noise[pre + theirs + ".weight"]
            ours[f"layers.{i}.{mine}.bias"] = noise[pre + theirs + ".bias"]
    ours["out.weight"] = noise["linear_head.weight"]
    ours["out.bias"] = noise["linear_head.bias"]
    return {k: v.contiguous() for k, v in ours.items()}


def public_n_params(D: int, L: int) -> int:
    """The ``M`` of the public ``rho`` scale: parameters whose names lack ``positional``."""
    return sum(torch.Size(s).numel() for _, s in public_noised_shapes(D, L))


# -- our model in their class ------------------------------------------------------------------
def boolverify_as_public(public: PublicCode, model: BooleanTransformer):
    """An instance of a subclass of the public ``TorchModel`` whose forward is ``model``'s
    :math:`T(x)` (``x``: the ``N`` bits), holding ``model``'s parameters under names that the
    public sharpness treats as ours: ``pos`` under ``positional_encoding``, the others in
    ``model.named_parameters()`` order."""
    class BooleanTransformerAsTorchModel(public.TorchModel):
        def __init__(self, inner):
            torch.nn.Module.__init__(self)
            names = [n for n, _ in inner.named_parameters()]
            self.template = [inner]  # a list, so that the inner model's own parameters stay unregistered
            self.names = names
            # plain modules, not ParameterDicts (those list their keys sorted): the public code
            # draws in state_dict order, which must be ours
            self.theta = torch.nn.Module()
            for n, p in inner.named_parameters():
                if n != "pos":
                    self.theta.register_parameter(n.replace(".", "__"), torch.nn.Parameter(p.detach().clone()))
            self.positional_encoding = torch.nn.Module()
            self.positional_encoding.register_parameter("pos", torch.nn.Parameter(inner.pos.detach().clone()))

        def forward(self, x):
            params = {n: (self.positional_encoding.pos if n == "pos" else getattr(self.theta, n.replace(".", "__")))
                      for n in self.names}
            return torch.func.functional_call(self.template[0], params, (x,))

    return BooleanTransformerAsTorchModel(model)


# -- the comparison ----------------------------------------------------------------------------
@dataclass(frozen=True)
class SharpnessComparison:
    """One model: both values of the sharpness on the same batch and draws."""

    model: str
    ours: float
    theirs: float
    base_loss: float
    sigma: float
    draws: int
    seed: int

    @property
    def difference(self) -> float:
        return self.ours - self.theirs

    def agrees(self) -> bool:
        """Within the float64 row of the tolerance table, the absolute part scaled by the loss
        (the sharpness is a difference of losses, so its rounding is relative to them)."""
        tol = tolerance("float64")
        return abs(self.difference) <= tol.rtol * abs(self.theirs) + tol.atol * max(1.0, abs(self.base_loss))

    def as_dict(self) -> dict:
        return {"model": self.model, "ours": self.ours, "theirs": self.theirs, "difference": self.difference,
                "base_loss": self.base_loss, "sigma": self.sigma, "draws": self.draws, "seed": self.seed,
                "agrees": self.agrees()}


def _check_run(sigma, draws, seed, seeds=1):
    # sigma = 0 would compare 0 with 0: an agreement that tests nothing
    return (check_real(sigma, "sigma", lo=0, lo_open=True), check_int(draws, "draws", lo=1),
            check_seed(seed, "seed", count=seeds))


def _check_finite_row(row: "SharpnessComparison") -> "SharpnessComparison":
    """A row whose two values are both NaN or infinite compares nothing (neither an agreement nor
    a disagreement): the noise scale is out of the range where the loss is a float."""
    import math

    if not (math.isfinite(row.ours) or math.isfinite(row.theirs)):
        reject("sigma", row.sigma, f"a noise scale at which the sharpness is a finite number (both "
               f"implementations give {row.ours!r} / {row.theirs!r} on {row.model})")
    return row


def compare_public_model(public: PublicCode, public_model, name: str, function: str, N: int, *,
                         sigma: float = 0.02, rho: float | None = None, draws: int = 10, seed: int = 0,
                         last_bit: int = 0) -> SharpnessComparison:
    """Their sharpness of ``public_model`` on all ``2^N`` strings (each followed by ``last_bit``)
    labelled by ``function``, and ours of :func:`public_to_boolverify` with the replayed draws.
    ``rho`` (instead of ``sigma``): their relative scale."""
    sigma, draws, seed = _check_run(sigma, draws, seed)
    x = all_strings(N).to(torch.long)
    y = labels(function, x)
    with _public_settings():
        public_model = public_model.to(torch.float64)
        x_pub = torch.cat([x, torch.full((x.shape[0], 1), last_bit, dtype=torch.long)], dim=1)
        kw = dict(epsilon=None, rho=rho) if rho is not None else dict(epsilon=sigma)
        theirs = public.hessian_norm_proxy(x_pub, y, public_model, torch.nn.MSELoss(), n_repeats=draws,
                                           rng=torch.Generator().manual_seed(seed), **kw)
    D, _, L = _dims(public_model)
    ours_model = public_to_boolverify(public_model, N, last_bit)
    noise = public_noise_to_boolverify(replay_public_draws(public_noised_shapes(D, L), draws, seed), D, L, last_bit)
    if rho is not None:
        # their M counts their parameters, not the zero halves of our token table
        sigma = rho / public_n_params(D, L) ** 0.5
    est = model_sharpness(ours_model, x, y.to(torch.float64), sigma, noise=noise)
    return SharpnessComparison(name, est.value, float(theirs), est.base_loss, sigma, draws, seed)


def compare_boolverify_model(public: PublicCode, model: BooleanTransformer, name: str, function: str, N: int, *,
                             sigma: float = 0.02, draws: int = 10, seed: int = 0) -> SharpnessComparison:
    """Their sharpness of ``model`` (through :func:`boolverify_as_public`) and ours, on all
    ``2^N`` strings labelled by ``function``, with the same draws."""
    sigma, draws, seed = _check_run(sigma, draws, seed)
    x = all_strings(N).to(torch.long)
    y = labels(function, x)
    with _public_settings():
        wrapped = boolverify_as_public(public, model)
        theirs = public.hessian_norm_proxy(x, y, wrapped, torch.nn.MSELoss(), epsilon=sigma, n_repeats=draws,
                                           rng=torch.Generator().manual_seed(seed))
    shapes = [(n, tuple(p.shape)) for n, p in model.named_parameters() if n != "pos"]
    est = model_sharpness(model, x, y.to(torch.float64), sigma, noise=replay_public_draws(shapes, draws, seed))
    return SharpnessComparison(name, est.value, float(theirs), est.base_loss, sigma, draws, seed)


def train_public_model(public: PublicCode, function: str, N: int, *, D: int = 8, H: int = 2, L: int = 1,
                       steps: int = 150, lr: float = 1e-2, seed: int = 0, last_bit: int = 0):
    """A public ``TorchModel`` (float64) trained by full-batch AdamW on the MSE of ``function`` over
    all strings (each followed by ``last_bit``), as their training loop does per batch (their
    optimiser, loss and ``weight_decay = 0.1``; our step count and rate, so it runs in seconds).
    Returns ``(model, final training loss)``."""
    steps = check_int(steps, "steps", lo=0)
    lr = check_real(lr, "lr", lo=0, lo_open=True)
    x = all_strings(N).to(torch.long)
    x_pub = torch.cat([x, torch.full((x.shape[0], 1), last_bit, dtype=torch.long)], dim=1)
    y = labels(function, x).to(torch.float64)
    with _public_settings():
        torch.manual_seed(seed)
        model = public.TorchModel(hidden_dim=D, num_attn_heads=H, num_layers=L, max_len=N + 1)
        opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.1)
        for _ in range(steps):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x_pub), y)
            loss.backward()
            opt.step()
        with torch.no_grad():
            final = float(torch.nn.functional.mse_loss(model(x_pub), y))
    return model.eval(), final


def public_random_model(public: PublicCode, *, D: int, H: int, L: int, N: int, seed: int):
    """A public ``TorchModel`` at torch's default initialisation under ``torch.manual_seed(seed)``."""
    with _public_settings():
        torch.manual_seed(check_int(seed, "seed", lo=0))
        return public.TorchModel(hidden_dim=D, num_attn_heads=H, num_layers=L, max_len=N + 1).eval()


#: The models of the cross-validation table (docs/crossval.md): public models at their default
#: initialisation, public models trained briefly, boolverify's constructions and random models.
PUBLIC_RANDOM = (  # (D, H, L, N, seed)
    (8, 2, 1, 5, 0), (8, 2, 2, 6, 1), (16, 2, 2, 6, 2), (16, 4, 1, 7, 3), (12, 3, 3, 5, 4), (32, 2, 2, 8, 5),
)
#: the functions the public code trains a model of here (N = 5, D = 8, H = 2, L = 1): a fact about
#: the public code, not about boolverify's registries
PUBLIC_TRAINED = ("first", "majority", "parity")
BOOLVERIFY_RANDOM = ((0, 1.0), (1, 3.0))  # (seed, B): uniform init U(-B, B), D = 8, L = 2, H = 2, N = 6


#: the draws of the table's models use the seeds ``seed .. seed + SEED_SPAN - 1`` (offsets below)
SEED_SPAN = 32


def draw_flops(quick: bool = False) -> float:
    """Multiply-adds of one noise draw over the whole table (``quick``: one model of each kind):
    per model, both implementations run it on all 2^N strings, each of N + 1 positions through
    the projections, the MLP and the attention of every layer. A lower bound for time estimates."""
    quick = check_bool(quick, "quick")
    pick = (lambda t: t[:1]) if quick else (lambda t: t)
    shapes = ([(D, L, N) for D, _, L, N, _ in pick(PUBLIC_RANDOM)] + [(8, 1, 5)] * len(pick(PUBLIC_TRAINED))
              + [(construct(fn, 6).config.D, construct(fn, 6).config.L, 6) for fn in pick(CONSTRUCTED)]
              + [(8, 2, 6)] * len(pick(BOOLVERIFY_RANDOM)))
    return float(sum(2 * (1 << N) * (N + 1) * L * (4 * D * D + 2 * D * 4 * D + 2 * (N + 1) * D)
                     for D, L, N in shapes))


def n_models(quick: bool = False) -> int:
    """Models in the table (``quick``: one of each kind)."""
    quick = check_bool(quick, "quick")
    kinds = (PUBLIC_RANDOM, PUBLIC_TRAINED, CONSTRUCTED, BOOLVERIFY_RANDOM)
    return sum(1 if quick else len(k) for k in kinds)


def crossval_table(public: PublicCode, *, sigma: float = 0.02, draws: int = 10, seed: int = 0,
                   quick: bool = False, progress=None) -> list:
    """:class:`SharpnessComparison` of every model of the table (``quick``: one of each kind);
    ``progress(done, total, name)`` after each model. A model on which both values are NaN or
    infinite is refused (an :class:`InputError` naming ``sigma``) at once."""
    quick = check_bool(quick, "quick")
    sigma, draws, seed = _check_run(sigma, draws, seed, SEED_SPAN)
    total = n_models(quick)
    rows = []

    def add(row):
        rows.append(_check_finite_row(row))
        if progress is not None:
            progress(len(rows), total, row.model)

    for i, (D, H, L, N, s) in enumerate(PUBLIC_RANDOM[:1] if quick else PUBLIC_RANDOM):
        m = public_random_model(public, D=D, H=H, L=L, N=N, seed=s)
        add(compare_public_model(public, m, f"public init D={D} H={H} L={L} N={N} seed={s}", "parity", N,
                                 sigma=sigma, draws=draws, seed=seed + i, last_bit=i % 2))
    for i, fn in enumerate(PUBLIC_TRAINED[:1] if quick else PUBLIC_TRAINED):
        m, final = train_public_model(public, fn, 5, seed=i, steps=40 if quick else 150)
        add(compare_public_model(public, m, f"public trained on {fn} D=8 H=2 L=1 N=5 (MSE {final:.2g})", fn,
                                 5, sigma=sigma, draws=draws, seed=seed + 10 + i))
    for i, fn in enumerate(CONSTRUCTED[:1] if quick else CONSTRUCTED):
        add(compare_boolverify_model(public, construct(fn, 6), f"boolverify construction {fn}, N=6", fn, 6,
                                     sigma=sigma, draws=draws, seed=seed + 20 + i))
    for s, B in BOOLVERIFY_RANDOM[:1] if quick else BOOLVERIFY_RANDOM:
        m = random_model(TransformerConfig(D=8, L=2, H=2, eps=1e-5, N_max=6), "uniform", s, B=B)
        add(compare_boolverify_model(public, m, f"boolverify uniform B={B:g} D=8 L=2 seed={s}", "majority", 6,
                                     sigma=sigma, draws=draws, seed=seed + 30 + s))
    return rows


__all__ = ["PUBLIC_REPO", "PUBLIC_COMMIT", "PUBLIC_LN_EPS", "PublicCode", "load_public", "public_noised_shapes",
           "replay_public_draws", "public_to_boolverify", "public_noise_to_boolverify", "public_n_params",
           "boolverify_as_public", "SharpnessComparison", "compare_public_model", "compare_boolverify_model",
           "train_public_model", "public_random_model", "crossval_table", "draw_flops", "n_models", "SEED_SPAN", "PUBLIC_RANDOM", "PUBLIC_TRAINED",
           "CONSTRUCTED", "BOOLVERIFY_RANDOM"]
