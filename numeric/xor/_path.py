r"""Which gradient path :func:`numeric.xor.population_grad` runs on this machine.

Two paths give the same gradient within the tolerance table (:mod:`numeric.xor`):

- ``"one-pass"``: the logits of a block of rows of ``V`` and its six weighted row sums while
  the block is in cache, so ``V`` is read once from memory; it needs the block to stay in the
  last-level cache between its two uses;
- ``"two-pass"``: the full-vector path, logits of all rows then the pull-back ``W V``: ``V`` is
  read twice from memory, in two plain GEMM-like passes that need no cache.

The choice is a pure function of the last-level cache size (:func:`choose_path`): the one-pass
block is a quarter of that cache (so that it survives the other cores' traffic and the moments
GEMM), at most :data:`MAX_BLOCK_BYTES` (16 MiB: past it, bigger blocks gain nothing) and at
least :data:`MIN_BLOCK_BYTES` (below 1 MiB the per-block calls and thin GEMMs cost more than the
second read of ``V`` saves; measured in ``bench/xor.py``, docs/performance.md). A cache too small
for that block, or a measured ratio (``t_one_pass / t_two_pass`` >= 1, e.g. from
``python -m bench.xor``), selects the two-pass path. An unknown cache size keeps the one pass
with a 1 MiB block (it fits the L2 of every current server core).

A third path, ``"compiled"``, is never chosen by ``auto``: the two-pass closed form compiled by
``torch.compile`` (inductor's C++ kernels, every elementwise step fused), built at its first use in
a process (about 25 s with a cold inductor cache, a few seconds warm) and again for each new
support, dtype or batch rank (dynamo keeps a few such versions, then runs the eager two-pass code).
Where many calls share one support it is the fastest path at small d, where the eager paths pay a
kernel dispatch per step (``python -m bench.xor``, docs/performance.md).

Forcing a path: the ``path`` argument of ``population_grad``, else the environment variable
``BOOLVERIFY_GRAD_PATH`` (``one-pass``, ``two-pass``, ``compiled`` or ``auto``).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

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

_SYSFS = Path("/sys/devices/system/cpu/cpu0/cache")


@dataclass(frozen=True)
class PathChoice:
    """``path`` (one of :data:`PATHS`), the one-pass block size in bytes, and why."""

    path: str
    block_bytes: int
    reason: str


def _parse_size(text: str) -> int | None:
    text = text.strip().upper()
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    digits = text.rstrip("KMG")
    return int(digits) * scale if digits.isdigit() else None


def cache_sizes(root: Path = _SYSFS) -> dict[int, int]:
    """Data or unified cache size in bytes per level of CPU 0 (Linux sysfs, else
    ``os.sysconf``); empty where neither says."""
    sizes: dict[int, int] = {}
    try:
        for index in sorted(root.glob("index*")):
            if (index / "type").read_text().strip() == "Instruction":
                continue
            level, size = int((index / "level").read_text()), _parse_size((index / "size").read_text())
            if size:
                sizes[level] = max(size, sizes.get(level, 0))
    except (OSError, ValueError):
        sizes = {}
    if not sizes:
        for level, name in ((2, "SC_LEVEL2_CACHE_SIZE"), (3, "SC_LEVEL3_CACHE_SIZE")):
            try:
                value = os.sysconf(name)
            except (ValueError, OSError, AttributeError):
                continue
            if value and value > 0:
                sizes[level] = value
    return sizes


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


@functools.lru_cache(maxsize=1)
def machine_choice() -> PathChoice:
    """:func:`choose_path` for this machine's last-level cache (read once per process)."""
    sizes = cache_sizes()
    return choose_path(sizes[max(sizes)] if sizes else None)


def resolve_path(path: str | None = None, device_type: str = "cpu", V_bytes: int | None = None) -> PathChoice:
    """The path to run: ``path`` if given (``one-pass``, ``two-pass``, ``compiled``, ``auto``), else
    ``BOOLVERIFY_GRAD_PATH``, else :func:`machine_choice` (on the CPU; a GPU runs the one pass,
    whose blocks it sizes itself). On the CPU a ``V`` of ``V_bytes`` <= :data:`MIN_BLOCK_BYTES`
    stays in cache between the two passes, so ``auto`` runs the two-pass path there: fewer,
    larger kernels (measured about twice as fast at d <= 1000, ``python -m bench.xor``)."""
    source = "argument"
    if path is None:
        path, source = os.environ.get(ENV_VAR) or "auto", ENV_VAR
    if path not in (*PATHS, COMPILED, "auto"):
        reject("path" if source == "argument" else ENV_VAR, path, "'one-pass', 'two-pass', 'compiled' or 'auto'")
    auto = machine_choice()
    if path == "auto" and device_type != "cpu":
        return PathChoice("one-pass", auto.block_bytes, f"{device_type}: one pass")
    if path == "auto" and V_bytes is not None and V_bytes <= MIN_BLOCK_BYTES:
        return PathChoice("two-pass", auto.block_bytes, f"V ({V_bytes / (1 << 20):.3g} MiB) within one "
                                                        f"{MIN_BLOCK_BYTES >> 20} MiB block: read twice from cache")
    if path == "auto":
        return auto
    return PathChoice(path, auto.block_bytes, f"forced by {source} = {path!r}")
