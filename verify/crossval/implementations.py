"""Cross-validation of other people's implementations against boolverify's references.

Three kinds of target:

- a loss or gradient function of the two-head model, driven by Hypothesis against the 50-digit
  :mod:`verify.reference.population`; a mismatch is shrunk to the smallest ``d``, ``m`` and
  values before it is reported;
- a file of instances with claimed losses/gradients (``.json`` or ``.npz``; schema in
  ``docs/crossval.md``);
- a sensitivity-profile implementation (mapping a truth table to a profile or an average
  sensitivity), or a truth-table file with a claimed profile.

A function is given as a Python callable (called in this process) or as a
``"MODULE:FUNCTION"`` string, which is imported and called in a child process with a time limit
per call (:mod:`verify.crossval.target`): importing it executes the module as code. A target
that raises, exits, dies or hangs is an error (:class:`~verify.crossval.target.TargetFailed`),
never agreement.

Conventions found in public code are adapted explicitly (:class:`XorConventions`,
:class:`ProfileConventions`); nothing is guessed, but a mismatch that disappears under another
convention says so (:attr:`Mismatch.hints`).
"""

from __future__ import annotations

import json
import numbers
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from numeric.validation import (
    InputError, check_choice, check_int, check_ints, check_real, check_support, reject,
)
from numeric.vocabulary import ATTENTIONS
from verify.common.tolerances import is_close
from verify.crossval.target import (
    ARRAY_KINDS, TargetFailed, TargetRaised, load_callable, open_target,
)

#: What :func:`crossval_xor` checks: the loss or the two gradients.
XOR_KINDS = ("loss", "grad")
#: Table values and return values of a profile implementation (:class:`ProfileConventions`).
TABLE_VALUES = ("01", "pm1")
PROFILE_RETURNS = ("profile", "average", "normalised")
#: Largest N a profile function is driven with (tables of 2^20 entries).
MAX_PROFILE_N = 20
#: Tables up to 2^LIST_N entries are drawn bit by bit (shrinking to the smallest table); larger
#: ones from a drawn seed, since Hypothesis cannot draw lists of thousands of entries.
LIST_N = 8
#: Most examples one run may ask for.
MAX_EXAMPLES = 100_000
#: Largest text or JSON table file read (a bigger table belongs in a .npy file).
MAX_TEXT_BYTES = 1 << 26

#: What a cross-validated function returns, in words (the name of the quantity compared).
QUANTITY = {
    "loss": "population loss",
    "grad": "population gradient (grad_theta, grad_theta_tilde)",
    "profile": "sensitivity profile K_0..K_N",
    "average": "average sensitivity as(f)",
    "normalised": "normalised average sensitivity as(f)/N",
}


class _Abort(BaseException):
    """Carries a :class:`TargetFailed` (other than raising) out of a Hypothesis run: being no
    ``Exception``, it stops the run at once instead of being shrunk, which would call a target
    that hangs or exits again and again."""

    def __init__(self, error):
        super().__init__(str(error))
        self.error = error


# --------------------------------------------------------------------------- results


@dataclass
class Mismatch:
    """The smallest failing input found, what boolverify computes there and what was received.

    ``hints`` lists ``(text, changes)``: conventions under which the received values agree
    (``changes`` maps a field of the conventions object to the value that would make them agree)
    or a description of the received values (``changes`` empty)."""

    inputs: dict
    expected: list
    received: list
    error: str = ""
    hints: list = field(default_factory=list)
    conventions: object = None

    def describe(self, style="cli") -> str:
        if "N" in self.inputs:
            lines = [_describe_table(self.inputs)]
        else:
            d, m = self.inputs["d"], self.inputs["m"]
            support = tuple(self.inputs["support"])
            base = getattr(self.conventions, "index_base", 0)
            passed = f" (passed 1-based as {tuple(x + 1 for x in support)})" if base else ""
            lines = [f"smallest counterexample found: d={d}, m={m}, support={support}{passed}, "
                     f"attention={self.inputs['attention']}"]
            for key in ("V", "theta", "theta_tilde"):
                lines.append(f"  {key} = {self.inputs[key]}")
        if self.error:
            lines.append(f"  the function raised {self.error}")
        else:
            lines.append(f"  expected = {self.expected}")
            lines.append(f"  received = {self.received}")
        lines.extend(f"  hint: {render_hint(text, changes, style, self.conventions)}" for text, changes in self.hints)
        return "\n".join(lines)


def _describe_table(inputs):
    N, bits = inputs["N"], inputs["table"]
    if inputs.get("recipe") is None:
        return f"smallest table found: N={N}, table = {list(bits)}"
    r = inputs["recipe"]
    return (f"smallest table found: N={N}, 2^{N} entries = seeded_table({N}, seed={r['seed']}, "
            f"density={r['density']}, junta={r['junta']}, noise={r['noise']}) "
            f"(verify.crossval.implementations.seeded_table), starting {list(bits[:16])}...")


