"""Files of instances with claimed losses and/or gradients of the two-head model (``.json`` or
``.npz``; schema in ``docs/crossval.md``): the parser, and :func:`crossval_file`, which checks
every claim against the 50-digit reference.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from numeric.validation import InputError, check_choice, check_ints, check_support, reject
from numeric.vocabulary import ATTENTIONS
from verify.crossval.property_runs import values_agree
from verify.crossval.results import CrossvalResult
from verify.crossval.xor_functions import XorConventions, reference_values

#: Largest text or JSON table file read (a bigger table belongs in a .npy file).
MAX_TEXT_BYTES = 1 << 26

_INSTANCE_FIELDS = ("V", "theta", "theta_tilde", "support", "attention", "loss", "grad_theta", "grad_theta_tilde")
_CONVENTION_FIELDS = ("index_base", "loss_scale")


def check_text_size(path):
    """Refuse a text or JSON file over :data:`MAX_TEXT_BYTES` before reading it."""
    if path.stat().st_size > MAX_TEXT_BYTES:
        raise InputError(f"{path}: {path.stat().st_size} bytes; expected at most {MAX_TEXT_BYTES} "
                         "(store large data as .npz/.npy)")


def read_json(path):
    check_text_size(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not valid JSON ({exc})") from None
    except RecursionError:
        raise InputError(f"{path}: JSON nested too deeply (expected the documented schema)") from None


def _load_json_instances(path):
    data = read_json(path)
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
            exp = reference_values("loss", inst["V"], inst["theta"], inst["theta_tilde"], support, attention)
            good = values_agree(exp, got, exp)
            rows.append({"instance": i, "quantity": "loss", "expected": exp, "received": got, "ok": good})
            ok &= good
        if "grad_theta" in inst or "grad_theta_tilde" in inst:
            claimed = {key: [x / scale for x in _claimed_numbers(inst[key], f"{where}: {key}", m)]
                       for key in ("grad_theta", "grad_theta_tilde") if key in inst}
            exp = reference_values("grad", inst["V"], inst["theta"], inst["theta_tilde"], support, attention)
            for key, sl in (("grad_theta", slice(0, m)), ("grad_theta_tilde", slice(m, 2 * m))):
                if key not in claimed:
                    continue
                good = values_agree(exp[sl], claimed[key], exp)
                rows.append({"instance": i, "quantity": key, "expected": exp[sl], "received": claimed[key],
                             "ok": good})
                ok &= good
    return CrossvalResult(ok=ok, examples=len(instances), rows=rows, compared="claimed losses/gradients",
                          sizes={k: dict(v) for k, v in sizes.items()})
