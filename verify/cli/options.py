"""Checks shared by the commands, run before any long work: output files, the memory a run
implies, and the console that prints results.

Every command validates its options first (one :class:`~numeric.validation.InputError`, one
line, exit 2), so a bad output path or an impossible size is refused in milliseconds instead
of after minutes of computing.
"""

from __future__ import annotations

import errno
import math
import os
import stat
import sys
import tempfile
from pathlib import Path

from numeric.validation import InputError, reject

GIB = 1 << 30


def check_output(path, name: str, *, inputs=(), outputs=()) -> Path | None:
    """The one gate of every file a command writes, run before the work that produces it.

    Refused (one :class:`InputError` naming ``name``): an empty name, one with a control
    character (a newline or NUL is a paste error, never a file someone wants), a component
    longer than the file system allows, a folder, anything that exists and is not a regular
    file (a FIFO would block the writer forever, a device such as ``/dev/null`` would be
    replaced by a file), a symlink loop, a name in a folder that does not exist or does not
    accept a new file (tested by creating and removing one: permissions, read-only mounts,
    ``/proc``), a read-only file, and a name that is the same file as one of ``inputs`` or
    ``outputs`` however it is spelled (``./x``, ``d/../x``, a symlink, a hard link).

    Symlinks are followed, never replaced: a link to a regular file (or to a new name in an
    existing folder) is written through, so the write replaces the target and the link stays;
    :func:`verify.common.atomic_io.atomic_path` resolves it the same way at write time.

    ``inputs`` and ``outputs``: the command's input files and its other outputs, each a path or
    an ``(option, path)`` pair (``None`` paths are skipped). Returns ``Path(path)``, or ``None``
    for ``None``.
    """
    if path is None:
        return None
    text = os.fspath(path) if isinstance(path, os.PathLike) else str(path)
    if not text.strip():
        reject(name, text, "a file name")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
        reject(name, text, "a file name without control characters (newline, tab, NUL)")
    p = Path(text)
    if text.endswith(os.sep) or text.endswith(os.sep + ".") or p.name in ("", ".", ".."):
        reject(name, text, "a file name, not a folder")
    _check_name_lengths(text, name)
    st = _stat(text, name)
    if st is not None and stat.S_ISDIR(st.st_mode):
        reject(name, text, "a file name, not a folder")
    if st is not None and not stat.S_ISREG(st.st_mode):
        reject(name, text, f"a regular file or a new name (it is {_kind(st.st_mode)}, which writing would "
               "block on or replace)")
    real = Path(os.path.realpath(text))
    folder = real.parent
    if not folder.is_dir():
        where = (f"it is a symlink into {str(folder)!r}, which does not exist" if os.path.islink(text)
                 else f"{str(p.parent)!r} does not exist")
        reject(name, text, f"a file in an existing folder ({where})")
    try:
        fd, probe = tempfile.mkstemp(prefix=".boolverify-", suffix=".probe", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        reject(name, text, f"a file name that can be written ({exc.strerror or exc} in {str(folder)!r})")
    if st is not None and not os.access(real, os.W_OK):
        reject(name, text, "a file that can be replaced (it exists and is read-only)")
    _check_distinct(name, text, inputs, outputs)
    return p


def check_output_dir(path, name: str, subfolders=()) -> Path:
    """An output folder, checked before the run: an existing folder (or a symlink to one) that
    accepts a new file, or a new name whose nearest existing parent is such a folder (the
    folders are created by the run); each of ``subfolders`` (names inside it) that exists must
    be a folder too."""
    text = os.fspath(path) if isinstance(path, os.PathLike) else str(path)
    if not text.strip():
        reject(name, text, "a folder name")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
        reject(name, text, "a folder name without control characters (newline, tab, NUL)")
    _check_name_lengths(text, name)
    folder = Path(os.path.realpath(text))
    existing = folder
    while not existing.exists() and not existing.is_symlink():
        existing = existing.parent
    st = _stat(str(existing), name)
    if st is None or not stat.S_ISDIR(st.st_mode):
        what = "it" if existing == folder else repr(str(existing))
        reject(name, text, f"a folder ({what} is {'a dangling symlink' if st is None else _kind(st.st_mode)})")
    try:
        fd, probe = tempfile.mkstemp(prefix=".boolverify-", suffix=".probe", dir=existing)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        reject(name, text, f"a folder that can be written ({exc.strerror or exc} in {str(existing)!r})")
    for sub in subfolders:
        st = _stat(str(folder / sub), name)
        if st is not None and not stat.S_ISDIR(st.st_mode):
            reject(name, text, f"a folder whose {sub}/ is a folder ({str(folder / sub)!r} is {_kind(st.st_mode)})")
    return Path(text)


def check_output_in(folder, relative, name: str) -> None:
    """A file a run will write at ``folder/relative`` (a name the command chooses, under an
    output folder given as option ``name``): :func:`check_output`'s kinds, checked before the
    run (the folder itself may not exist yet)."""
    path = Path(folder) / relative
    st = _stat(str(path), name)
    if st is not None and not stat.S_ISREG(st.st_mode):
        reject(name, str(folder), f"a folder where {str(relative)!r} can be written ({str(path)!r} is "
               f"{_kind(st.st_mode)})")


def _stat(text, name):
    """``os.stat`` (links followed) of a name, ``None`` where nothing is there; a symlink loop,
    a file used as a folder and the like are refused as ``name``."""
    try:
        return os.stat(text)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            reject(name, text, "a path without a symlink loop")
        if exc.errno == errno.ENOTDIR:
            reject(name, text, "a path whose folders are folders (a part of it is a file)")
        reject(name, text, f"a path that can be looked up ({exc.strerror or exc})")


def _kind(mode) -> str:
    for test, what in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"),
                       (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISREG, "a file")):
        if test(mode):
            return what
    return "not a regular file"