_CLI_OPTION = {
    ("loss_scale", 0.5): "--half-mse",
    ("loss_scale", 1.0): "no --half-mse",
    ("index_base", 1): "--one-based",
    ("index_base", 0): "no --one-based",
}


def render_hint(text, changes, style="cli", conventions=None):
    """A hint as printed: ``text`` and, for a change of conventions, the options (``style="cli"``)
    or the conventions object (``style="api"``; with the ``conventions`` in use, the whole
    object that would make the values agree) that would make them agree."""
    if not changes:
        return text
    if style == "cli":
        opts = [_CLI_OPTION.get((k, v), f"--{k} {v}") for k, v in changes.items()]
        return f"{text}; did you mean {' '.join(opts)}?"
    if conventions is None:
        cls = "XorConventions" if set(changes) & {"loss_scale", "index_base", "attention"} else "ProfileConventions"
        fields = changes
    else:
        import dataclasses

        cls = type(conventions).__name__
        merged, default = dataclasses.replace(conventions, **changes), type(conventions)()
        fields = {f.name: getattr(merged, f.name) for f in dataclasses.fields(merged)
                  if getattr(merged, f.name) != getattr(default, f.name)}
    args = ", ".join(f"{k}={v!r}" for k, v in fields.items())
    return f"{text}; did you mean {cls}({args})?"


@dataclass
class CrossvalResult:
    """Verdict of one check: ``ok``, the number of ``examples`` (instances, tables) compared,
    the shrunk ``mismatch``, the per-quantity ``rows`` of a file, what was ``compared`` and the
    ``sizes`` tested (``{"d": {2: 17, ...}, "m": {...}}`` or ``{"N": {1: 9, ...}}``)."""

    ok: bool
    examples: int
    mismatch: Mismatch | None = None
    rows: list = field(default_factory=list)
    compared: str = ""
    sizes: dict = field(default_factory=dict)

    def sizes_text(self) -> str:
        """The sizes tested, e.g. ``N = 1..12 (tables per N: 1:9 2:8 ...)``."""
        parts = []
        for key, counts in self.sizes.items():
            if not counts:
                continue
            ks = sorted(counts)
            per = " ".join(f"{k}:{counts[k]}" for k in ks)
            parts.append(f"{key} = {ks[0]}..{ks[-1]} (cases per {key}: {per})")
        return "; ".join(parts)

    def as_dict(self) -> dict:
        return {"ok": self.ok, "examples": self.examples, "compared": self.compared,
                "sizes": {k: {str(n): c for n, c in sorted(v.items())} for k, v in self.sizes.items()},
                "mismatch": None if self.mismatch is None else {
                    "inputs": {k: v for k, v in self.mismatch.inputs.items() if k != "table" or len(v) <= 4096},
                    "expected": self.mismatch.expected, "received": self.mismatch.received,
                    "error": self.mismatch.error,
                    "hints": [render_hint(t, c, "cli") for t, c in self.mismatch.hints]},
                "rows": self.rows}


def _hypothesis_settings(max_examples):
    from hypothesis import HealthCheck, Verbosity, settings

    return settings(max_examples=max_examples, deadline=None, database=None, derandomize=False,
                    suppress_health_check=list(HealthCheck), print_blob=False, report_multiple_bugs=False,
                    verbosity=Verbosity.quiet)


def _run_property(prop, last):
    """Run a Hypothesis property that records each mismatch in ``last`` before failing; returns
    the shrunk mismatch (Hypothesis replays it last) or ``None``."""
    try:
        prop()
    except _Abort as abort:
        raise abort.error from None
    except InputError:
        raise
    except Exception:
        if not last:
            raise
        return last[-1]
    return None


def _compare(expected, received, scale_of):
    if len(expected) != len(received):
        return False
    scale = max([1.0] + [abs(x) for x in scale_of])
    return all(is_close(r, e, "float64", scale=scale) for r, e in zip(received, expected))


def _to_floats(value, what):
    """Flatten a returned scalar/array (numpy, torch, list) to a list of Python floats."""
    import numpy as np

    if isinstance(value, str):  # what :func:`~verify.crossval.target.plain` makes of an unknown object
        raise InputError(f"{what}: the function returned {value}, not numbers")
    if hasattr(value, "detach"):
        value = value.detach().cpu().resolve_conj().numpy()
    try:
        raw = np.asarray(value)
        if raw.dtype.kind == "O":      # a list of mixed objects: each must be a real number
            if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in raw.ravel()):
                raise TypeError("not all entries are real numbers")
        elif raw.dtype.kind not in "iuf":
            kind = {"c": "complex numbers", "b": "booleans", "U": "text", "S": "bytes"}.get(
                raw.dtype.kind, f"dtype {raw.dtype}")
            raise TypeError(f"{kind}, not real numbers")
        arr = raw.astype(np.float64).ravel()
    except (TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise InputError(f"{what}: cannot read the returned value as real numbers ({exc})",
                         name=what, value=None, expected="real numbers") from None
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{what}: the function returned NaN or inf ({arr[~np.isfinite(arr)][:3].tolist()}); "
                         "expected finite numbers", name=what, value=None, expected="finite numbers")
    return [float(v) for v in arr]


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
            hint = " (a gradient? check it with 'crossval xor-grad')" if len(vals) == 2 * m else ""
            raise InputError(f"loss function returned {len(vals)} numbers; expected one scalar{hint}")
        return vals
    if isinstance(out, (tuple, list)) and len(out) == 2:
        vals = _to_floats(out[0], "grad_theta") + _to_floats(out[1], "grad_theta_tilde")
    else:
        vals = _to_floats(out, "gradient")
    if len(vals) != 2 * m:
        hint = " (a loss? check it with 'crossval xor-loss')" if len(vals) == 1 else ""
        count = f"{len(vals)} number" + "s" * (len(vals) != 1)
        raise InputError(f"gradient function returned {count}; expected (grad_theta, "
                         f"grad_theta_tilde) of m = {m} each{hint}")
    return vals


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


