"""Every argument check of the suite, in one place, with one message format.

Each check takes the value and the argument's name, returns the value in its canonical form
(``int``, ``float``, a ``torch.device`` ...) and raises :class:`InputError` otherwise. Messages
read ``<name> = <value>: expected <what>``, so a caller (and a test) can rely on the argument's
name being in the message.

This module imports no torch at import time: the CLI validates its arguments before the engine
is loaded.
"""

from __future__ import annotations

import math
import numbers
import operator
import re


class InputError(ValueError):
    """Bad input to a public function or CLI command.

    The message names the argument, its value and what is expected, e.g.
    ``support = (3, 3): expected two distinct positions a != b``. Raised by :func:`reject` (so by
    every ``check_*`` helper) it also carries them as ``name`` (the argument), ``value`` (the
    value as given) and ``expected`` (the text after ``expected``), for callers and tests that
    need the argument rather than the prose. A message built by hand in the same format gives
    ``name`` and ``expected`` too (``value`` only as shown in the text, so ``None``); any other
    message gives ``None`` for all three.
    """

    def __init__(self, *args, name=None, value=None, expected=None):
        super().__init__(*args)
        if name is None and len(args) == 1 and isinstance(args[0], str):
            # a message written out in the common format names its argument all the same
            m = _FORMAT.match(args[0])
            if m:
                name, expected = m.group("name"), m.group("expected")
        self.name, self.value, self.expected = name, value, expected


_FORMAT = re.compile(r"(?P<name>[^\s=][^=]*?)(?: = .*?)?: expected (?P<expected>.*)\Z", re.S)


def reject(name, value, expected):
    """Raise :class:`InputError` in the common format ``<name> = <value>: expected <what>``.

    For domain checks that no helper below covers (shapes, consistency between arguments).
    A ``value`` string that starts with ``<`` is shown as is (a description such as
    ``<tensor of shape (3,)>``), anything else by its ``repr``. The message is complete, so an
    exception being handled when it is raised (a failed conversion) is not chained to it."""
    shown = value if isinstance(value, str) and value.startswith("<") else repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    raise InputError(f"{name} = {shown}: expected {expected}", name=name, value=value,
                     expected=expected) from None


def _range_text(lo, hi, kind):
    if lo is not None and hi is not None:
        return f"{kind} in [{lo}, {hi}]"
    if lo is not None:
        return f"{kind} >= {lo}"
    if hi is not None:
        return f"{kind} <= {hi}"
    return kind


def check_int(value, name, *, lo=None, hi=None):
    """An integer (Python, numpy or 0-d integer tensor; never a bool or a float) in
    ``[lo, hi]`` (either bound may be ``None``); returned as ``int``."""
    expected = _range_text(lo, hi, "an integer")
    if isinstance(value, bool):
        reject(name, value, expected)
    try:
        v = operator.index(value)
    except TypeError:
        reject(name, value, expected)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        reject(name, v, expected)
    return v


# ASCII digits only: int() and \d also take other scripts' digits ("١٢", full-width "１２")
_INTEGER_TEXT = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\Z", re.ASCII)


def parse_integer(text, name, *, lo=None, hi=None):
    """An integer written as text: digits (``1000``) or a number that is exactly an integer
    (``1e3``, ``2.5e1``), never one that is not (``1.9e0``, ``0.5``), in ``[lo, hi]``; an
    ``int`` is checked as :func:`check_int`. The value is exact (no float rounding), and a
    written exponent beyond 10^4000 is refused before the number is built."""
    from fractions import Fraction

    if not isinstance(text, str):
        return check_int(text, name, lo=lo, hi=hi)
    expected = _range_text(lo, hi, "an integer")
    t = text.strip().replace("_", "")
    if not _INTEGER_TEXT.match(t):
        reject(name, text, expected)
    exp = re.search(r"[eE]([+-]?\d+)", t)
    if exp and abs(int(exp.group(1))) > 4000:
        reject(name, text, expected)
    value = Fraction(t)
    if value.denominator != 1:
        reject(name, text, expected + " (not a fraction)")
    return check_int(int(value), name, lo=lo, hi=hi)


#: the largest seed of any generator (torch seeds are 64-bit; a seed and the offsets added to it
#: for the models and strings it numbers stay below 2^64)
MAX_SEED = 2 ** 63 - 1


