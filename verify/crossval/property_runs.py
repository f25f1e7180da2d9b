"""The machinery shared by the property-based checks (:mod:`verify.crossval.xor_functions`,
:mod:`verify.crossval.profile_functions`): Hypothesis settings, running a property until its shrunk
mismatch, reading returned values as floats and comparing them at the float64 tolerance.
"""

from __future__ import annotations

import numbers

from numeric.validation import InputError
from verify.common.tolerances import is_close

#: Most examples one run may ask for.
MAX_EXAMPLES = 100_000


class AbortRun(BaseException):
    """Carries a :class:`TargetFailed` (other than raising) out of a Hypothesis run: being no
    ``Exception``, it stops the run at once instead of being shrunk, which would call a target
    that hangs or exits again and again."""

    def __init__(self, error):
        super().__init__(str(error))
        self.error = error


def hypothesis_settings(max_examples):
    from hypothesis import HealthCheck, Verbosity, settings

    return settings(max_examples=max_examples, deadline=None, database=None, derandomize=False,
                    suppress_health_check=list(HealthCheck), print_blob=False, report_multiple_bugs=False,
                    verbosity=Verbosity.quiet)


def run_property(prop, last):
    """Run a Hypothesis property that records each mismatch in ``last`` before failing; returns
    the shrunk mismatch (Hypothesis replays it last) or ``None``."""
    try:
        prop()
    except AbortRun as abort:
        raise abort.error from None
    except InputError:
        raise
    except Exception:
        if not last:
            raise
        return last[-1]
    return None


def values_agree(expected, received, scale_of):
    """Whether ``received`` agrees with ``expected`` at the float64 tolerance, scaled by the
    largest of ``scale_of`` (at least 1). A non-finite expected value makes the comparison
    undefined (inf agrees with nothing, NaN with nothing either), so it is bad input, never a
    verdict."""
    import math

    if not all(math.isfinite(x) for x in [*expected, *scale_of]):
        raise InputError("the reference value is not finite on this input, so the comparison is undefined; "
                         "choose inputs whose values are finite", name="reference", value=None,
                         expected="finite reference values")
    if len(expected) != len(received):
        return False
    scale = max([1.0] + [abs(x) for x in scale_of])
    return all(is_close(r, e, "float64", scale=scale) for r, e in zip(received, expected))


def to_floats(value, what, keep_ints=False):
    """Flatten a returned scalar/array (numpy, torch, list) to a list of Python floats; with
    ``keep_ints``, integers stay integers (counts are printed as counts)."""
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
        ints = keep_ints and (raw.dtype.kind in "iu" or (raw.dtype.kind == "O" and all(
            isinstance(v, numbers.Integral) for v in raw.ravel())))
    except (TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise InputError(f"{what}: cannot read the returned value as real numbers ({exc})",
                         name=what, value=None, expected="real numbers") from None
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{what}: the function returned NaN or inf ({arr[~np.isfinite(arr)][:3].tolist()}); "
                         "expected finite numbers", name=what, value=None, expected="finite numbers")
    if ints:
        return [int(v) for v in raw.ravel()]
    return [float(v) for v in arr]


def same_answers(first, second):
    """Whether two answers of the target on the same input agree (to the float64 tolerance, which
    absorbs the rounding of a non-deterministic but correct reduction)."""
    return values_agree(first, second, first) and values_agree(second, first, second)


def random_hint(first, second):
    """The hint for a target whose two calls on one input differ."""
    return (f"the target is random: two calls on the same input returned {first} and {second}; fix its seed "
            "(or its method: an exact computation rather than sampling)", {})