#: the longest file name (one path component) and path, in bytes, of common Linux file systems
NAME_MAX = 255
PATH_MAX = 4096


def _check_name_lengths(text, name) -> None:
    # the OS refuses these with ENAMETOOLONG only when the file is opened, after the run
    raw = os.fsencode(text)
    if len(raw) >= PATH_MAX:
        reject(name, text, f"a path shorter than {PATH_MAX} bytes")
    for part in raw.split(os.fsencode(os.sep)):
        if len(part) > NAME_MAX:
            reject(name, text, f"file and folder names of at most {NAME_MAX} bytes (one has {len(part)})")


def _pairs(items, default):
    """``(option, path)`` pairs of ``items`` (paths or pairs), ``None`` and empty paths skipped."""
    out = []
    for item in items or ():
        option, value = item if isinstance(item, tuple) and len(item) == 2 else (default, item)
        if value is not None and str(value).strip():
            out.append((option, os.fspath(value) if isinstance(value, os.PathLike) else str(value)))
    return out


def _check_distinct(name, text, inputs, outputs) -> None:
    path = Path(text)
    for other, src in _pairs(inputs, None):
        if _same_file(path, Path(src)):
            label = f"the input {src!r}" if other is None else f"the input {other} = {src!r}"
            reject(name, text, f"a file other than {label} (writing it would overwrite the input)")
    for other, prev in _pairs(outputs, "another output"):
        if _same_file(path, Path(prev)):
            reject(name, text, f"a file other than {other} = {prev!r} "
                   "(both outputs would be written to one file)")


#: the most torch threads or worker processes an option may ask for (torch crashes on thousands
#: of threads, and a run on that many processes would spend minutes starting them)
MAX_THREADS = 256
MAX_JOBS = 64


def integer(text, name="value"):
    """The type of every integer option: :func:`numeric.validation.parse_integer` (``1e3`` is
    1000, ``1.9e0`` is refused, not rounded); a bad value is an InputError naming the option."""
    from numeric.validation import parse_integer

    return parse_integer(text, name)


integer.names_option = True


def comma_items(text, name, what="a comma-separated list") -> list[str]:
    """The non-empty items of a comma-separated option, stripped; at least one (``what``
    describes the list in the message)."""
    items = [t.strip() for t in str(text).split(",") if t.strip()]
    if not items:
        reject(name, text, f"{what} (at least one)")
    return items


def integers(text, name, lo=None, hi=None):
    """A comma-separated list of integers, each as :func:`integer` (``100,1e3``)."""
    from numeric.validation import parse_integer

    return [parse_integer(t, name, lo=lo, hi=hi)
            for t in comma_items(text, name, "comma-separated integers, e.g. 100,1000")]


def reals(text, name) -> list[float]:
    """A comma-separated list of reals (``1e-3,0.01``); range checks are the caller's."""
    what = "comma-separated reals, e.g. 1e-3,1e-2,1e-1"
    items = comma_items(text, name, what)
    try:
        return [float(t) for t in items]
    except ValueError:
        reject(name, text, what)


