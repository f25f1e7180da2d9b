r"""Boolean functions on :math:`\{0,1\}^N` as truth tables (docs/claims.md, SG-1 to SG-6).

A truth table is a 1-D tensor of 0/1 values (``torch.uint8`` by default) of length
:math:`2^N`, indexed by the string index :math:`x = \sum_n \mathrm{bit}_n 2^n` (bit ``n`` is
the ``n``-th position, 0-based; position 0 is the least significant bit).

Tables are built without index tensors: the pattern of bit ``n`` is obtained by viewing the
table as ``(2^{N-1-n}, 2, 2^n)`` and writing into the second half of the middle axis. That
keeps the memory at one byte per string, so ``N = 28`` (256 MB) fits; ``int64`` index
tensors would take 2 GB there.

Functions (``name`` of :func:`truth_table`):

=================== =====================================================================
``parity``          :math:`|x| \bmod 2`
``majority``        strict: :math:`1` iff :math:`|x| > N/2`
``first``           :math:`x_0`
``dictator``        :math:`x_i` (``i=``)
``sparse_parity``   :math:`\bigoplus_{n\in S} x_n` (``S=``)
``sparse_majority`` strict: :math:`1` iff :math:`\sum_{n\in S} x_n > |S|/2` (``S=``)
``constant``        ``value=`` 0 or 1
``random``          uniform i.i.d. bits, ``seed=`` (drawn on the CPU, so identical on
                    every device)
=================== =====================================================================

Named entries (:data:`numeric.vocabulary.NAMED_FUNCTIONS`) stand for one of these at fixed
parameters: ``parity01`` is ``sparse_parity`` with ``S = (0, 1)``. The training targets and
their controls (:data:`numeric.vocabulary.ALL_TARGETS`) are entries of this registry.

One registry, three views of a function given by name and parameters:

* :func:`truth_table`: the table over all :math:`2^N` strings (memory-limited ``N``);
* :func:`labels`: its values on a bit matrix, computed from the bits (any ``N``), the labels
  the training runs learn;
* exact facts for any ``N``, from the form :math:`f(x) = g(\sum_{n \in S} x_n)` that every
  function but ``random`` has: :func:`baseline_accuracy` (the best constant's),
  :func:`exact_mean_sensitivity` and :func:`exact_profile_fraction` (:math:`K_k / 2^N`).
"""

from __future__ import annotations

import math

import torch

from numeric.validation import check_choice, check_device, check_int, check_ints, check_seed, reject
from numeric.vocabulary import FUNCTION_PARAMS, FUNCTIONS, NAMED_FUNCTIONS

#: Every name the registry accepts: the functions and the named entries.
REGISTRY_NAMES = FUNCTIONS + tuple(NAMED_FUNCTIONS)
#: Functions computed as the XOR of some positions, and as a strict majority of some positions.
PARITY_TYPE = ("parity", "first", "dictator", "sparse_parity")
MAJORITY_TYPE = ("majority", "sparse_majority")

#: Default largest ``N`` for tables and profiles (16 MB per uint8 table); raise it with
#: ``max_N=`` or ``allow_large=True``.
DEFAULT_MAX_N = 24
#: Largest ``N`` ever accepted (a 4 GB table): beyond it, even ``allow_large`` is refused.
HARD_MAX_N = 32


def check_N(N, *, max_N=None, allow_large=False, what="N") -> int:
    """Validate a string length ``N`` against the memory limit; return it as ``int``.

    The limit is ``max_N`` when given, else :data:`HARD_MAX_N` with ``allow_large=True``,
    else :data:`DEFAULT_MAX_N`; it never exceeds :data:`HARD_MAX_N`.
    """
    N = check_int(N, what, lo=0)
    limit = memory_limit(max_N, allow_large)
    if N > limit:
        raise_it = (f"; pass allow_large=True (CLI: --allow-large) or max_N= to raise it (hard cap "
                    f"{HARD_MAX_N})" if limit < HARD_MAX_N else ", the hard cap")
        reject(what, N, f"an integer <= {limit}, the memory limit (a table of 2^{N} strings)"
               + raise_it)
    return N


