r"""The one dtype-keyed tolerance table, used by every numeric-vs-reference test.

A value :math:`x` is close to a reference :math:`r` when
:math:`|x - r| \le \mathrm{rtol}\,|r| + \mathrm{atol}\cdot s`, where :math:`s` is the scale
of the largest term that entered the computation (``scale``; 1 when not given).

Where the dtype alone does not size a comparison, the bound comes from here too, never from a
literal in a test: :data:`NAMED` entries (each with its reason), :func:`sum_tolerance` (a sum of
``n`` rounded terms), :func:`working_digits` (multiprecision results) and
:func:`decimal_places` (values quoted to a number of places). ``tests/verify/common/test_tolerances.py``
fails on a literal tolerance in tests/ or theorems/.

Leaf module: no torch import, dtypes are keyed by name (``"float64"``, ``"float32"``) and a
``torch.dtype`` is accepted through its ``str``.
"""

from __future__ import annotations

from dataclasses import dataclass

from numeric.validation import reject


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

# Named bounds for comparisons that the dtype alone does not size; each says why.
NAMED: dict[str, Tolerance] = {
    # mpmath references (50 digits or more) against each other or a closed form: up to ten of
    # the fifty digits may go to cancellation.
    "reference_50_digit": Tolerance(rtol=1e-40, atol=1e-40),  # = working_digits(50, 10)
    # relative radius of a certified enclosure (ball arithmetic at 100 bits and more)
    "certified_enclosure": Tolerance(rtol=1e-30, atol=0.0),
    # one closed form evaluated by another short sequence of float64 operations: each of a
    # handful of roundings adds at most u = 2^-53 relative; 16 u covers the formulas tested.
    "float64_few_roundings": Tolerance(rtol=16 * 2.0 ** -53, atol=16 * 2.0 ** -53),
    # a float64 result of a short computation that is exact or once rounded per term (a sum of
    # at most ~10^3 fractions, a 2x2 readout): n u <= 1.2e-13 for n <= 10^3, with a margin of 8.
    "float64_short_sum": Tolerance(rtol=1e-12, atol=1e-12),
    # central finite differences with step h = 1e-6 (torch.autograd.gradcheck): truncation
    # h^2 |f'''| ~ 1e-12 and rounding u |f| / h ~ 1e-10, with a margin of 100.
    "finite_difference": Tolerance(rtol=1e-6, atol=1e-8),
    # a maximum-likelihood fit's parameters, covariance and profile-interval ends against a
    # closed form or another fit: the optimiser's and root finder's stopping rules (~1e-8 in
    # the gradient), not rounding, limit the agreement.
    "iterative_fit": Tolerance(rtol=1e-5, atol=1e-5),
    # the objective (log-likelihood, deviance) at a fitted optimum: its error is quadratic in
    # the parameters' error, so ~(1e-5)^2 below the fit's own.
    "iterative_fit_optimum": Tolerance(rtol=1e-9, atol=1e-9),
    # Monte Carlo and fitting bounds of statistical checks (not rounding):
    # percentile interval of 2000 bootstrap draws of S/n, n = 100, against the binomial
    # quantiles: the lattice step 1/n plus about two Monte Carlo standard errors of a 2.5 %
    # quantile (sqrt(0.025 * 0.975 / 2000) / density ~ 0.005 each).
    "bootstrap_percentile": Tolerance(rtol=0.0, atol=0.021),
    # slope of a threshold curve fitted to 400 simulated cells: its standard error is ~5 %
    "threshold_fit_slope": Tolerance(rtol=0.15, atol=0.0),
    # median threshold at 1e4 of the same fit: standard error ~1 %
    "threshold_fit_location": Tolerance(rtol=0.03, atol=0.0),
}


def _key(dtype) -> str:
    name = str(dtype).removeprefix("torch.")
    if name in ("double",):
        name = "float64"
    if name in ("float",):
        name = "float32"
    return name


def default_tolerance() -> dict[str, Tolerance]:
    """A copy of the dtype-keyed table (as jax's ``public_test_util.default_tolerance``)."""
    return dict(TOLERANCES)


def tolerance(dtype="float64", override=None, *, device="cpu") -> Tolerance:
    """Tolerance for results computed in ``dtype`` on ``device`` (``"cpu"`` or ``"cuda"``).

    ``override`` (as ``tol`` of jax's ``public_test_util.tolerance``): ``None`` for the table's
    entry; a :class:`Tolerance` (from a helper such as :func:`sum_tolerance`) used as is; the
    name of an entry of :data:`NAMED`; a dict keyed by dtype name whose entry for ``dtype``,
    when present, replaces the table's.
    """
    if isinstance(override, Tolerance):
        return override
    if isinstance(override, str):
        if override not in NAMED:
            reject("override", override, f"a named tolerance: {', '.join(NAMED)}")
        return NAMED[override]
    key = "cuda" if str(device).startswith("cuda") else _key(dtype)
    if isinstance(override, dict):
        found = {_key(k): v for k, v in override.items()}.get(key)
        if found is not None:
            return tolerance(dtype, found, device=device)
    elif override is not None:
        reject("override", override, "None, a Tolerance or a dict of them keyed by dtype")
    if key not in TOLERANCES:
        reject("dtype", dtype, "a dtype of the tolerance table: float64 or float32")
    return TOLERANCES[key]


