r"""Which gradient path :func:`numeric.xor.population_grad` runs on this machine.

Two paths give the same gradient within the tolerance table (:mod:`numeric.xor`):

- ``"one-pass"``: the logits of a block of rows of ``V`` and its six weighted row sums while
  the block is in cache, so ``V`` is read once from memory; it needs the block to stay in the
  last-level cache between its two uses;
- ``"two-pass"``: the full-vector path, logits of all rows then the pull-back ``W V``: ``V`` is
  read twice from memory, in two plain GEMM-like passes that need no cache.

The choice is measured where this machine has been measured: ``python -m bench.xor`` times both
paths at d = 10^6 and records their ratio in a calibration file
(``~/.cache/boolverify/grad_path.json``, or the file named by ``BOOLVERIFY_GRAD_CALIBRATION``),
keyed by the CPU's model and last-level cache (:func:`numeric.machine.machine_key`), and ``auto``
takes the faster path from it (read once per process, like the BLAS of the thin products with
``V``, :func:`pullback_backend`; :func:`forget_calibration` reads both again). The engine only
reads that file; the benchmark writes it. Without a calibration of this machine the choice is a
pure function of the last-level cache size (:func:`choose_path`), an assumption that held on an
Intel Xeon (one pass about half the two-pass time) but not on the AMD EPYC machines measured
since, where the two paths came within about a third of each other and the faster one changed
from run to run (``python -m bench.xor``; there the calibration decides, as its last run measured).
The one-pass block is a quarter of that cache (so that it survives the other cores' traffic and
the moments GEMM), at most :data:`MAX_BLOCK_BYTES` (16 MiB: past it, bigger blocks gain nothing) and at
least :data:`MIN_BLOCK_BYTES` (below 1 MiB the per-block calls and thin GEMMs cost more than the
second read of ``V`` saves; measured in ``bench/xor.py``, docs/performance.md). A cache too small
for that block, or a measured ratio (``t_one_pass / t_two_pass`` >= 1, e.g. from
``python -m bench.xor``), selects the two-pass path. An unknown cache size keeps the one pass
with a 1 MiB block (it fits the L2 of every current server core).

A third path, ``"compiled"``, is never chosen by ``auto``: the two-pass path whose O(d) closed form
between the two products with ``V`` is compiled by ``torch.compile`` (inductor's C++ kernels, its
elementwise steps fused into a few loops; the products stay the eager path's), built at its first use in
a process (about 25 s with a cold inductor cache, a few seconds warm) and again for each new
support, dtype or batch rank (dynamo keeps a few such versions, then runs the eager two-pass code).
A single model at small d now runs faster on the default path, whose O(d) steps run in numpy
(``python -m bench.xor``, docs/performance.md).

Forcing a path: the ``path`` argument of ``population_grad``, else the environment variable
``BOOLVERIFY_GRAD_PATH`` (``one-pass``, ``two-pass``, ``compiled`` or ``auto``).
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from pathlib import Path

from numeric.machine import cache_sizes, machine_key
from numeric.validation import reject

#: environment variable that forces a path (``one-pass``, ``two-pass``, ``auto``)
ENV_VAR = "BOOLVERIFY_GRAD_PATH"
#: the paths ``auto`` chooses between
PATHS = ("one-pass", "two-pass")
#: the compiled two-pass path (only where asked for)
COMPILED = "compiled"
MAX_BLOCK_BYTES = 1 << 24
MIN_BLOCK_BYTES = 1 << 20
#: the one-pass block is at most this share of the last-level cache
CACHE_SHARE = 4

@dataclass(frozen=True)
class PathChoice:
    """``path`` (one of :data:`PATHS`), the one-pass block size in bytes, and why."""

    path: str
    block_bytes: int
    reason: str


def choose_path(llc_bytes: int | None, measured_ratio: float | None = None) -> PathChoice:
    """The path and one-pass block for a last-level cache of ``llc_bytes`` (None: unknown),
    or from a measured ``t_one_pass / t_two_pass`` when one is given. A pure function."""
    if measured_ratio is not None:
        block = _block_for(llc_bytes) or MIN_BLOCK_BYTES
        if measured_ratio < 1:
            return PathChoice("one-pass", block, f"measured: one pass {measured_ratio:.2f}x the two-pass time")
        return PathChoice("two-pass", block, f"measured: one pass {measured_ratio:.2f}x the two-pass time")
    if llc_bytes is None:
        return PathChoice("one-pass", MIN_BLOCK_BYTES, "cache size unknown: one pass, 1 MiB blocks")
    block = _block_for(llc_bytes)
    mib = llc_bytes / (1 << 20)
    if block is None:
        return PathChoice("two-pass", MIN_BLOCK_BYTES,
                          f"last-level cache {mib:.3g} MiB < {CACHE_SHARE} x {MIN_BLOCK_BYTES >> 20} MiB: "
                          "a one-pass block would not stay in cache")
    return PathChoice("one-pass", block, f"last-level cache {mib:.3g} MiB: one pass, blocks of "
                                         f"{block / (1 << 20):.3g} MiB (1/{CACHE_SHARE} of it, at most 16 MiB)")


def _block_for(llc_bytes):
    if llc_bytes is None or llc_bytes // CACHE_SHARE < MIN_BLOCK_BYTES:
        return None
    block = MIN_BLOCK_BYTES
    while block * 2 <= min(MAX_BLOCK_BYTES, llc_bytes // CACHE_SHARE):
        block *= 2
    return block


#: environment variable naming the calibration file (default :data:`CALIBRATION_FILE`)
CALIBRATION_VAR = "BOOLVERIFY_GRAD_CALIBRATION"
CALIBRATION_FILE = Path.home() / ".cache" / "boolverify" / "grad_path.json"


def calibration_file() -> Path:
    """The calibration file: ``BOOLVERIFY_GRAD_CALIBRATION`` if set, else :data:`CALIBRATION_FILE`."""
    value = os.environ.get(CALIBRATION_VAR, "").strip()
    return Path(value) if value else CALIBRATION_FILE


@functools.lru_cache(maxsize=4)
def _calibration_of(path: Path, key: str, stamp: int) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and data.get("machine") == key else {}


def calibration(path: Path | None = None) -> dict:
    """This machine's calibration (the file's content where its ``machine`` is this one, else {});
    read again only when the file changes."""
    path = calibration_file() if path is None else Path(path)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return {}
    return _calibration_of(path, machine_key(), stamp)


def _positive(value):
    ok = not isinstance(value, bool) and isinstance(value, (int, float)) and 0 < value < float("inf")
    return float(value) if ok else None


def read_calibration(path: Path | None = None) -> float | None:
    """The measured ``t_one_pass / t_two_pass`` of this machine from the calibration file, or None
    where there is none for it (no file, another machine's, unreadable)."""
    return _positive(calibration(path).get("one_over_two_pass"))


#: the libraries whose matrix product the pull-back ``W V`` can run on (CPU, float64/float32)
PULLBACK_BACKENDS = ("torch", "numpy")


@functools.lru_cache(maxsize=1)
def pullback_backend() -> str:
    """The library for the thin products with ``V`` on the CPU (the pull-back ``W V``, the one
    pass's weighted row sums, a single model's logits): the faster one of
    :data:`PULLBACK_BACKENDS` as measured on this machine (calibration ``pullback_numpy_over_torch``
    < 1 picks numpy's BLAS), else torch's. Read once per process, like :func:`machine_choice`
    (a gradient at small d must not pay for a file-system call); :func:`forget_calibration`
    reads it again."""
    ratio = _positive(calibration().get("pullback_numpy_over_torch"))
    return "numpy" if ratio is not None and ratio < 1 else "torch"


def forget_calibration() -> None:
    """Make :func:`machine_choice` and :func:`pullback_backend` read the calibration file again
    (e.g. after :func:`bench.calibration.write_calibration` in the same process)."""
    machine_choice.cache_clear()
    pullback_backend.cache_clear()


@functools.lru_cache(maxsize=1)
def machine_choice() -> PathChoice:
    """:func:`choose_path` for this machine: from its calibration where there is one
    (:func:`read_calibration`), else from its last-level cache (read once per process)."""
    sizes = cache_sizes()
    return choose_path(sizes[max(sizes)] if sizes else None, measured_ratio=read_calibration())


def _environment(name: str) -> str | None:
    """``os.environ.get(name)`` without its cost for an unset variable: that lookup raises and
    catches a KeyError inside, a few microseconds per gradient at small d. CPython on POSIX keeps
    the environment in ``os.environ._data`` under encoded keys; elsewhere the plain lookup."""
    data = getattr(os.environ, "_data", None)
    if os.name != "posix" or not isinstance(data, dict):
        return os.environ.get(name)
    value = data.get(os.fsencode(name))
    return None if value is None else os.fsdecode(value)


@functools.lru_cache(maxsize=4)
def _in_cache(block_bytes: int) -> PathChoice:
    # one object per block size: a call at small d must not pay for formatting its reason
    return PathChoice("two-pass", block_bytes, f"V within one {MIN_BLOCK_BYTES >> 20} MiB block: "
                                               "read twice from cache")


def resolve_path(path: str | None = None, device_type: str = "cpu", V_bytes: int | None = None) -> PathChoice:
    """The path to run: ``path`` if given (``one-pass``, ``two-pass``, ``compiled``, ``auto``), else
    ``BOOLVERIFY_GRAD_PATH``, else :func:`machine_choice` (on the CPU; a GPU runs the one pass,
    whose blocks it sizes itself). On the CPU a ``V`` of ``V_bytes`` <= :data:`MIN_BLOCK_BYTES`
    stays in cache between the two passes, so ``auto`` runs the two-pass path there: fewer,
    larger kernels (measured about twice as fast at d <= 1000, ``python -m bench.xor``)."""
    source = "argument"
    if path is None:
        path, source = _environment(ENV_VAR) or "auto", ENV_VAR
    if path not in (*PATHS, COMPILED, "auto"):
        reject("path" if source == "argument" else ENV_VAR, path, "'one-pass', 'two-pass', 'compiled' or 'auto'")
    auto = machine_choice()
    if path == "auto" and device_type != "cpu":
        return PathChoice("one-pass", auto.block_bytes, f"{device_type}: one pass")
    if path == "auto" and V_bytes is not None and V_bytes <= MIN_BLOCK_BYTES:
        return _in_cache(auto.block_bytes)
    if path == "auto":
        return auto
    return PathChoice(path, auto.block_bytes, f"forced by {source} = {path!r}")
