r"""The one dtype-keyed tolerance table, used by every numeric-vs-reference test.

A value :math:`x` is close to a reference :math:`r` when
:math:`|x - r| \le \mathrm{rtol}\,|r| + \mathrm{atol}\cdot s`, where :math:`s` is the scale
of the largest term that entered the computation (``scale``; 1 when not given).

Leaf module: no torch import, dtypes are keyed by name (``"float64"``, ``"float32"``) and a
``torch.dtype`` is accepted through its ``str``.
"""

from __future__ import annotations

from dataclasses import dataclass

from numeric.validation import InputError


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float  # multiplied by the scale of the largest term


TOLERANCES: dict[str, Tolerance] = {
    "float64": Tolerance(rtol=1e-10, atol=1e-12),
    "float32": Tolerance(rtol=1e-5, atol=1e-6),
    # GPU kernels reorder reductions: float32 tolerance even in float64.
    "cuda": Tolerance(rtol=1e-5, atol=1e-6),
}


def _key(dtype) -> str:
    name = str(dtype).removeprefix("torch.")
    if name in ("double",):
        name = "float64"
    if name in ("float",):
        name = "float32"
    return name


def tolerance(dtype="float64", device="cpu") -> Tolerance:
    """Tolerance for results computed in ``dtype`` on ``device`` (``"cpu"`` or ``"cuda"``)."""
    if str(device).startswith("cuda"):
        return TOLERANCES["cuda"]
    key = _key(dtype)
    if key not in TOLERANCES:
        raise InputError(f"no tolerance for dtype {dtype!r}; known: float64, float32")
    return TOLERANCES[key]


def is_close(actual, expected, dtype="float64", device="cpu", scale=1.0) -> bool:
    """``|actual - expected| <= rtol |expected| + atol * scale`` for one scalar pair."""
    tol = tolerance(dtype, device)
    a, e = _float(actual), _float(expected)
    return abs(a - e) <= tol.rtol * abs(e) + tol.atol * float(scale)


def _float(x) -> float:
    # torch tensors that require grad: read the value without a warning
    return float(x.detach()) if hasattr(x, "detach") else float(x)


def assert_close(actual, expected, dtype="float64", device="cpu", scale=1.0, what="value"):
    """Raise ``AssertionError`` with both values and the tolerance when not :func:`is_close`."""
    if not is_close(actual, expected, dtype, device, scale):
        tol = tolerance(dtype, device)
        raise AssertionError(
            f"{what}: got {_float(actual)!r}, expected {_float(expected)!r} "
            f"(|diff| = {abs(_float(actual) - _float(expected)):.3e}, rtol={tol.rtol}, "
            f"atol={tol.atol} x scale {float(scale):.3e}, dtype={_key(dtype)}, device={device})"
        )


__all__ = ["Tolerance", "TOLERANCES", "tolerance", "is_close", "assert_close"]
