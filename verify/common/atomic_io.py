"""Atomic writes: a temporary file in the target's folder, then ``os.replace``.

An error or Ctrl-C before the rename leaves the old file (or none), never half a file.

Every JSON object written by :func:`atomic_write_json` carries the ``"provenance"`` record of
:mod:`verify.common.provenance` (replacing the record of a file read back and written again),
and every figure saved by :func:`save_figure` gets its provenance sidecar.

Files that several processes add to (the results files of sweeps) go through
:func:`merge_json_records`: under an exclusive lock (:func:`locked`) the file is read again,
the new records are merged into it by their key, and the union is written atomically, so two
writers never drop each other's records.
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path

from numeric.validation import InputError, reject
from verify.common.provenance import note_written, sidecar_path, with_provenance


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


def _write_target(path) -> Path:
    """The file a write of ``path`` replaces: symlinks followed (the link is kept and its target
    rewritten, as ``open(path, "w")`` would), refused where it exists and is not a regular file
    (a FIFO, a device, a socket, a folder). The CLI checks the same before the run
    (:func:`verify.cli.options.check_output`); this is the check at write time, for names that
    changed since and for library callers."""
    path = Path(path)
    real = Path(os.path.realpath(path))
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        return real
    except OSError as exc:
        raise InputError(f"cannot write {str(path)!r}: {exc.strerror or exc}; expected a file name") from None
    if stat.S_ISDIR(mode):
        raise InputError(f"cannot write {str(path)!r}: it is a directory; expected a file name")
    if not stat.S_ISREG(mode):
        raise InputError(f"cannot write {str(path)!r}: it is not a regular file (a FIFO, device or socket); "
                         "expected a regular file or a new name")
    return real


def _temp_affixes(name: str, suffix: str):
    # a temporary name stays within the 255-byte limit whatever the target's length (the
    # prefix is cut; the suffix, which writers read the format from, is kept when short)
    prefix = "." + os.fsdecode(os.fsencode(name)[:64]).rstrip("\ufffd") + "."
    return prefix, suffix if len(os.fsencode(suffix)) <= 32 else ""


@contextmanager
def atomic_path(path, suffix=None):
    """Yield a temporary path beside ``path``; rename it onto ``path`` only on success.

    ``suffix`` defaults to the target's suffix, so writers that infer the format from the
    name (matplotlib, numpy) still work. A symlink is followed (its target is replaced, the
    link stays); a target that exists and is not a regular file is refused, both before the
    temporary file is made and again just before the rename.
    """
    target = _write_target(path)
    prefix, suffix = _temp_affixes(target.name, suffix if suffix is not None else target.suffix)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=target.parent)
    except OSError as exc:
        raise InputError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
    os.close(fd)
    # mkstemp creates 0600; give the final file the usual permissions (0666 minus umask)
    os.chmod(tmp, 0o666 & ~_UMASK)
    try:
        yield Path(tmp)
        # the name may have become a FIFO or a link elsewhere while the file was written
        if _write_target(path) != target:
            raise InputError(f"cannot write {str(path)!r}: it changed while being written "
                             "(now a link to another file)")
        os.replace(tmp, target)
        # the command's closing account (and an interrupt's message) lists every file it wrote
        note_written(path)
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


def atomic_write_json(path, obj, *, records=None, provenance=None) -> Path:
    """Write ``obj`` as JSON; a dict gets the current run's ``"provenance"`` as its first key
    (or the record ``provenance``, e.g. one reconstructed from git history).
    ``records``: the number of records of a file that later runs resume from (for the run's
    account of what it wrote, :func:`verify.common.provenance.note_written`)."""
    written = atomic_write_text(path, json.dumps(with_provenance(obj, provenance), indent=2, sort_keys=False,
                                                 default=_jsonable) + "\n")
    note_written(path, records)
    return written


def lock_path(path) -> Path:
    """The sidecar lock file of ``path`` (``path + ".lock"``, beside the file a symlink points
    to, so that every spelling of one file takes one lock; a name too long for the suffix gets
    a hashed lock name)."""
    import hashlib

    path = Path(os.path.realpath(path))
    name = path.name + ".lock"
    if len(os.fsencode(name)) > 255:
        name = "." + hashlib.sha256(os.fsencode(path.name)).hexdigest()[:32] + ".lock"
    return path.with_name(name)


@contextmanager
def locked(path):
    """Hold an exclusive lock on ``path`` for the duration of the block.

    The lock is ``fcntl.flock`` on the sidecar file :func:`lock_path` rather than on ``path``
    itself, because :func:`atomic_path` replaces ``path`` by a new inode on every write and a
    lock on the old inode would protect nothing. The holder removes the sidecar before it
    releases the lock, so none outlives its run; a process that was waiting on the removed
    inode sees, once it gets the lock, that the name no longer points to it and starts over
    on a fresh sidecar, so two processes never both hold "the" lock. A process that dies
    holding the lock releases it (the kernel closes the descriptor) but leaves the empty
    sidecar, which the next holder removes.
    """
    lock = lock_path(path)
    if Path(path).is_dir():
        raise InputError(f"cannot write {str(path)!r}: it is a directory; expected a file name")
    while True:
        try:
            lock.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise InputError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                current = os.stat(lock)
            except FileNotFoundError:
                current = None
            held = os.fstat(fd)
        except BaseException:
            os.close(fd)
            raise
        if current is not None and (current.st_ino, current.st_dev) == (held.st_ino, held.st_dev):
            break
        os.close(fd)  # the holder before us removed this sidecar: lock a fresh one
    try:
        yield Path(path)
    finally:
        try:
            os.unlink(lock)
        except FileNotFoundError:
            pass
        os.close(fd)  # closing the descriptor releases the flock


def config_mismatch(old: dict, new: dict) -> str:
    """The settings on which two config dicts differ, as ``name: old on file, new here``
    (empty when they agree)."""
    names = list(old) + [k for k in new if k not in old]
    return "; ".join(f"{k} = {old.get(k)!r} on file, {new.get(k)!r} here"
                     for k in names if old.get(k) != new.get(k))


def merge_json_records(path, new_records, key_fn, *, config_fn=None, read=None, wrap=None,
                       what="record"):
    """Add ``new_records`` to the JSON file ``path``, under :func:`locked`, and write it atomically.

    The file is read again under the lock, so the records another process wrote since this
    one last looked are kept. A new record whose ``key_fn(record)`` is already on file is not
    added a second time (the record on file stays); if ``config_fn(record)`` (a dict of
    settings) differs from the one on file, :class:`InputError` names the differing settings
    and nothing is written.

    Args:
        path: the JSON file (created if missing);
        new_records: records (JSON-able) to add; key_fn: a record's identity (hashable);
        config_fn: a record's settings (dict) that must agree with the record on file of the
            same identity (default: no check);
        read: ``read(path) -> list`` of the records of an existing file (default: the file is
            a JSON list); wrap: ``wrap(records) -> JSON object`` written to the file (default:
            the list itself); what: the name of a record in messages.
    Returns:
        the list of records now on file (those on file first, in their order, then the new ones).
    """
    read = read or (lambda p: json.loads(Path(p).read_text(encoding="utf-8")))
    wrap = wrap or (lambda records: records)
    path = Path(path)
    with locked(path):
        records = list(read(path)) if path.exists() else []
        index = {key_fn(r): r for r in records}
        added = False
        for rec in new_records:
            k = key_fn(rec)
            if k in index:
                if config_fn is not None:
                    diff = config_mismatch(config_fn(index[k]), config_fn(rec))
                    if diff:
                        reject("results file", str(path),
                               f"{what}s with the settings of this run; its {what} {k} has {diff}")
                continue
            index[k] = rec
            records.append(rec)
            added = True
        if added or not path.exists():
            atomic_write_json(path, wrap(records), records=len(records))
    return records


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend (figures are only written to files), imported
    when the first figure is drawn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def atomic_savefig(fig, path, **kwargs) -> Path:
    """``fig.savefig`` through :func:`atomic_path` (format taken from the suffix)."""
    fmt = Path(path).suffix.lstrip(".").lower() or None
    # no creation date inside the file: a figure redrawn from the same data is the same file
    # (its provenance sidecar says when it was drawn)
    kwargs.setdefault("metadata", {"pdf": {"CreationDate": None}, "svg": {"Date": None}}.get(fmt, {}))
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=fmt, **kwargs)
    return Path(path)


def save_figure(fig, paths, data=(), **kwargs) -> list:
    """Save ``fig`` to each of ``paths`` (one stem, several formats; :func:`atomic_savefig`)
    and write the stem's provenance sidecar (:func:`verify.common.provenance.sidecar_path`):
    the current run's record, ``"files"`` (the image files' names) and ``"data"`` (the data
    files the figure was drawn from, as given: paths relative to the working folder). Every
    figure module saves through this function. Returns the image paths."""
    paths = [Path(p) for p in ([paths] if isinstance(paths, (str, Path)) else paths)]
    stems = {sidecar_path(p) for p in paths}
    if len(stems) != 1:
        reject("paths", [str(p) for p in paths], "image files of one stem (one figure)")
    for p in paths:
        atomic_savefig(fig, p, **kwargs)
    atomic_write_json(stems.pop(), {"files": [p.name for p in paths], "data": [_relative(d) for d in data]})
    return paths


def _relative(path) -> str:
    # a data file under the working folder (the checkout, when run as documented) by its
    # path from there, e.g. docs/data/xor_sweep.json; any other as given
    path = Path(path)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


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
           "lock_path", "locked", "config_mismatch", "merge_json_records", "pyplot", "atomic_savefig",
           "save_figure"]