def _same_file(a: Path, b: Path) -> bool:
    """Whether two names are one file: equal once resolved (links followed), or, where both
    exist, the same inode (hard links, bind mounts)."""
    if Path(os.path.realpath(a)) == Path(os.path.realpath(b)):
        return True
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def check_distinct_files(outputs, inputs=()) -> None:
    """Refuse, before any work, an output file that is also an input file or another output.

    ``outputs`` and ``inputs`` are ``(option, path)`` pairs (a ``None`` path is skipped); an
    option naming a file it both reads and writes (a resumable ``--out``) is given as an
    output only. Writing an output onto an input would destroy the input (a ``--json`` equal to
    the ``--table`` it reads), and two outputs onto one name keep only the last one written.
    A figure (an option whose name has ``figure``) also writes its provenance sidecar
    (``<stem>.provenance.json``), which no other output may be. The same comparison as
    :func:`check_output`'s ``inputs``/``outputs``, for commands that check all their outputs
    at once.
    """
    from verify.common.atomic_io import FIGURE_SUFFIXES
    from verify.common.provenance import sidecar_path

    outs = _pairs(outputs, "an output")
    for i, (name, path) in enumerate(outs):
        _check_distinct(name, path, inputs, outs[:i])
    sidecars = [(f"the provenance sidecar of {name}", str(sidecar_path(path))) for name, path in outs
                if "figure" in name and Path(path).suffix.lower() in FIGURE_SUFFIXES]
    for name, path in outs:
        if "figure" not in name:
            _check_distinct(name, path, (), sidecars)
        elif Path(path).suffix.lower() in FIGURE_SUFFIXES:
            _check_distinct(f"{name} sidecar", str(sidecar_path(path)), inputs, ())


def check_figure_output(path, name: str = "--figure", *, inputs=(), outputs=()):
    """A figure file: a suffix that names its format, and :func:`check_output`'s checks, for
    the figure and for the provenance sidecar written beside it."""
    if not path:
        return None
    from verify.common.atomic_io import check_figure_path
    from verify.common.provenance import sidecar_path

    check_figure_path(path, name=name)
    out = check_output(path, name, inputs=inputs, outputs=outputs)
    check_output(sidecar_path(path), f"{name} sidecar", inputs=inputs)
    return out


def read_json(path, name: str, expected: str):
    """The JSON value in ``path``; an unreadable, malformed or hostile file (e.g. nested
    100 000 deep) is refused as ``name`` with ``expected`` in the message."""
    import json

    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        detail = "nested too deeply" if isinstance(exc, RecursionError) else (
            getattr(exc, "strerror", None) or str(exc).splitlines()[0][:200])
        raise InputError(f"{name} = {str(path)!r}: expected {expected} ({detail})") from None


def available_memory() -> int:
    """Bytes of memory a new allocation can use now (:func:`numeric.validation.available_memory`)."""
    from numeric.validation import available_memory as engine_available_memory

    return engine_available_memory()


def format_bytes(n: float) -> str:
    if not math.isfinite(n):
        return f"{n}"
    for unit, size in (("EiB", 1 << 60), ("PiB", 1 << 50), ("TiB", 1 << 40), ("GiB", GIB), ("MiB", 1 << 20)):
        if n >= size:
            return f"{n / size:.3g} {unit}" if n < 1e4 * size else f"{n:.3g} bytes"
    return f"{n:.0f} bytes"


def require_memory(nbytes: float, what: str, options: str) -> None:
    """Refuse a run whose largest allocation (``nbytes``, estimated from ``options``, written
    ``"--d = 10, --m = 4"``) cannot fit in the memory available now; the message gives the
    estimate and what is available."""
    have = available_memory()
    if not nbytes <= have:
        raise InputError(f"{options}: expected sizes that fit in memory ({what} needs about "
                         f"{format_bytes(nbytes)}, more than the {format_bytes(have)} available)")


def check_transformer_sizes(D, L, H, F, N, options):
    """A model's parameters and the activations of one string through it must fit in memory."""
    F = 4 * D if F is None else F
    params = L * (4 * D * D + 2 * D * F + 6 * D) + (N + 2) * D + 3 * D
    activations = (N + 1) * (F + 6 * D + H * (N + 1))
    require_memory(8.0 * (2 * params + activations), "the model and one string through it", options)


def check_model_options(args) -> None:
    """The model options of the paper-B commands that draw random transformers: ``--D``,
    ``--L``, ``--H`` (a divisor of ``--D``), ``--F``, ``--eps``, ``--models``; the init scheme's
    options are :func:`check_init_options`'s."""
    from numeric.validation import check_int, check_real

    check_int(args.D, "--D", lo=2)
    check_int(args.L, "--L", lo=1)
    check_int(args.H, "--H", lo=1)
    if args.D % args.H:
        raise InputError(f"--H = {args.H}: expected a divisor of --D = {args.D} "
                         "(the head width D/H must be an integer)")
    if args.F is not None:
        check_int(args.F, "--F", lo=1)
    check_real(args.eps, "--eps", lo=0)
    check_int(args.models, "--models", lo=1)