def _xor_args(inst, conv):
    import numpy as np

    a, b = inst["support"]
    return ((np.asarray(inst["V"], dtype=np.float64), np.asarray(inst["theta"], dtype=np.float64),
             np.asarray(inst["theta_tilde"], dtype=np.float64), (a + conv.index_base, b + conv.index_base)),
            {"attention": conv.attention})


#: A second instance the hints are confirmed on: the shrunk counterexample is often degenerate
#: (theta = 0, two equal rows), where several conventions give the same values.
_HINT_INSTANCE = {"d": 4, "m": 3, "support": (0, 2),
                  "V": [[0.6, 0.0, 0.8], [0.0, 1.0, 0.0], [-0.48, 0.6, 0.64], [0.0, -0.6, 0.8]],
                  "theta": [1.5, -0.7, 2.2], "theta_tilde": [-0.9, 1.1, -2.4]}


def _xor_candidate(kind, inst, conv, base, attention):
    """What a function with index base ``base`` and ``attention`` computes (at our loss scale) when
    handed the support as ``conv`` passes it, or ``None`` when it would not run (an index past
    the end) or gives no distinct pair."""
    d = inst["d"]
    a, b = inst["support"]
    shift = conv.index_base - base
    if shift > 0 and max(a, b) + shift >= d:
        return None
    alt = ((a + shift) % d, (b + shift) % d)  # numpy reads -1 as the last position
    if alt[0] == alt[1]:
        return None
    try:
        return _reference(kind, inst["V"], inst["theta"], inst["theta_tilde"], alt, attention)
    except Exception:  # an instance the other attention map rejects
        return None


def _xor_hints(kind, conv, cases):
    """Conventions under which the received values agree with the reference on every case
    ``(instance, raw values returned)``, and other recognisable slips."""
    hints = []
    expected = [_reference(kind, inst["V"], inst["theta"], inst["theta_tilde"], inst["support"], conv.attention)
                for inst, _ in cases]
    received = [[x / conv.loss_scale for x in raw] for _, raw in cases]
    m = [inst["m"] for inst, _ in cases]
    if kind == "grad" and all(_compare(e[k:] + e[:k], r, e) for e, r, k in zip(expected, received, m)):
        hints.append(("the two gradients look swapped; return (grad_theta, grad_theta_tilde)", {}))
    if all(any(abs(x) > 1e-9 for x in e) and _compare([-x for x in e], r, e) for e, r in zip(expected, received)):
        hints.append(("the received values are ours negated (a descent direction, or the sign flipped?)", {}))
    candidates = []
    for base in (0, 1):
        for attention in ATTENTIONS:
            for scale in (1.0, 0.5):
                changes = {}
                if base != conv.index_base:
                    changes["index_base"] = base
                if attention != conv.attention:
                    changes["attention"] = attention
                if scale != conv.loss_scale:
                    changes["loss_scale"] = scale
                if changes:
                    candidates.append((len(changes), base, attention, scale, changes))
    cache = {}
    for _, base, attention, scale, changes in sorted(candidates, key=lambda c: c[0]):
        good = True
        for i, (inst, raw) in enumerate(cases):
            if (i, base, attention) not in cache:
                cache[i, base, attention] = _xor_candidate(kind, inst, conv, base, attention)
            ref = cache[i, base, attention]
            if ref is None or not _compare([scale * x for x in ref], raw, ref):
                good = False
                break
        if good:
            what = []
            if "index_base" in changes:
                what.append(f"a {changes['index_base']}-based support")
            if "attention" in changes:
                what.append(f"{changes['attention']} attention")
            if "loss_scale" in changes:
                what.append("the ½-MSE convention" if scale == 0.5 else "the plain MSE (no ½)")
            hints.append((f"the received values are ours under {' and '.join(what)}", changes))
            break
    return hints