def check_seed(value, name="seed", *, count=1):
    """A seed: an integer in ``[0, MAX_SEED]`` (never a bool, float or string; a negative seed
    is refused rather than wrapped, which would make seed -1 an alias of seed 2^64 - 1); with
    ``count``, the seeds ``value .. value + count - 1`` that a run numbers from it must all be
    in range. Every public function and option that takes a seed goes through this check."""
    if count <= 1:
        return check_int(value, name, lo=0, hi=MAX_SEED)
    hi = MAX_SEED - (count - 1)
    expected = f"an integer in [0, {hi}] (the run uses the {count} seeds from it on, each at most 2^63 - 1)"
    v = check_int(value, name, lo=0, hi=MAX_SEED)
    if hi < 0 or v > hi:
        reject(name, v, expected)
    return v


def check_seeds(values, name="seeds"):
    """A non-empty list of seeds, each as :func:`check_seed` (named ``name[i]``)."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        reject(name, values, "a non-empty list of integer seeds")
    out = [check_seed(v, f"{name}[{i}]") for i, v in enumerate(values)]
    if not out:
        reject(name, values, "a non-empty list of integer seeds")
    return out


def check_ints(values, name, *, lo=None, hi=None):
    """A non-empty sequence of integers, each as :func:`check_int`; returned as a list."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        reject(name, values, "a non-empty list of integers")
    out = [check_int(v, f"{name}[{i}]", lo=lo, hi=hi) for i, v in enumerate(values)]
    if not out:
        reject(name, values, "a non-empty list of integers")
    return out


def check_real(value, name, *, lo=None, hi=None, lo_open=False, hi_open=False):
    """A finite real number (never a bool) in the interval given by ``lo``/``hi`` (closed
    unless ``lo_open``/``hi_open``); returned as ``float``."""
    left = "(" if lo_open else "["
    right = ")" if hi_open else "]"
    if lo is not None and hi is not None:
        expected = f"a finite number in {left}{lo}, {hi}{right}"
    elif lo is not None:
        expected = f"a finite number {'>' if lo_open else '>='} {lo}"
    elif hi is not None:
        expected = f"a finite number {'<' if hi_open else '<='} {hi}"
    else:
        expected = "a finite number"
    if isinstance(value, bool):
        reject(name, value, expected)
    if not isinstance(value, numbers.Real):
        if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:  # numpy / torch scalar
            value = value.item()
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            reject(name, value, expected)
    try:
        v = float(value)
    except OverflowError:
        reject(name, value, expected)
    if not math.isfinite(v):
        reject(name, value, expected)
    if lo is not None and (v < lo or (lo_open and v == lo)):
        reject(name, value, expected)
    if hi is not None and (v > hi or (hi_open and v == hi)):
        reject(name, value, expected)
    return v


def check_choice(value, name, choices):
    """One of ``choices`` (compared with ``==``); returned unchanged."""
    try:
        ok = value in choices
    except TypeError:
        ok = False
    if not ok:
        reject(name, value, "one of " + ", ".join(repr(c) for c in choices))
    return value


def check_entry(value, name, registry, vocabulary_names, implemented):
    """The entry of ``registry`` for ``value``, a name of ``vocabulary_names``: a name outside
    the vocabulary is refused as by :func:`check_choice`, and one of it without an entry as
    ``one of <the registry's names>, <implemented>`` (never an entry of another name)."""
    check_choice(value, name, vocabulary_names)
    try:
        return registry[value]
    except KeyError:
        reject(name, value, f"one of {tuple(registry)}, {implemented}")


def check_bool(value, name):
    """``True`` or ``False`` (not 0/1)."""
    if not isinstance(value, bool):
        reject(name, value, "True or False")
    return value


def check_support(support, d, name="support"):
    """``support = (a, b)``: two distinct integer positions in ``0..d-1`` (ints, numpy
    integers or 0-d integer tensors; not floats or bools). Returns ``(a, b)``."""
    if type(support) is tuple and len(support) == 2:     # the common case, checked per gradient
        a, b = support
        if type(a) is int and type(b) is int and 0 <= a < d and 0 <= b < d and a != b:
            return a, b
    expected = f"a pair (a, b) of distinct integers with 0 <= a, b < d = {d}"
    try:
        pair = tuple(support)
    except TypeError:
        reject(name, support, expected)
    if len(pair) != 2 or any(isinstance(i, bool) for i in pair):
        reject(name, support, expected)
    try:
        a, b = (operator.index(i) for i in pair)
    except TypeError:
        reject(name, support, expected)
    if not (0 <= a < d and 0 <= b < d) or a == b:
        reject(name, (a, b), expected)
    return a, b