# Unit roundoff u = 2^-p of each dtype (p: significand bits, the implicit one included).
UNIT_ROUNDOFF: dict[str, float] = {"float64": 2.0 ** -53, "float32": 2.0 ** -24}


def sum_tolerance(dtype, n: int, device="cpu") -> Tolerance:
    r"""Tolerance for a result that is a sum, mean or dot product of ``n`` rounded terms in
    ``dtype``, compared with a reference (a more accurate computation, or the same sum in
    another order: other chunk sizes, thread counts or BLAS kernels).

    Recursive summation in any order and any blocking satisfies, to first order in the unit
    roundoff :math:`u`, :math:`|\hat s - s| \le (n - 1)\,u \sum_i |x_i|` (Higham, *Accuracy
    and Stability of Numerical Algorithms*, 2nd ed., eq. (4.4)); for a mean of terms of size
    at most ``scale`` the bound is :math:`(n - 1)\,u \cdot \mathrm{scale}`, and one more
    :math:`u` covers the rounding of the inputs. So ``rtol = atol = n u``, never tighter than
    the table's entry for ``dtype`` (which covers the short sums and elementwise work around
    the long one). The bound is the worst case: observed errors of blocked sums are nearer
    :math:`\sqrt{n}\,u`, but a test must pass on every summation order a CPU may choose.
    """
    base = tolerance(dtype, device=device)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        reject("n", n, "a positive int (the number of summed terms)")
    u = UNIT_ROUNDOFF.get(_key(dtype), UNIT_ROUNDOFF["float32"])
    bound = n * u
    return Tolerance(rtol=max(base.rtol, bound), atol=max(base.atol, bound))


def working_digits(dps: int, lost: int = 0) -> Tolerance:
    """Bound for a result computed in multiprecision with ``dps`` significant decimal digits
    (mpmath's ``mp.dps``), of which rounding and cancellation may take ``lost``: relative and
    absolute :math:`10^{-(\\mathrm{dps} - \\mathrm{lost})}`."""
    for name, v in (("dps", dps), ("lost", lost)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            reject(name, v, "a non-negative int")
    if lost >= dps:
        reject("lost", lost, f"fewer digits than dps = {dps}")
    bound = 10.0 ** -(dps - lost)
    return Tolerance(rtol=bound, atol=bound)


def decimal_places(places: int) -> Tolerance:
    """Bound for a value quoted (rounded) to ``places`` decimal places: half a unit in the last
    place, absolute."""
    if isinstance(places, bool) or not isinstance(places, int) or places < 0:
        reject("places", places, "a non-negative int")
    return Tolerance(rtol=0.0, atol=0.5 * 10.0 ** -places)


def is_close(actual, expected, dtype="float64", device="cpu", scale=1.0, tol=None) -> bool:
    """``|actual - expected| <= rtol |expected| + atol * scale`` for one scalar pair
    (``tol``: the ``override`` of :func:`tolerance`)."""
    tol = tolerance(dtype, tol, device=device)
    a, e = _float(actual), _float(expected)
    return abs(a - e) <= tol.rtol * abs(e) + tol.atol * float(scale)


def _float(x) -> float:
    # torch tensors that require grad: read the value without a warning
    return float(x.detach()) if hasattr(x, "detach") else float(x)


def assert_close(actual, expected, dtype="float64", device="cpu", scale=1.0, what="value",
                 tol=None):
    """Raise ``AssertionError`` with both values and the tolerance when not :func:`is_close`."""
    if not is_close(actual, expected, dtype, device, scale, tol):
        tol = tolerance(dtype, tol, device=device)
        raise AssertionError(
            f"{what}: got {_float(actual)!r}, expected {_float(expected)!r} "
            f"(|diff| = {abs(_float(actual) - _float(expected)):.3e}, rtol={tol.rtol}, "
            f"atol={tol.atol} x scale {float(scale):.3e}, dtype={_key(dtype)}, device={device})"
        )


__all__ = ["Tolerance", "TOLERANCES", "NAMED", "UNIT_ROUNDOFF", "default_tolerance", "tolerance",
           "sum_tolerance", "working_digits", "decimal_places", "is_close", "assert_close"]
