"""The calibration file of this machine: what ``python -m bench.xor`` measured, for the engine's
``auto`` choices to read (:mod:`numeric.xor`; the engine reads the file and never writes it).

The file is JSON: ``{"provenance": ..., "machine": <numeric.machine.machine_key()>,
"one_over_two_pass": <t_one_pass / t_two_pass at d = 10^6>, "pullback_numpy_over_torch": ...,
...}``; a file whose ``machine`` is another CPU is ignored by the reader.
"""

from __future__ import annotations

from pathlib import Path

from numeric.machine import machine_key
from numeric.validation import check_real
from numeric.xor import calibration_file, forget_calibration
from verify.common.atomic_io import atomic_write_json

#: the measured ratios the engine reads (each a positive finite ratio of two times)
RATIOS = ("one_over_two_pass", "pullback_numpy_over_torch")


def write_calibration(one_over_two_pass: float, path: Path | None = None, **measured) -> Path:
    """Record this machine's measured ``t_one_pass / t_two_pass`` and what else was ``measured``
    (``pullback_numpy_over_torch``, the sizes, the date) in the calibration file, atomically;
    ``auto`` reads it from then on (in this process too). Returns the file."""
    measured = {"one_over_two_pass": one_over_two_pass, **measured}
    for name in RATIOS:
        if name in measured:
            measured[name] = check_real(measured[name], name, lo=0, lo_open=True)
    path = calibration_file() if path is None else Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    written = atomic_write_json(path, {"machine": machine_key(), **measured})
    forget_calibration()                 # this process's later calls read it too
    return written