def memory_limit(max_N, allow_large) -> int:
    """The largest ``N`` accepted: ``max_N`` when given (at most :data:`HARD_MAX_N`), else
    :data:`HARD_MAX_N` with ``allow_large``, else :data:`DEFAULT_MAX_N`."""
    if max_N is None:
        return HARD_MAX_N if allow_large else DEFAULT_MAX_N
    return check_int(max_N, "max_N", lo=0, hi=HARD_MAX_N)


def bit_view(t: torch.Tensor, N: int, n: int) -> torch.Tensor:
    """View a length-``2^N`` tensor as ``(2^{N-1-n}, 2, 2^n)``: ``[:, b, :]`` has bit ``n`` = b."""
    return t.view(1 << (N - 1 - n), 2, 1 << n)


def hamming_weights(N: int, *, device=None, max_N=None, allow_large=False) -> torch.Tensor:
    r"""Hamming weights :math:`|x| = \sum_n \mathrm{bit}_n` of all strings, in index order.

    Args:
        N: string length (``0 <= N``, memory limit as in :func:`check_N`).
        device: torch device (default CPU).
    Returns:
        ``torch.uint8`` tensor of shape ``(2**N,)``.
    """
    N = check_N(N, max_N=max_N, allow_large=allow_large)
    return bit_counts(N, range(N), check_device(device))


def bit_counts(N, positions, dev) -> torch.Tensor:
    """Per string, the number of set bits among ``positions`` (``uint8``, length ``2^N``)."""
    w = torch.zeros(1 << N, dtype=torch.uint8, device=dev)
    for n in positions:
        bit_view(w, N, n)[:, 1, :] += 1
    return w


def all_strings(N: int, *, device=None, dtype=torch.uint8, max_N=None, allow_large=False) -> torch.Tensor:
    r"""All :math:`2^N` strings as a bit matrix, row ``x`` has ``[x, n]`` = bit ``n`` of ``x``.

    Args:
        N: string length (memory: :math:`N 2^N` elements; limit as in :func:`check_N`).
        device: torch device (default CPU).
        dtype: element type (default ``torch.uint8``).
    Returns:
        Tensor of shape ``(2**N, N)`` with :math:`x = \sum_n X[x, n]\, 2^n`.
    """
    N = check_N(N, max_N=max_N, allow_large=allow_large)
    dev = check_device(device)
    out = torch.zeros(1 << N, N, dtype=dtype, device=dev)
    for n in range(N):
        bit_view(out[:, n], N, n)[:, 1, :] = 1
    return out


def check_position(i, N, name) -> int:
    """A position ``0 <= i < N`` (an integer, not a bool); returned as ``int``."""
    i = check_int(i, name)
    if not 0 <= i < N:
        reject(name, i, f"a position in 0..{N - 1}: {i} is out of range for N = {N}")
    return i


def check_positions(S, N, what="S") -> list[int]:
    """A non-empty collection of distinct positions in ``0..N-1``; returned sorted."""
    if isinstance(S, (str, bytes)) or not hasattr(S, "__iter__"):
        reject(what, S, f"a collection of positions in 0..{N - 1}")
    out = [check_position(i, N, f"{what}[{k}]") for k, i in enumerate(S)]
    if not out:
        reject(what, S, "at least one position")
    if len(set(out)) != len(out):
        reject(what, S, "distinct positions")
    return sorted(out)


def resolve(name, params) -> tuple[str, dict]:
    """The function of :data:`FUNCTIONS` and its parameters that ``name`` (one of
    :data:`REGISTRY_NAMES`, case-insensitive) with ``params`` stands for; a parameter the
    function does not take is refused (a named entry takes none)."""
    name = check_choice(name.lower() if isinstance(name, str) else name, "name", REGISTRY_NAMES)
    if name in NAMED_FUNCTIONS:
        function, fixed = NAMED_FUNCTIONS[name]
        for key in sorted(params):
            reject(key, params[key], f"no such parameter ({name!r} is {function} at fixed "
                                     f"parameters and takes none)")
        return function, dict(fixed)
    for key in sorted(set(params) - set(FUNCTION_PARAMS[name])):
        takes = ", ".join(FUNCTION_PARAMS[name]) or "none"
        reject(key, params[key], f"no such parameter ({name!r} takes {takes})")
    return name, dict(params)