def crossval_xor(fn, kind="grad", conventions: XorConventions | None = None, max_examples=200, seed=0,
                 *, timeout=None, paths=()) -> CrossvalResult:
    """Drive ``fn`` with Hypothesis against the 50-digit reference.

    ``kind`` is ``"loss"`` (``fn(V, theta, theta_tilde, support) -> float``) or ``"grad"``
    (``-> (grad_theta, grad_theta_tilde)``). ``fn`` is a callable (run in this process) or a
    ``"MODULE:FUNCTION"`` string (imported and run in a child process, ``timeout`` seconds per
    call, ``paths`` added to its import path). Returns the shrunk counterexample on a mismatch;
    raises :class:`~verify.crossval.target.TargetFailed` when the function exits, dies or
    times out, :class:`~numeric.validation.InputError` on bad arguments.
    """
    from hypothesis import given, seed as hseed

    check_choice(kind, "kind", XOR_KINDS)
    max_examples = check_int(max_examples, "max_examples", lo=1, hi=MAX_EXAMPLES)
    seed = check_int(seed, "seed")
    conv = conventions or XorConventions()
    if not isinstance(conv, XorConventions):
        reject("conventions", f"<{type(conv).__name__}>", "an XorConventions")
    last: list[Mismatch] = []
    sizes = {"d": Counter(), "m": Counter()}

    with open_target(fn, array=conv.array, timeout=timeout, paths=paths) as target:

        def call(inst):
            inputs = dict(inst, attention=conv.attention)
            try:
                out = target.call(*_xor_args(inst, conv))
            except TargetRaised as exc:
                last.append(Mismatch(inputs, [], [], error=exc.description))
                raise
            except TargetFailed as exc:
                raise _Abort(exc) from None
            return inputs, [x / conv.loss_scale for x in _received(kind, out, inst["m"])]

        @hseed(seed)
        @_hypothesis_settings(max_examples)
        @given(_xor_instances())
        def _prop(inst):
            sizes["d"][inst["d"]] += 1
            sizes["m"][inst["m"]] += 1
            inputs, received = call(inst)
            expected = _reference(kind, inst["V"], inst["theta"], inst["theta_tilde"], inst["support"],
                                  conv.attention)
            if not _compare(expected, received, expected):
                last.append(Mismatch(inputs, expected, received))
                raise AssertionError("mismatch")

        # A function that raises (or exits) on the simplest instance is reported at once.
        probe = {"d": 2, "m": 1, "V": [[1.0], [-1.0]], "theta": [0.5], "theta_tilde": [-0.5], "support": (0, 1)}
        try:
            call(probe)
        except TargetRaised:
            mismatch = last[-1]
        except _Abort as abort:
            raise abort.error from None
        else:
            mismatch = _run_property(_prop, last)
        if mismatch is not None and mismatch.error.startswith("IndexError") and conv.index_base == 1:
            mismatch.hints = [("an IndexError with the support passed 1-based", {"index_base": 0})]
        if mismatch is not None and not mismatch.error:
            cases = [(mismatch.inputs, [x * conv.loss_scale for x in mismatch.received])]
            try:
                received = call(_HINT_INSTANCE)[1]
                cases.append((_HINT_INSTANCE, [x * conv.loss_scale for x in received]))
            except (TargetRaised, _Abort, InputError):
                pass  # hints from the counterexample alone
            mismatch.hints = _xor_hints(kind, conv, cases)
    if mismatch is not None:
        mismatch.conventions = conv
    examples = sum(sizes["d"].values())
    return CrossvalResult(ok=mismatch is None, examples=examples, mismatch=mismatch, compared=QUANTITY[kind],
                          sizes={k: dict(v) for k, v in sizes.items()})


# --------------------------------------------------------------------------- files of claims

_INSTANCE_FIELDS = ("V", "theta", "theta_tilde", "support", "attention", "loss", "grad_theta", "grad_theta_tilde")
_CONVENTION_FIELDS = ("index_base", "loss_scale")


def _file_size_ok(path):
    if path.stat().st_size > MAX_TEXT_BYTES:
        raise InputError(f"{path}: {path.stat().st_size} bytes; expected at most {MAX_TEXT_BYTES} "
                         "(store large data as .npz/.npy)")


def _read_json(path):
    _file_size_ok(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not valid JSON ({exc})") from None
    except RecursionError:
        raise InputError(f"{path}: JSON nested too deeply (expected the documented schema)") from None


def _load_json_instances(path):
    data = _read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("instances"), list):
        raise InputError(f"{path}: expected an object with a list 'instances' (see docs/crossval.md)")
    unknown = sorted(set(map(str, data)) - {"instances", "conventions"})
    if unknown:
        reject(f"{path}: fields", sorted(map(str, data)), "only 'instances' and 'conventions' (unknown: "
               f"{', '.join(unknown)})")
    meta = data.get("conventions")
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        reject(f"{path}: conventions", meta, 'an object such as {"index_base": 1, "loss_scale": 0.5}')
    unknown = sorted(set(map(str, meta)) - set(_CONVENTION_FIELDS))
    if unknown:
        reject(f"{path}: conventions", meta, f"only the fields {', '.join(_CONVENTION_FIELDS)} "
               f"(unknown: {', '.join(unknown)})")
    return data["instances"], meta


