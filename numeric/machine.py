"""The machine the engine runs on, as the OS reports it: the CPU's model name and its cache sizes.

Shared by the engine's measured choices (the gradient path of :mod:`numeric.xor`, keyed by
:func:`machine_key`) and by the provenance of every written file, which names the CPU. No torch
import: reading this costs a file read.
"""

from __future__ import annotations

import functools
import os
import platform
from pathlib import Path

_SYSFS = Path("/sys/devices/system/cpu/cpu0/cache")


def cpu_model() -> str | None:
    """The CPU's model name (``/proc/cpuinfo``, else :func:`platform.processor`), or None."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


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


@functools.lru_cache(maxsize=1)
def machine_key() -> str:
    """The CPU's model and last-level cache (the key of a machine's measured choices)."""
    name = cpu_model() or "unknown CPU"
    sizes = cache_sizes()
    if sizes:
        level = max(sizes)
        name += f", L{level} {sizes[level] / (1 << 20):.4g} MiB"
    return name