def check_tensor_storage(x, name, *, grad=True):
    """A dense tensor with data (not sparse, not on the ``meta`` device); with ``grad=False``
    also one that does not require grad while grad mode is on (for computations that autograd
    cannot follow; under ``torch.no_grad()``, e.g. in a custom backward, it is accepted)."""
    import torch

    if x.layout != torch.strided:
        reject(name, f"<{x.layout} tensor>", "a dense (strided) tensor; pass .to_dense()")
    if x.is_meta:
        reject(name, "<tensor on the meta device>", "a tensor with data (on the CPU or a GPU)")
    if x.is_cuda and not torch.cuda.is_available():
        reject(name, f"<tensor on {x.device}>", "a CPU tensor: CUDA is not available in this torch build")
    if not grad and x.requires_grad and torch.is_grad_enabled():   # (under no_grad it is fine)
        reject(name, "<tensor that requires grad>", "a tensor without requires_grad (this result is not "
               "differentiable by autograd); pass .detach()")
    return x


def check_float_tensor(x, name, *, min_dim=0, grad=True):
    """A float64 or float32 dense torch tensor with data, with at least ``min_dim`` dimensions
    (``grad``: as :func:`check_tensor_storage`)."""
    import torch

    if not isinstance(x, torch.Tensor):
        reject(name, f"<{type(x).__name__}>", "a torch.Tensor of dtype float64 or float32")
    check_tensor_storage(x, name, grad=grad)
    if x.dtype not in (torch.float64, torch.float32):
        reject(name, f"<tensor of dtype {x.dtype}>", "dtype float64 or float32")
    if x.dim() < min_dim:
        reject(name, f"<tensor of shape {tuple(x.shape)}>", f"at least {min_dim} dimension(s)")
    return x


def check_finite(x, name, *, hint=""):
    """A tensor without NaN or inf entries; ``hint`` (e.g. where a NaN may come from) is
    appended to the message."""
    import torch

    if not bool(torch.isfinite(x).all()):
        reject(name, "<tensor with NaN or inf>", "finite entries" + (f" ({hint})" if hint else ""))
    return x


def check_like(x, name, ref, ref_name):
    """A tensor with the dtype and device of the tensor ``ref`` (named ``ref_name``)."""
    if x.dtype != ref.dtype or x.device != ref.device:
        reject(name, f"<tensor of dtype {x.dtype} on {x.device}>",
              f"dtype {ref.dtype} on {ref.device}, like {ref_name}")
    return x


def check_dtype(dtype, name="dtype"):
    """``torch.float64``/``torch.float32`` or their names; returned as the torch dtype."""
    import torch

    table = {"float64": torch.float64, "float32": torch.float32,
             torch.float64: torch.float64, torch.float32: torch.float32}
    try:
        return table[dtype]
    except (KeyError, TypeError):
        reject(name, dtype, "torch.float64 or torch.float32 (or 'float64', 'float32')")


def check_device(device, name="device"):
    """A torch device that exists here (``None`` is the CPU); returned as ``torch.device``."""
    import torch

    if device is None:
        return torch.device("cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError, ValueError):
        reject(name, device, "'cpu', 'cuda' or 'cuda:K'")
    if dev.type not in ("cpu", "cuda"):
        reject(name, device, "'cpu', 'cuda' or 'cuda:K'")
    if dev.type == "cuda" and not torch.cuda.is_available():
        reject(name, device, "a CUDA device, but CUDA is not available on this machine")
    return dev


def available_memory(device=None) -> int:
    """Bytes a new allocation can use now: on a CUDA device its free memory; elsewhere the
    system's ``MemAvailable`` (Linux), else the physical memory, else 8 GiB."""
    if device is not None and str(device).startswith("cuda"):
        import torch

        return int(torch.cuda.mem_get_info(torch.device(device))[0])
    import os

    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def check_allocation(nbytes, name, value, what, *, device=None):
    """Refuse, before allocating, ``nbytes`` for ``what`` (e.g. ``"the d x m embeddings"``) beyond
    the documented limit: the memory available now (:func:`available_memory`). The error names
    the argument that sets the size (``name = value``); a size that fits is returned as an int.
    Without the check torch fails inside the allocation (a RuntimeError or an overflow) or the
    system starts swapping."""
    have = available_memory(device)
    if not nbytes <= have:
        reject(name, value, f"a size whose {what} fit in memory (about {float(nbytes):.3g} bytes needed, "
               f"{have / 2**30:.3g} GiB available)")
    return int(nbytes)


__all__ = [
    "check_entry",
    "InputError", "reject", "check_int", "check_ints", "parse_integer", "check_seed", "check_seeds", "MAX_SEED", "check_real", "check_choice", "check_bool",
    "check_support", "check_tensor_storage", "check_float_tensor", "check_finite", "check_like",
    "check_dtype", "check_device",
]
__all__ += ["available_memory", "check_allocation"]
