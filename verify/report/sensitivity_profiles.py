"""Exact sensitivity profiles as plain-number results (SG-1, ``docs/claims.md#sg-1``): what
``boolverify sensitivity profile`` prints, writes as JSON and draws.

A result is a dict (:func:`summarise_profile`): the label, ``N``, the profile
``K_k = #{x : s(x, f) = k}``, ``K_k / 2^N``, the average sensitivity ``as(f)`` (exact and as a
float, also over ``N``), the minimal and maximal sensitivity and ``K_0``. For the functions with
a proved formula (:data:`verify.symbolic.profile_proofs.PROFILE_PROOFS`) it also holds the
proved profile and whether enumeration and proof agree.

A truth-table file is ``.npy`` (a 1-D array of 0/1) or text holding only the characters 0
and 1 (whitespace and commas ignored), entry ``x`` at string index ``x = sum_n bit_n 2^n``.
"""

from __future__ import annotations

from pathlib import Path

from numeric.validation import InputError


def read_table_file(path, name="--table"):
    """A truth table (numpy array) from ``.npy`` or a text file of 0/1 (see the module
    docstring); ``name`` is the option or argument that named the file, for the messages."""
    import numpy as np

    path = Path(path)
    shown = repr(str(path))
    if not path.is_file():
        raise InputError(f"{name} = {shown}: expected an existing file")
    if path.suffix.lower() == ".npy":
        try:
            # mapped, not read: a header that promises more data than the file holds is
            # refused here instead of allocating what it promises
            arr = np.load(path, allow_pickle=False, mmap_mode="r")
            arr = np.array(arr)
        except (ValueError, OSError, EOFError) as exc:
            raise InputError(f"{name} = {shown}: expected a readable .npy file ({exc})") from None
    else:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{name} = {shown}: expected a readable text file ({exc})") from None
        chars = "".join(text.replace(",", " ").split())
        bad = sorted(set(chars) - {"0", "1"})
        if bad:
            raise InputError(f"{name} = {shown}: expected only the characters 0 and 1, whitespace "
                             f"and commas (found {bad[0]!r})")
        arr = np.frombuffer(chars.encode(), dtype=np.uint8) - ord("0")
    if arr.ndim != 1:
        raise InputError(f"{name} = {shown}: expected a 1-D table, not one of shape {arr.shape}")
    return arr


def load_table(path, *, msb_first=False, device=None, allow_large=False, name="--table"):
    """The validated ``uint8`` truth table of a file, in this suite's bit order (``msb_first``:
    the file lists position 0 as the most significant bit), on ``device``."""
    from numeric.boolean import as_table, from_msb_first
    from numeric.validation import check_device

    arr = read_table_file(path, name)
    table, _ = as_table(arr, allow_large=allow_large, what=f"{name} {str(path)!r}")
    if msb_first:
        table = from_msb_first(table)
    return table.to(check_device(device))


def summarise_profile(K, label) -> dict:
    """Plain-number summary of a profile ``K_0..K_N`` (a tensor or a sequence of counts)."""
    from fractions import Fraction

    counts = [int(v) for v in (K.tolist() if hasattr(K, "tolist") else K)]
    N = len(counts) - 1
    total = sum(k * c for k, c in enumerate(counts))
    as_f = Fraction(total, 1 << N)
    nz = [k for k, c in enumerate(counts) if c]
    return {
        "label": label, "N": N, "profile": counts,
        "fractions": [c / (1 << N) for c in counts],
        "average_sensitivity": float(as_f), "average_sensitivity_exact": str(as_f),
        "average_sensitivity_over_N": float(as_f / N) if N else 0.0,
        "min_sensitivity": nz[0], "max_sensitivity": nz[-1],
        "K0": counts[0],
    }


def profile_counts(table, *, allow_large=False) -> list[int]:
    """The exact profile ``[K_0, ..., K_N]`` of a truth table (tensor or numpy array)."""
    import torch

    from numeric.boolean import profile

    if not isinstance(table, torch.Tensor):
        table = torch.from_numpy(table)
    return [int(k) for k in profile(table, allow_large=allow_large).cpu()]


def profile_result(table, label, *, function=None, params=None, table_file=None,
                   allow_large=False) -> dict:
    """The summary of ``table``'s profile with the source (``function`` and ``params``, or
    ``table_file``) and, for a named function with a proved formula, the proved profile
    (``formula``) and ``formula_agrees``."""
    K = profile_counts(table, allow_large=allow_large)
    N = len(K) - 1
    params = params or {}
    result = summarise_profile(K, label)
    result.update({"function": function, "params": params, "table_file": table_file})
    if function is None:
        return result
    from verify.symbolic.profile_proofs import PROFILE_PROOFS, formula_profile

    name = function.lower()
    proof = PROFILE_PROOFS.get(name)  # not every function has a proved profile
    if proof is not None and N >= proof.smallest_N:
        formula = formula_profile(name, N, proof.set_size(params))
        result["formula"] = {str(k): v for k, v in sorted(formula.items())}
        result["formula_agrees"] = formula == {k: v for k, v in enumerate(result["profile"]) if v}
    return result


def function_result(name, N, params, *, device=None, allow_large=False) -> dict:
    """:func:`profile_result` of the named Boolean function (:func:`numeric.boolean.truth_table`)."""
    from numeric.boolean import truth_table

    table = truth_table(name, N, device=device, allow_large=allow_large, **params)
    label = name.lower() + "".join(f" {k}={v}" for k, v in params.items())
    return profile_result(table, label, function=name, params=params, allow_large=allow_large)


__all__ = ["read_table_file", "load_table", "summarise_profile", "profile_counts",
           "profile_result", "function_result"]