#: The command-line spelling of each option of an init scheme (``numeric.transformer.initialize_``).
INIT_OPTION_FLAGS = {"B": "--B", "sigma": "--sigma", "input_scale": "--input-scale"}


def check_init_options(args, defaults=None) -> dict:
    """The options ``--init`` draws with, ``{name: value}``: each one given (not ``None``)
    checked, and refused if the scheme does not use it (never ignored); the others from
    ``defaults`` (a preset's) or else the scheme's defaults (:func:`numeric.transformer.init_options`)."""
    from numeric.transformer import init_options

    given = {name: getattr(args, name, None) for name in INIT_OPTION_FLAGS}
    options = init_options(args.init, **given, scheme_name="--init", option_names=INIT_OPTION_FLAGS)
    defaults = defaults or {}
    return {name: defaults.get(name, value) if given[name] is None else value for name, value in options.items()}


def add_backend_options(parser, what: str) -> None:
    """``--workers N`` or ``--scheduler ADDRESS`` (exclusive): where ``what`` runs (Dask)."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--workers", type=integer, metavar="N",
                       help=f"{what} on N local worker processes (Dask; 1..64; default: in this process)")
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help=f"{what} on a running Dask cluster, e.g. tcp://10.0.0.5:8786 (default: in this process)")


def check_backend_options(args):
    """Check ``--workers`` and ``--scheduler`` (the address is probed now, so that a wrong one
    fails before any work); returns the scheduler address as ``tcp://host:port`` or ``None``."""
    from verify.experiments import distributed

    distributed.check_workers(args.workers, "--workers")
    return distributed.check_scheduler(args.scheduler, "--scheduler", probe=True)


#: the time budget of a run, in days, unless ``--max-days`` says otherwise
DEFAULT_MAX_DAYS = 2.0
_budget_days = [DEFAULT_MAX_DAYS]


def add_time_budget(parser) -> None:
    """``--max-days DAYS``: the longest run the command starts (its estimate is checked first)."""
    parser.add_argument("--max-days", dest="max_days", type=float, default=DEFAULT_MAX_DAYS, metavar="DAYS",
                        help="refuse a run estimated to take longer than DAYS days; raise it to start a "
                             "longer one on purpose")


def set_time_budget(days) -> None:
    """The budget of :func:`require_time` for this command (``--max-days``), checked."""
    from numeric.validation import check_real

    _budget_days[0] = check_real(days, "--max-days", lo=0, hi=36500, lo_open=True)


def require_time(seconds: float, what: str, options: str, limit: float | None = None) -> None:
    """Refuse a run estimated (from a lower bound on its operations) to take longer than
    ``limit`` seconds (default: the budget of ``--max-days``, 2 days unless raised): it would
    look like a hang, and starting it should be a choice."""
    limit = _budget_days[0] * 86400 if limit is None else limit
    if not seconds <= limit:
        expected = (f"sizes that finish within the time budget of {limit / 86400:.3g} days (--max-days; "
                    f"{what} needs at least {seconds:.3g} s, about {seconds / 86400:.3g} days, here)")
        raise InputError(f"{options}: expected {expected}", name=options.split(" = ")[0], value=options,
                         expected=expected)


# A lower bound on the run time: this many float64 multiply-adds per second on one core.
# Generous on purpose (a real run is slower), so only runs that cannot finish are refused.
FLOPS_PER_SECOND = 2e10


def console():
    """A rich console; when output goes to a file or a pipe, lines are not wrapped (a table
    too wide for 80 columns keeps its numbers whole)."""
    from rich.console import Console

    out = Console()
    if not out.is_terminal:
        out = Console(width=max(160, out.width), soft_wrap=False)
    return out


def is_terminal() -> bool:
    return sys.stderr.isatty()


__all__ = ["MAX_THREADS", "MAX_JOBS", "add_time_budget", "set_time_budget", "DEFAULT_MAX_DAYS", "integer", "integers", "comma_items", "reals", "check_output", "check_output_dir", "check_output_in", "check_distinct_files", "check_figure_output", "check_transformer_sizes", "check_init_options", "INIT_OPTION_FLAGS", "read_json", "available_memory", "format_bytes", "require_memory", "require_time",
           "console", "FLOPS_PER_SECOND"]