def _npz_arrays(path):
    import numpy as np

    try:
        z = np.load(path, allow_pickle=False)
    except Exception as exc:  # a truncated or foreign file: zipfile, numpy format and OS errors
        raise InputError(f"{path}: not a readable .npz file ({type(exc).__name__}: {exc})") from None
    if not hasattr(z, "files"):
        raise InputError(f"{path}: a single array, not an .npz archive of named arrays")
    arrays = {}
    with z:
        for key in z.files:
            try:
                arrays[key] = z[key]
            except Exception as exc:  # object arrays (pickles), bad CRC, a broken member header
                raise InputError(f"{path}: array {key!r} cannot be read ({type(exc).__name__}: {exc})") from None
    return arrays


def _load_npz_instances(path):
    import numpy as np

    arrays = _npz_arrays(path)
    known = set(_INSTANCE_FIELDS) | set(_CONVENTION_FIELDS)
    unknown = sorted(set(arrays) - known)
    if unknown:
        raise InputError(f"{path}: unknown array(s) {', '.join(map(repr, unknown))}; expected only "
                         f"{', '.join(sorted(known))}")
    for key in ("V", "theta", "theta_tilde", "support"):
        if key not in arrays:
            raise InputError(f"{path}: missing array {key!r} (found {', '.join(arrays) or 'none'})")
    for key, arr in arrays.items():
        numeric = arr.dtype.kind in "iuf"
        if key == "attention":
            numeric = arr.dtype.kind in "US"
        if not numeric:
            reject(f"{path}: {key}", f"<array of dtype {arr.dtype}>",
                   "strings" if key == "attention" else "an array of real numbers")
    V = arrays["V"]
    if V.ndim != 3 or V.shape[0] == 0:
        reject(f"{path}: V", f"<array of shape {V.shape}>", "shape (k, d, m) with k >= 1 instances")
    k, _, m = V.shape
    shapes = {"theta": (k, m), "theta_tilde": (k, m), "support": (k, 2), "loss": (k,),
              "grad_theta": (k, m), "grad_theta_tilde": (k, m)}
    for key, shape in shapes.items():
        if key in arrays and arrays[key].shape != shape:
            reject(f"{path}: {key}", f"<array of shape {arrays[key].shape}>",
                   f"shape {shape}, to match V of shape {V.shape}")
    attention = arrays.get("attention", np.array("softmax"))
    if attention.shape not in ((), (k,)):
        reject(f"{path}: attention", f"<array of shape {attention.shape}>", f"one string or {k} strings")
    instances = []
    for i in range(k):
        inst = {"V": V[i].tolist(), "theta": arrays["theta"][i].tolist(),
                "theta_tilde": arrays["theta_tilde"][i].tolist(), "support": arrays["support"][i].tolist(),
                "attention": str(attention if attention.ndim == 0 else attention[i])}
        for key in ("loss", "grad_theta", "grad_theta_tilde"):
            if key in arrays:
                inst[key] = arrays[key][i].tolist()
        instances.append(inst)
    meta = {}
    for key in _CONVENTION_FIELDS:
        if key in arrays:
            if arrays[key].ndim != 0:
                reject(f"{path}: {key}", f"<array of shape {arrays[key].shape}>", "a single number (0-d array)")
            meta[key] = arrays[key].item()
    return instances, meta