def smallest_N(name, **params) -> int:
    """The smallest string length on which the function is defined: 0 for ``constant`` and
    ``random``, one past its largest position for the functions of given positions, else 1."""
    function, params = resolve(name, params)
    if function in ("constant", "random"):
        return 0
    if function == "dictator":
        return check_int(_required(params, "i", function), "i", lo=0) + 1
    if function in ("sparse_parity", "sparse_majority"):
        return max(check_ints(_required(params, "S", function), "S", lo=0)) + 1
    return 1


def truth_table(name: str, N: int, *, device=None, max_N=None, allow_large=False, **params) -> torch.Tensor:
    r"""Truth table of a named Boolean function on :math:`\{0,1\}^N`.

    Args:
        name: one of :data:`REGISTRY_NAMES` (case-insensitive).
        N: string length, ``N >= 1`` (``N >= 0`` for ``constant`` and ``random``); limited
            to :data:`DEFAULT_MAX_N` unless ``max_N=`` or ``allow_large=True``.
        device: torch device (default CPU).
        **params: ``i`` (dictator), ``S`` (sparse parity / majority, distinct positions),
            ``value`` (constant, 0 or 1), ``seed`` (random, integer).
    Returns:
        ``torch.uint8`` tensor of 0/1 of shape ``(2**N,)``, entry ``x`` = :math:`f(x)`.
    """
    name, params = resolve(name, params)
    N = check_N(N, max_N=max_N, allow_large=allow_large)
    if N == 0 and name not in ("constant", "random"):
        reject("N", N, f"N >= 1 for {name!r}")
    dev = check_device(device)
    if name in PARITY_TYPE:
        return _parity(N, _parity_positions(name, N, params), dev)
    if name in MAJORITY_TYPE:
        S = _majority_positions(name, N, params)
        # strict: 2 |x_S| > |S| (no ties count as 1)
        return (bit_counts(N, S, dev).to(torch.int16) * 2 > len(S)).to(torch.uint8)
    if name == "constant":
        return torch.full((1 << N,), _constant_value(params), dtype=torch.uint8, device=dev)
    seed = check_seed(_required(params, "seed", name), "seed")
    gen = torch.Generator().manual_seed(seed)
    return torch.randint(0, 2, (1 << N,), generator=gen, dtype=torch.uint8).to(dev)


def labels(name: str, bits: torch.Tensor, **params) -> torch.Tensor:
    r"""Values of a named Boolean function on a bit matrix, computed from the bits (any ``N``
    for every function but ``random``, whose values are read from its table).

    MAJORITY (strict): :math:`1[|x| > N/2]`; FIRST: :math:`x_0`; PARITY: :math:`|x| \bmod 2`;
    the others as in :func:`truth_table`.

    Args: ``name`` and ``params`` as in :func:`truth_table`; ``bits`` a ``(B, N)`` integer 0/1
    tensor, ``N >= 1``.
    Returns: ``(B,)`` int64 tensor of 0/1.
    """
    name, params = resolve(name, params)
    check_int(bits.ndim, "bits.ndim", lo=2, hi=2)
    N = check_int(bits.shape[1], "bits.shape[1]", lo=1)
    if name in PARITY_TYPE:
        return bits[:, list(_parity_positions(name, N, params))].to(torch.int64).sum(-1) % 2
    if name in MAJORITY_TYPE:
        S = list(_majority_positions(name, N, params))
        return (2 * bits[:, S].to(torch.int64).sum(-1) > len(S)).to(torch.int64)
    if name == "constant":
        return torch.full((bits.shape[0],), _constant_value(params), dtype=torch.int64,
                          device=bits.device)
    index = (bits.to(torch.int64) << torch.arange(N, device=bits.device)).sum(-1)
    table = truth_table(name, N, device=bits.device, **params)
    return table[index].to(torch.int64)


