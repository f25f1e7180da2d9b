"""Cross-validation of other people's implementations against boolverify's references.

Three kinds of target:

- a loss or gradient function of the two-head model (``MODULE:FUNCTION``), driven by
  Hypothesis against the 50-digit :mod:`verify.reference.population`; a mismatch is shrunk to the
  smallest ``d``, ``m`` and values before it is reported;
- a file of instances with claimed losses/gradients (``.json`` or ``.npz``; schema in
  ``docs/crossval.md``);
- a sensitivity-profile implementation (``MODULE:FUNCTION`` mapping a truth table to a
  profile or an average sensitivity), or a truth-table file with a claimed profile.

Conventions found in public code are adapted explicitly (:class:`XorConventions`,
:class:`ProfileConventions`); nothing is guessed.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

from numeric.validation import (
    InputError, check_choice, check_int, check_ints, check_real, check_support,
)
from numeric.vocabulary import ATTENTIONS
from verify.common.tolerances import is_close

#: Input types a two-head implementation can be handed (:class:`XorConventions`).
ARRAY_KINDS = ("numpy", "torch", "list")
#: What :func:`crossval_xor` checks: the loss or the two gradients.
XOR_KINDS = ("loss", "grad")
#: Table values and return values of a profile implementation (:class:`ProfileConventions`).
TABLE_VALUES = ("01", "pm1")
PROFILE_RETURNS = ("profile", "average", "normalised")


# --------------------------------------------------------------------------- loading


def load_callable(spec: str):
    """Import ``MODULE:FUNCTION`` (a dotted module or a ``path/to/file.py``) and return the function."""
    if not isinstance(spec, str) or spec.count(":") != 1 or not all(spec.split(":")):
        raise InputError(f"target = {spec!r}: expected MODULE:FUNCTION, e.g. mypkg.model:loss or ./impl.py:grad")
    mod_name, func_name = spec.split(":")
    try:
        if mod_name.endswith(".py"):
            path = Path(mod_name)
            if not path.is_file():
                raise InputError(f"module file {mod_name!r} does not exist")
            module_spec = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(module_spec)
            sys.path.insert(0, str(path.parent.resolve()))
            try:
                module_spec.loader.exec_module(module)
            finally:
                sys.path.pop(0)
        else:
            if "" not in sys.path:
                sys.path.insert(0, "")  # like `python -m`: the current folder is importable
            module = importlib.import_module(mod_name)
    except InputError:
        raise
    except ModuleNotFoundError as exc:
        raise InputError(f"cannot import module {mod_name!r}: {exc}") from None
    except Exception as exc:  # the user's module raised while importing
        raise InputError(f"importing {mod_name!r} raised {type(exc).__name__}: {exc}") from None
    if not hasattr(module, func_name):
        raise InputError(f"module {mod_name!r} has no attribute {func_name!r}")
    fn = getattr(module, func_name)
    if not callable(fn):
        raise InputError(f"{spec!r} is not callable (it is a {type(fn).__name__})")
    return fn


class TargetRaised(Exception):
    """The function under test raised; carries the original exception."""

    def __init__(self, exc, inputs):
        super().__init__(f"{type(exc).__name__}: {exc}")
        self.exc = exc
        self.inputs = inputs


# --------------------------------------------------------------------------- two-head model


@dataclass
class XorConventions:
    """How the implementation under test differs from boolverify's conventions.

    Attributes:
        array: input type handed to the function: ``"numpy"``, ``"torch"`` or ``"list"``.
        index_base: 0 (ours) or 1 (support given 1-based).
        loss_scale: the implementation's loss divided by ours, e.g. 0.5 for the
            :math:`\\tfrac12` MSE convention (gradients scale the same way).
        attention: which attention map to test; passed as keyword ``attention=`` when the
            function has such a parameter.
    """

    array: str = "numpy"
    index_base: int = 0
    loss_scale: float = 1.0
    attention: str = "softmax"

    def __post_init__(self):
        check_choice(self.array, "array", ARRAY_KINDS)
        self.index_base = check_int(self.index_base, "index_base", lo=0, hi=1)
        self.loss_scale = check_real(self.loss_scale, "loss_scale", lo=0, lo_open=True)
        check_choice(self.attention, "attention", ATTENTIONS)


def _as_array(x, kind):
    import numpy as np

    arr = np.asarray(x, dtype=np.float64)
    if kind == "numpy":
        return arr
    if kind == "torch":
        import torch

        return torch.from_numpy(arr.copy())
    return arr.tolist()


def _to_floats(value, what):
    """Flatten a returned scalar/array (numpy, torch, list) to a list of Python floats."""
    import numpy as np

    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    try:
        arr = np.asarray(value, dtype=np.float64).ravel()
    except (TypeError, ValueError) as exc:
        raise InputError(f"{what}: cannot read the returned value as numbers ({exc})") from None
    return [float(v) for v in arr]


def _call(fn, conv: XorConventions, V, theta, theta_tilde, support):
    a, b = support
    args = (_as_array(V, conv.array), _as_array(theta, conv.array), _as_array(theta_tilde, conv.array),
            (a + conv.index_base, b + conv.index_base))
    kwargs = {}
    try:
        if "attention" in inspect.signature(fn).parameters:
            kwargs["attention"] = conv.attention
    except (TypeError, ValueError):
        pass
    return fn(*args, **kwargs)


def _reference(kind, V, theta, theta_tilde, support, attention):
    from verify import reference

    if kind == "loss":
        return [float(reference.population_loss(V, theta, theta_tilde, support, attention=attention))]
    g, gt = reference.population_grad(V, theta, theta_tilde, support, attention=attention)
    return [float(x) for x in g] + [float(x) for x in gt]


def _received(kind, out, m):
    if kind == "loss":
        vals = _to_floats(out, "loss")
        if len(vals) != 1:
            raise InputError(f"loss function returned {len(vals)} numbers; expected one scalar")
        return vals
    if isinstance(out, (tuple, list)) and len(out) == 2:
        vals = _to_floats(out[0], "grad_theta") + _to_floats(out[1], "grad_theta_tilde")
    else:
        vals = _to_floats(out, "gradient")
    if len(vals) != 2 * m:
        raise InputError(
            f"gradient function returned {len(vals)} numbers; expected (grad_theta, grad_theta_tilde) of {m} each"
        )
    return vals


@dataclass
class Mismatch:
    inputs: dict
    expected: list
    received: list
    error: str = ""

    def describe(self) -> str:
        d, m = self.inputs["d"], self.inputs["m"]
        lines = [f"smallest counterexample found: d={d}, m={m}, support={tuple(self.inputs['support'])}, "
                 f"attention={self.inputs['attention']}"]
        for key in ("V", "theta", "theta_tilde"):
            lines.append(f"  {key} = {self.inputs[key]}")
        if self.error:
            lines.append(f"  the function raised {self.error}")
        else:
            lines.append(f"  expected = {self.expected}")
            lines.append(f"  received = {self.received}")
        return "\n".join(lines)


@dataclass
class CrossvalResult:
    ok: bool
    examples: int
    mismatch: Mismatch | None = None
    rows: list = field(default_factory=list)


def _run_property(prop, last, count) -> CrossvalResult:
    """Run a Hypothesis property that records each mismatch in ``last`` before failing."""
    try:
        prop()
    except InputError:
        raise
    except Exception:
        if not last:
            raise
        # Hypothesis replays the shrunk example last.
        return CrossvalResult(ok=False, examples=count[0], mismatch=last[-1])
    return CrossvalResult(ok=True, examples=count[0])


def _xor_instances():
    """Hypothesis strategy of (d, m, V, theta, theta_tilde, support): unit rows, moderate to large logits."""
    from hypothesis import strategies as st

    @st.composite
    def instance(draw):
        d = draw(st.integers(2, 8))
        m = draw(st.integers(1, 6))
        comp = st.floats(-1, 1, allow_nan=False, allow_infinity=False)
        rows = []
        for _ in range(d):
            row = draw(st.lists(comp, min_size=m, max_size=m))
            norm = math.sqrt(sum(x * x for x in row))
            if norm < 1e-3:
                row = [1.0] + [0.0] * (m - 1)
                norm = 1.0
            rows.append([x / norm for x in row])
        scale = draw(st.sampled_from([1.0, 4.0, 30.0]))
        theta = [scale * x for x in draw(st.lists(comp, min_size=m, max_size=m))]
        tilde = draw(st.sampled_from(["antisymmetric", "free"]))
        theta_tilde = [-x for x in theta] if tilde == "antisymmetric" else [
            scale * x for x in draw(st.lists(comp, min_size=m, max_size=m))]
        a = draw(st.integers(0, d - 1))
        b = draw(st.integers(0, d - 2))
        b = b + 1 if b >= a else b
        return {"d": d, "m": m, "V": rows, "theta": theta, "theta_tilde": theta_tilde, "support": (a, b)}

    return instance()


def _compare(expected, received, scale_of):
    scale = max([1.0] + [abs(x) for x in scale_of])
    return all(is_close(r, e, "float64", scale=scale) for r, e in zip(received, expected))


def crossval_xor(fn, kind="grad", conventions: XorConventions | None = None, max_examples=200, seed=0) -> CrossvalResult:
    """Drive ``fn`` with Hypothesis against the 50-digit reference.

    ``kind`` is ``"loss"`` (``fn(V, theta, theta_tilde, support) -> float``) or ``"grad"``
    (``-> (grad_theta, grad_theta_tilde)``). Returns the shrunk counterexample on a mismatch.
    """
    from hypothesis import HealthCheck, given, seed as hseed, settings

    check_choice(kind, "kind", XOR_KINDS)
    max_examples = check_int(max_examples, "max_examples", lo=1)
    seed = check_int(seed, "seed")
    conv = conventions or XorConventions()
    last: list[Mismatch] = []
    count = [0]

    @hseed(seed)
    @settings(max_examples=max_examples, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck), print_blob=False, report_multiple_bugs=False)
    @given(_xor_instances())
    def _prop(inst):
        count[0] += 1
        inputs = dict(inst, attention=conv.attention)
        try:
            out = _call(fn, conv, inst["V"], inst["theta"], inst["theta_tilde"], inst["support"])
        except Exception as exc:
            last.append(Mismatch(inputs, [], [], error=f"{type(exc).__name__}: {exc}"))
            raise TargetRaised(exc, inputs) from exc
        expected = _reference(kind, inst["V"], inst["theta"], inst["theta_tilde"], inst["support"], conv.attention)
        received = [x / conv.loss_scale for x in _received(kind, out, inst["m"])]
        if not _compare(expected, received, expected):
            last.append(Mismatch(inputs, expected, received))
            raise AssertionError("mismatch")

    # A function that raises on the simplest instance is reported at once, without shrinking.
    probe = {"d": 2, "m": 1, "V": [[1.0], [-1.0]], "theta": [0.5], "theta_tilde": [-0.5], "support": (0, 1)}
    try:
        _call(fn, conv, probe["V"], probe["theta"], probe["theta_tilde"], probe["support"])
    except Exception as exc:
        return CrossvalResult(ok=False, examples=1, mismatch=Mismatch(
            dict(probe, attention=conv.attention), [], [], error=f"{type(exc).__name__}: {exc}"))

    return _run_property(_prop, last, count)


def _load_instances(path):
    """Instances from a ``.json`` or ``.npz`` file (schema: docs/crossval.md)."""
    import numpy as np

    path = Path(path)
    if not path.is_file():
        raise InputError(f"file {str(path)!r} does not exist")
    meta = {}
    if path.suffix == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InputError(f"{path}: not valid JSON ({exc})") from None
        if not isinstance(data, dict) or not isinstance(data.get("instances"), list):
            raise InputError(f"{path}: expected an object with a list 'instances' (see docs/crossval.md)")
        meta = data.get("conventions", {}) or {}
        instances = data["instances"]
    elif path.suffix == ".npz":
        try:
            z = np.load(path, allow_pickle=False)
        except Exception as exc:
            raise InputError(f"{path}: not a readable .npz file ({exc})") from None
        for key in ("V", "theta", "theta_tilde", "support"):
            if key not in z.files:
                raise InputError(f"{path}: missing array {key!r} (found {', '.join(z.files) or 'none'})")
        k = z["V"].shape[0] if z["V"].ndim == 3 else None
        if k is None:
            raise InputError(f"{path}: V must have shape (k, d, m), got {z['V'].shape}")
        attention = z["attention"] if "attention" in z.files else np.array("softmax")
        instances = []
        for i in range(k):
            inst = {"V": z["V"][i].tolist(), "theta": z["theta"][i].tolist(),
                    "theta_tilde": z["theta_tilde"][i].tolist(), "support": z["support"][i].tolist(),
                    "attention": str(attention if attention.ndim == 0 else attention[i])}
            for key in ("loss", "grad_theta", "grad_theta_tilde"):
                if key in z.files:
                    inst[key] = z[key][i].tolist()
            instances.append(inst)
        for key in ("index_base", "loss_scale"):
            if key in z.files:
                meta[key] = z[key].item()
    else:
        raise InputError(f"{path}: unsupported file type {path.suffix!r}; expected .json or .npz")
    if not instances:
        raise InputError(f"{path}: no instances")
    return instances, meta


def _instance_support(inst, attention, base, where):
    """The claimed support of a file instance, ``base``-based in the file, as a 0-based pair:
    integers (not floats or bools), distinct positions of ``V`` (the instance is checked by
    :func:`verify.reference.population.validate_instance`)."""
    from verify.reference.population import validate_instance

    name = f"{where}: support" + (f" - {base}" if base else "")
    a_b = check_ints(inst["support"], f"{where}: support")
    rows, *_ = validate_instance(inst["V"], inst["theta"], inst["theta_tilde"], (0, 1), attention, 50)
    return check_support([s - base for s in a_b], len(rows), name)


def crossval_file(path) -> CrossvalResult:
    """Check every instance of a file of claimed losses and/or gradients against the reference."""
    instances, meta = _load_instances(path)
    base = meta.get("index_base", 0)
    scale = meta.get("loss_scale", 1.0)
    XorConventions(index_base=base, loss_scale=scale)  # validates
    rows, ok = [], True
    for i, inst in enumerate(instances):
        where = f"{path}: instance {i}"
        if not isinstance(inst, dict):
            raise InputError(f"{where}: expected an object")
        for key in ("V", "theta", "theta_tilde", "support"):
            if key not in inst:
                raise InputError(f"{where}: missing field {key!r}")
        if not any(k in inst for k in ("loss", "grad_theta", "grad_theta_tilde")):
            raise InputError(f"{where}: nothing claimed (give loss, grad_theta and/or grad_theta_tilde)")
        attention = inst.get("attention", "softmax")
        support = _instance_support(inst, attention, base, where)
        if "loss" in inst:
            exp = _reference("loss", inst["V"], inst["theta"], inst["theta_tilde"], support, attention)
            got = [x / scale for x in _to_floats(inst["loss"], f"{where}: loss")]
            good = len(got) == 1 and _compare(exp, got, exp)
            rows.append({"instance": i, "quantity": "loss", "expected": exp, "received": got, "ok": good})
            ok &= good
        if "grad_theta" in inst or "grad_theta_tilde" in inst:
            exp = _reference("grad", inst["V"], inst["theta"], inst["theta_tilde"], support, attention)
            m = len(exp) // 2
            for key, sl in (("grad_theta", slice(0, m)), ("grad_theta_tilde", slice(m, 2 * m))):
                if key not in inst:
                    continue
                got = [x / scale for x in _to_floats(inst[key], f"{where}: {key}")]
                if len(got) != m:
                    raise InputError(f"{where}: {key} has {len(got)} entries; expected m = {m}")
                good = _compare(exp[sl], got, exp)
                rows.append({"instance": i, "quantity": key, "expected": exp[sl], "received": got, "ok": good})
                ok &= good
    return CrossvalResult(ok=ok, examples=len(instances), rows=rows)


# --------------------------------------------------------------------------- sensitivity profiles


@dataclass
class ProfileConventions:
    """Conventions of a sensitivity implementation under test.

    Attributes:
        values: ``"01"`` (tables of 0/1, ours) or ``"pm1"`` (tables of +1/-1, with
            ``0 -> +1``, ``1 -> -1``).
        returns: ``"profile"`` (counts K_0..K_N), ``"average"`` (:math:`as(f)`),
            ``"normalised"`` (:math:`as(f)/N`).
    """

    values: str = "01"
    returns: str = "profile"

    def __post_init__(self):
        check_choice(self.values, "values", TABLE_VALUES)
        check_choice(self.returns, "returns", PROFILE_RETURNS)


def _ours(table_bits, conv: ProfileConventions):
    import torch

    from numeric import sensitivity

    t = torch.tensor(table_bits, dtype=torch.uint8)
    K = sensitivity.profile(t)
    N = len(K) - 1
    if conv.returns == "profile":
        return [float(k) for k in K]
    avg = float(sum(k * int(c) for k, c in enumerate(K))) / 2**N
    return [avg if conv.returns == "average" else avg / N]


def crossval_profile_function(fn, conventions: ProfileConventions | None = None, max_N=10,
                              max_examples=100, seed=0) -> CrossvalResult:
    """Drive a profile implementation ``fn(table) -> profile | as(f) | as(f)/N`` with random tables."""
    import numpy as np
    from hypothesis import HealthCheck, given, seed as hseed, settings
    from hypothesis import strategies as st

    conv = conventions or ProfileConventions()
    max_N = check_int(max_N, "max_N", lo=1, hi=16)  # tables of up to 2^16 entries
    max_examples = check_int(max_examples, "max_examples", lo=1)
    seed = check_int(seed, "seed")
    last: list[Mismatch] = []
    count = [0]

    @st.composite
    def tables(draw):
        N = draw(st.integers(1, max_N))
        bits = draw(st.lists(st.integers(0, 1), min_size=2**N, max_size=2**N))
        return bits

    @hseed(seed)
    @settings(max_examples=max_examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck), print_blob=False, report_multiple_bugs=False)
    @given(tables())
    def _prop(bits):
        count[0] += 1
        table = np.array(bits, dtype=np.int64)
        arg = table if conv.values == "01" else 1 - 2 * table
        expected = _ours(bits, conv)
        inputs = {"table": bits}
        try:
            out = fn(arg)
        except Exception as exc:
            last.append(Mismatch(inputs, expected, [], error=f"{type(exc).__name__}: {exc}"))
            raise TargetRaised(exc, inputs) from exc
        received = _to_floats(out, "profile")
        if len(received) != len(expected) or not _compare(expected, received, expected):
            last.append(Mismatch(inputs, expected, received))
            raise AssertionError("mismatch")

    return _run_property(_prop, last, count)


def read_table(path, N=None):
    """A truth table from ``.npy``, ``.json`` (``{"table": [...]}`` or a list) or text of 0/1."""
    import numpy as np

    path = Path(path)
    if not path.is_file():
        raise InputError(f"file {str(path)!r} does not exist")
    claimed = None
    try:
        if path.suffix == ".npy":
            arr = np.load(path, allow_pickle=False).ravel()
        elif path.suffix == ".json":
            data = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                if "table" not in data:
                    raise InputError(f"{path}: expected a field 'table'")
                claimed = data.get("profile")
                data = data["table"]
            arr = np.asarray(data).ravel()
        else:
            text = path.read_text(encoding="utf-8")
            tokens = text.replace(",", " ").split()
            if len(tokens) == 1:  # a single run of digits: "0110..."
                tokens = list(tokens[0])
            arr = np.array([int(t) for t in tokens])
    except InputError:
        raise
    except Exception as exc:
        raise InputError(f"{path}: cannot read a truth table ({type(exc).__name__}: {exc})") from None
    if arr.size == 0 or not np.all((arr == 0) | (arr == 1)):
        raise InputError(f"{path}: a truth table holds only 0 and 1")
    n = int(arr.size).bit_length() - 1
    if 2**n != arr.size:
        raise InputError(f"{path}: table length {arr.size} is not a power of two")
    if N is not None and n != check_int(N, "N", lo=0):
        raise InputError(f"{path}: table has 2^{n} entries but N = {N}")
    if claimed is not None and not (
        isinstance(claimed, list) and len(claimed) == n + 1
        and all(isinstance(k, int) and not isinstance(k, bool) for k in claimed)
    ):
        raise InputError(f"{path}: 'profile' must be a list of {n + 1} integers K_0..K_{n}")
    return arr.astype(np.uint8), claimed


__all__ = [
    "XorConventions", "ProfileConventions", "CrossvalResult", "Mismatch", "TargetRaised",
    "load_callable", "crossval_xor", "crossval_file", "crossval_profile_function", "read_table",
]