def _load_instances(path):
    """Instances from a ``.json`` or ``.npz`` file (schema: docs/crossval.md)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"file {str(path)!r} does not exist" if not path.exists()
                         else f"{str(path)!r} is not a file")
    if path.suffix == ".json":
        instances, meta = _load_json_instances(path)
    elif path.suffix == ".npz":
        instances, meta = _load_npz_instances(path)
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
    try:
        rows, *_ = validate_instance(inst["V"], inst["theta"], inst["theta_tilde"], (0, 1), attention, 50)
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    return check_support([s - base for s in a_b], len(rows), name)


def _claimed_numbers(value, name, count):
    """A claimed loss (``count`` None: one number) or gradient (``count`` numbers): finite reals,
    not null, bools or strings."""
    import numpy as np

    expected = "a finite number" if count is None else f"a list of {count} finite numbers"
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError, OverflowError, RecursionError):
        reject(name, value, expected)
    if arr.dtype.kind not in "iuf":
        reject(name, value, expected)
    arr = arr.astype(np.float64)
    if (count is None and arr.size != 1) or (count is not None and (arr.ndim != 1 or arr.size != count)):
        reject(name, value, expected)
    if not np.all(np.isfinite(arr)):
        reject(name, value, expected)
    return [float(x) for x in arr.ravel()]


def crossval_file(path) -> CrossvalResult:
    """Check every instance of a file of claimed losses and/or gradients against the reference."""
    try:
        return _crossval_file(path)
    except RecursionError:  # nesting that json accepted but a shape check cannot walk
        raise InputError(f"{path}: data nested too deeply (expected the documented schema)") from None


def _crossval_file(path) -> CrossvalResult:
    instances, meta = _load_instances(path)
    try:
        conv = XorConventions(index_base=meta.get("index_base", 0), loss_scale=meta.get("loss_scale", 1.0))
    except InputError as exc:
        raise InputError(f"{path}: conventions: {exc}") from None
    base, scale = conv.index_base, conv.loss_scale
    rows, ok = [], True
    sizes = {"d": Counter(), "m": Counter()}
    for i, inst in enumerate(instances):
        where = f"{path}: instance {i}"
        if not isinstance(inst, dict):
            raise InputError(f"{where}: expected an object")
        for key in ("V", "theta", "theta_tilde", "support"):
            if key not in inst:
                raise InputError(f"{where}: missing field {key!r}")
        unknown = sorted(set(map(str, inst)) - set(_INSTANCE_FIELDS))
        if unknown:
            raise InputError(f"{where}: unknown field(s) {', '.join(map(repr, unknown))}; expected "
                             f"{', '.join(_INSTANCE_FIELDS)}")
        if not any(k in inst for k in ("loss", "grad_theta", "grad_theta_tilde")):
            raise InputError(f"{where}: nothing claimed (give loss, grad_theta and/or grad_theta_tilde)")
        attention = inst.get("attention", "softmax")
        check_choice(attention, f"{where}: attention", ATTENTIONS)
        support = _instance_support(inst, attention, base, where)
        d, m = len(inst["V"]), len(inst["theta"])
        sizes["d"][d] += 1
        sizes["m"][m] += 1
        if "loss" in inst:
            got = [x / scale for x in _claimed_numbers(inst["loss"], f"{where}: loss", None)]
            exp = _reference("loss", inst["V"], inst["theta"], inst["theta_tilde"], support, attention)
            good = _compare(exp, got, exp)
            rows.append({"instance": i, "quantity": "loss", "expected": exp, "received": got, "ok": good})
            ok &= good
        if "grad_theta" in inst or "grad_theta_tilde" in inst:
            claimed = {key: [x / scale for x in _claimed_numbers(inst[key], f"{where}: {key}", m)]
                       for key in ("grad_theta", "grad_theta_tilde") if key in inst}
            exp = _reference("grad", inst["V"], inst["theta"], inst["theta_tilde"], support, attention)
            for key, sl in (("grad_theta", slice(0, m)), ("grad_theta_tilde", slice(m, 2 * m))):
                if key not in claimed:
                    continue
                good = _compare(exp[sl], claimed[key], exp)
                rows.append({"instance": i, "quantity": key, "expected": exp[sl], "received": claimed[key],
                             "ok": good})
                ok &= good
    return CrossvalResult(ok=ok, examples=len(instances), rows=rows, compared="claimed losses/gradients",
                          sizes={k: dict(v) for k, v in sizes.items()})


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


def _profile_forms(bits):
    """Our profile of a 0/1 table in the three forms: ``{"profile": [K_k], "average": [as],
    "normalised": [as/N]}``."""
    import numpy as np
    import torch

    from numeric import boolean as sensitivity

    K = [int(k) for k in sensitivity.profile(torch.from_numpy(np.ascontiguousarray(bits, dtype=np.uint8)))]
    N = len(K) - 1
    avg = float(sum(k * c for k, c in enumerate(K))) / 2**N
    return {"profile": [float(k) for k in K], "average": [avg], "normalised": [avg / N if N else 0.0]}


def seeded_table(N, seed, density, junta=0, noise=0):
    """The truth table drawn for ``N > LIST_N``: a random function of ``junta`` variables (all
    ``N`` when ``junta`` is 0) that is 1 with probability ``density/16``, with a fraction
    ``noise/256`` of its entries flipped; ``numpy.random.default_rng(seed)`` makes every choice,
    so a mismatch is reproduced from these five numbers."""
    import numpy as np

    N = check_int(N, "N", lo=0, hi=32)
    rng = np.random.default_rng(check_int(seed, "seed", lo=0))
    p = check_int(density, "density", lo=0, hi=16) / 16
    junta = check_int(junta, "junta", lo=0, hi=N)
    q = check_int(noise, "noise", lo=0, hi=256) / 256
    if junta == 0:
        bits = rng.random(1 << N) < p
    else:
        pos = rng.choice(N, size=junta, replace=False)
        g = rng.random(1 << junta) < p
        x = np.arange(1 << N, dtype=np.int64)
        idx = np.zeros(1 << N, dtype=np.int64)
        for j, n in enumerate(pos):
            idx |= ((x >> int(n)) & 1) << j
        bits = g[idx]
    if q:
        bits = bits ^ (rng.random(1 << N) < q)
    return bits.astype(np.uint8)


def _tables(Ns):
    """Hypothesis strategy of truth tables ``{"N", "table", "recipe"}`` with ``N`` in ``Ns``."""
    import numpy as np
    from hypothesis import strategies as st

    @st.composite
    def table(draw):
        N = draw(st.sampled_from(Ns)) if len(Ns) > 1 else Ns[0]
        if N <= LIST_N:
            bits = draw(st.lists(st.integers(0, 1), min_size=2**N, max_size=2**N))
            return {"N": N, "table": np.array(bits, dtype=np.uint8), "recipe": None}
        # Shrinks towards seed 0, an all-zero table, no junta, no noise.
        recipe = {"seed": draw(st.integers(0, 2**32 - 1)), "density": draw(st.integers(0, 16)),
                  "junta": draw(st.integers(0, min(N, 8))), "noise": draw(st.sampled_from([0, 1, 16]))}
        return {"N": N, "table": seeded_table(N, **recipe), "recipe": recipe}

    return table()


def _encode(bits, values):
    import numpy as np

    t = bits.astype(np.int64)
    return t if values == "01" else 1 - 2 * t


def _hint_tables():
    """Tables the profile hints are confirmed on (a degenerate shrunk table, such as all zeros,
    agrees with several conventions): strict MAJORITY of 3, a dictator of 4 and a fixed random
    table of 5."""
    import numpy as np

    maj = np.array([int(bin(x).count("1") >= 2) for x in range(8)], dtype=np.uint8)
    dictator = np.array([x & 1 for x in range(16)], dtype=np.uint8)
    return [maj, dictator, seeded_table(5, seed=1, density=8)]


def _profile_hints(target, conv, bits, received):
    """Conventions (table values, return value) under which the function agrees with us on the
    shrunk table and on :func:`_hint_tables`, or a slip it makes on all of them (a reversed
    profile, fractions for counts); the function is called again on those tables."""
    tables = [bits] + _hint_tables()
    ours = [_profile_forms(t) for t in tables]
    answers = {}
    for values in (conv.values, "pm1" if conv.values == "01" else "01"):
        try:
            answers[values] = [received if (values == conv.values and i == 0) else
                               _to_floats(target.call((_encode(t, values),)), "profile")
                               for i, t in enumerate(tables)]
        except (TargetFailed, InputError):
            continue
    for values, got in answers.items():
        for returns in PROFILE_RETURNS:
            if (values, returns) == (conv.values, conv.returns):
                continue
            if all(_compare(o[returns], g, o[returns]) for o, g in zip(ours, got)):
                changes = {}
                if values != conv.values:
                    changes["values"] = values
                if returns != conv.returns:
                    changes["returns"] = returns
                handed = f" when handed {'±1' if values == 'pm1' else '0/1'} tables" if "values" in changes else ""
                return [(f"the function computes our {QUANTITY[returns]}{handed}", changes)]
    got = answers.get(conv.values)
    if conv.returns != "profile" or got is None:
        return []
    Ks = [o["profile"] for o in ours]
    if all(_compare(K[::-1], g, K) for K, g in zip(Ks, got)):
        return [("the received profile is ours reversed (K_N..K_0)", {})]
    if all(_compare([k / sum(K) for k in K], g, [1.0]) for K, g in zip(Ks, got)):
        return [("the received profile is ours divided by 2^N (fractions, not counts)", {})]
    return []


def crossval_profile_function(fn, conventions: ProfileConventions | None = None, max_N=10,
                              max_examples=100, seed=0, *, timeout=None, paths=()) -> CrossvalResult:
    """Drive a profile implementation ``fn(table) -> profile | as(f) | as(f)/N`` with random tables.

    Every ``N`` from 1 to ``max_N`` (at most 20) is tested: tables of up to ``2^8`` entries are
    drawn entry by entry, larger ones from a drawn seed (:func:`seeded_table`); sizes that the
    Hypothesis run did not reach get their own short runs. ``fn``: a callable or a
    ``"MODULE:FUNCTION"`` string (run in a child process, ``timeout`` seconds per call).
    """
    from hypothesis import given, seed as hseed

    conv = conventions or ProfileConventions()
    if not isinstance(conv, ProfileConventions):
        reject("conventions", f"<{type(conv).__name__}>", "a ProfileConventions")
    max_N = check_int(max_N, "max_N", lo=1, hi=MAX_PROFILE_N)
    max_examples = check_int(max_examples, "max_examples", lo=1, hi=MAX_EXAMPLES)
    seed = check_int(seed, "seed")
    last: list[Mismatch] = []
    sizes = Counter()

    with open_target(fn, array="numpy", timeout=timeout, paths=paths) as target:

        def run(Ns, examples):
            @hseed(seed)
            @_hypothesis_settings(examples)
            @given(_tables(Ns))
            def _prop(t):
                sizes[t["N"]] += 1
                forms = _profile_forms(t["table"])
                expected = forms[conv.returns]
                inputs = {"N": t["N"], "table": t["table"], "recipe": t["recipe"]}  # a list once shrunk
                try:
                    out = target.call((_encode(t["table"], conv.values),))
                except TargetRaised as exc:
                    last.append(Mismatch(inputs, expected, [], error=exc.description))
                    raise
                except TargetFailed as exc:
                    raise _Abort(exc) from None
                received = _to_floats(out, "profile")
                if not _compare(expected, received, expected):
                    last.append(Mismatch(inputs, expected, received))
                    raise AssertionError("mismatch")

            return _run_property(_prop, last)

        mismatch = run(list(range(1, max_N + 1)), max_examples)
        for N in range(1, max_N + 1):
            if mismatch is not None:
                break
            if not sizes[N]:
                mismatch = run([N], 2)
        if mismatch is not None:
            bits = mismatch.inputs["table"]
            mismatch.inputs["table"] = bits.tolist()
            mismatch.conventions = conv
            if not mismatch.error:
                mismatch.hints = _profile_hints(target, conv, bits, mismatch.received)
    return CrossvalResult(ok=mismatch is None, examples=sum(sizes.values()), mismatch=mismatch,
                          compared=QUANTITY[conv.returns], sizes={"N": dict(sizes)})


def read_table(path, N=None, values="01", allow_large=False):
    """A truth table from ``.npy``, ``.json`` (``{"table": [...], "profile": [...]}`` or a list) or
    text (0/1 separated by spaces or commas, or one run of digits); with ``values="pm1"`` the
    file holds +1/-1 (``+1 -> 0``, ``-1 -> 1``). Returns the 0/1 table (``uint8``) and the claimed
    profile of a JSON file (or ``None``)."""
    import numpy as np

    check_choice(values, "values", TABLE_VALUES)
    path = Path(path)
    if not path.is_file():
        raise InputError(f"file {str(path)!r} does not exist" if not path.exists()
                         else f"{str(path)!r} is not a file")
    claimed = None
    try:
        if path.suffix == ".npy":
            arr = np.load(path, allow_pickle=False)
            if not hasattr(arr, "ravel"):
                raise InputError(f"{path}: an .npz archive, not a single .npy array")
        elif path.suffix == ".json":
            data = _read_json(path)
            if isinstance(data, dict):
                if "table" not in data:
                    raise InputError(f"{path}: expected a field 'table'")
                unknown = sorted(set(map(str, data)) - {"table", "profile"})
                if unknown:
                    raise InputError(f"{path}: unknown field(s) {', '.join(unknown)}; expected 'table' and "
                                     "optionally 'profile'")
                claimed = data.get("profile")
                data = data["table"]
            arr = np.asarray(data)
        else:
            _file_size_ok(path)
            text = path.read_text(encoding="utf-8")
            tokens = text.replace(",", " ").split()
            if len(tokens) == 1 and values == "01":  # a single run of digits: "0110..."
                tokens = list(tokens[0])
            arr = np.array([int(t) for t in tokens])
    except InputError:
        raise
    except Exception as exc:
        raise InputError(f"{path}: cannot read a truth table ({type(exc).__name__}: {exc})") from None
    if arr.ndim != 1:
        raise InputError(f"{path}: a table of shape {arr.shape}; expected one dimension, entry x at "
                         "index x (a 2-D table is not flattened)")
    allowed = (0, 1) if values == "01" else (1, -1)
    if arr.dtype.kind not in "biuf" or arr.size == 0 or not np.all((arr == allowed[0]) | (arr == allowed[1])):
        other = " (it holds only +1 and -1: pass --values pm1 / values='pm1')" if (
            values == "01" and arr.dtype.kind in "iuf" and arr.size and np.all((arr == 1) | (arr == -1))) else ""
        raise InputError(f"{path}: a truth table holds only {allowed[0]} and {allowed[1]}{other}")
    n = int(arr.size).bit_length() - 1
    if 2**n != arr.size:
        raise InputError(f"{path}: table length {arr.size} is not a power of two")
    limit = 16  # every memory limit is at least 16: a small table fits without importing torch
    if n > limit:
        from numeric.boolean import memory_limit

        limit = memory_limit(None, allow_large)
    if n > limit:
        more = "; pass --allow-large (allow_large=True) to go up to 32" if not allow_large else ""
        raise InputError(f"{path}: table of 2^{n} entries; expected N <= {limit}, the memory limit{more}")
    if N is not None and n != check_int(N, "N", lo=0):
        raise InputError(f"{path}: table has 2^{n} entries but N = {N}")
    if claimed is not None:
        claimed = check_claimed(claimed, n, f"{path}: profile")
    bits = arr == -1 if values == "pm1" else arr == 1
    return bits.astype(np.uint8), claimed


def check_claimed(claimed, N, name="claimed"):
    """A claimed profile K_0..K_N: ``N + 1`` non-negative integers."""
    expected = f"a list of {N + 1} non-negative integers K_0..K_{N}"
    if not isinstance(claimed, (list, tuple)) or len(claimed) != N + 1:
        reject(name, claimed, expected)
    if not all(isinstance(k, int) and not isinstance(k, bool) and k >= 0 for k in claimed):
        reject(name, claimed, expected)
    return [int(k) for k in claimed]


__all__ = [
    "XorConventions", "ProfileConventions", "CrossvalResult", "Mismatch", "TargetRaised", "TargetFailed",
    "load_callable", "crossval_xor", "crossval_file", "crossval_profile_function", "read_table",
    "seeded_table", "check_claimed", "render_hint", "MAX_PROFILE_N", "QUANTITY",
]
