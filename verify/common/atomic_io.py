"""Atomic writes: a temporary file in the target's folder, then ``os.replace``.

An error or Ctrl-C before the rename leaves the old file (or none), never half a file.
"""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

from numeric.validation import InputError, reject


FIGURE_SUFFIXES = (".png", ".pdf", ".svg")


def _read_umask() -> int:
    # read once at import: os.umask can only be read by setting it
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def check_figure_path(path, allowed=FIGURE_SUFFIXES, name="figure") -> Path:
    """Validate a figure file name before any work is done (the format comes from the suffix);
    ``name`` is the argument or option that gave it (``"--figure"`` on the command line)."""
    if Path(path).suffix.lower() not in allowed:
        reject(name, str(path), f"a file name ending in {', '.join(allowed)}")
    return Path(path)


@contextmanager
def atomic_path(path, suffix=None):
    """Yield a temporary path beside ``path``; rename it onto ``path`` only on success.

    ``suffix`` defaults to the target's suffix, so writers that infer the format from the
    name (matplotlib, numpy) still work.
    """
    path = Path(path)
    if path.is_dir():
        raise InputError(f"cannot write {str(path)!r}: it is a directory; expected a file name")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(
            prefix=f".{path.name}.", suffix=suffix if suffix is not None else path.suffix, dir=path.parent
        )
    except OSError as exc:
        raise InputError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
    os.close(fd)
    # mkstemp creates 0600; give the final file the usual permissions (0666 minus umask)
    os.chmod(tmp, 0o666 & ~_UMASK)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_text(path, text: str) -> Path:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def atomic_write_json(path, obj) -> Path:
    return atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=False, default=_jsonable) + "\n")


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend (figures are only written to files), imported
    when the first figure is drawn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def atomic_savefig(fig, path, **kwargs) -> Path:
    """``fig.savefig`` through :func:`atomic_path` (format taken from the suffix)."""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=Path(path).suffix.lstrip(".") or None, **kwargs)
    return Path(path)


def _jsonable(x):
    # numpy / torch scalars and arrays, mpmath numbers
    if hasattr(x, "tolist"):
        return x.tolist()
    if hasattr(x, "item"):
        return x.item()
    try:
        return float(x)
    except (TypeError, ValueError):
        return str(x)


__all__ = ["FIGURE_SUFFIXES", "check_figure_path", "atomic_path", "atomic_write_text", "atomic_write_json",
           "pyplot", "atomic_savefig"]
