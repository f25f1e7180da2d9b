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
    if len(expected) != len(received):
        return False
    scale = max([1.0] + [abs(x) for x in scale_of])
    return all(is_close(r, e, "float64", scale=scale) for r, e in zip(received, expected))


def to_floats(value, what):
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