def baseline_accuracy(name: str, N: int, **params) -> float:
    r"""Accuracy of the best constant function, :math:`\max(p, 1-p)` with :math:`p = P(f = 1)`,
    exact for any ``N``: :math:`p = 2^{-|S|}\sum_{w: g(w)=1}\binom{|S|}{w}`."""
    ones = sum(count for count, value, _ in _weight_classes(name, N, params) if value)
    p = ones / 2**N
    return max(p, 1.0 - p)


def exact_mean_sensitivity(name: str, N: int, **params) -> float:
    r"""Exact average sensitivity :math:`\mathrm{as}(f) = 2^{-N}\sum_x s(x, f)`, any ``N``.

    A string of weight :math:`w` on :math:`S` has
    :math:`s = (|S| - w)\,1[g(w+1) \ne g(w)] + w\,1[g(w-1) \ne g(w)]` (FIRST: :math:`s \equiv 1`).
    """
    return sum(count * s for count, _, s in _weight_classes(name, N, params)) / 2**N


def exact_profile_fraction(name: str, N: int, **params) -> list[float]:
    r"""Exact profile as fractions :math:`K_k / 2^N`, :math:`k = 0..N`, any ``N``:
    :math:`K_k` adds up the strings of every weight on :math:`S` whose sensitivity
    (:func:`exact_mean_sensitivity`) is :math:`k`."""
    K = [0] * (N + 1)
    for count, _, s in _weight_classes(name, N, params):
        K[s] += count
    return [k / 2**N for k in K]


def _weight_classes(name, N, params):
    """``[(number of strings, f, s)]`` for the weights ``w = 0..|S|`` on the positions ``S`` of
    the function's form ``f(x) = g(sum of x_n over S)``."""
    name, params = resolve(name, params)
    N = check_int(N, "N", lo=0)
    if N == 0 and name not in ("constant", "random"):
        reject("N", N, f"N >= 1 for {name!r}")
    if name in PARITY_TYPE:
        S = list(_parity_positions(name, N, params))
        g = lambda w: w % 2  # noqa: E731
    elif name in MAJORITY_TYPE:
        S = list(_majority_positions(name, N, params))
        g = lambda w: int(2 * w > len(S))  # noqa: E731
    elif name == "constant":
        S, value = [], _constant_value(params)
        g = lambda w: value  # noqa: E731
    else:
        reject("name", name, "a function of the form g(sum of x_n over S) (every one but "
                             "'random'): exact facts come from that form, not from a table")
    k = len(S)
    rest = 2 ** (N - k)
    return [(math.comb(k, w) * rest, g(w),
             (k - w) * (w < k and g(w + 1) != g(w)) + w * (w > 0 and g(w - 1) != g(w)))
            for w in range(k + 1)]


def _constant_value(params):
    value = params.get("value", 0)
    return int(check_choice(int(value) if isinstance(value, bool) else value, "value", (0, 1)))


def _majority_positions(name, N, params):
    """The positions whose strict majority the majority-type function ``name`` takes."""
    return range(N) if name == "majority" else check_positions(_required(params, "S", name), N)


def _required(params, key, name):
    if key not in params:
        reject(key, "<missing>", f"a value: {name!r} needs the parameter {key}")
    return params[key]


def _parity_positions(name, N, params):
    """The positions whose XOR the parity-type function ``name`` takes."""
    if name == "parity":
        return range(N)
    if name == "first":
        return [0]
    if name == "dictator":
        return [check_position(_required(params, "i", name), N, "i")]
    return check_positions(_required(params, "S", name), N)


def _parity(N, positions, dev):
    # XOR of the listed bits, one in-place pass per bit
    t = torch.zeros(1 << N, dtype=torch.uint8, device=dev)
    for n in positions:
        bit_view(t, N, n)[:, 1, :] ^= 1
    return t
