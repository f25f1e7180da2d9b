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

Each function is one :class:`BooleanFunction` of :data:`BOOLEAN_FUNCTIONS`. Named entries
(:data:`numeric.vocabulary.NAMED_FUNCTIONS`) stand for one of these at fixed
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
from dataclasses import dataclass
from typing import Callable

import torch

from numeric import vocabulary
from numeric.validation import check_choice, check_device, check_int, check_ints, check_seed, reject

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


@dataclass(frozen=True)
class BooleanFunction:
    r"""One Boolean function of the registry: everything the engine computes about it by name.

    Every function of this module that depends on the function reads it from here (no code
    branches on its name), so a function is added by adding one entry to :data:`BOOLEAN_FUNCTIONS`
    (and its name to :data:`numeric.vocabulary.FUNCTIONS`).

    Attributes:
        name: the function's name in :data:`numeric.vocabulary.FUNCTIONS`.
        params: the parameters it takes; any other is refused.
        shortest: the smallest ``N`` for any parameters (0 where the empty string has a value).
        table: ``table(N, params, device)``: the ``uint8`` truth table over all ``2^N`` strings,
            ``N`` already checked.
        labels: ``labels(bits, params)``: the ``int64`` values on a ``(B, N)`` bit matrix.
        smallest_N: ``smallest_N(params)``: the smallest ``N`` for these parameters.
        form: ``form(N, params) -> (S, g)``: the positions ``S`` and the 0/1 function ``g`` of
            the weight on them with :math:`f(x) = g(\sum_{n \in S} x_n)`; the exact facts
            (baseline accuracy, average sensitivity, profile ``K_k``) follow from it for any
            ``N``. None where the function has no such form (``random``).
    """

    name: str
    params: tuple[str, ...]
    shortest: int
    table: Callable
    labels: Callable
    smallest_N: Callable
    form: Callable | None

    def check_params(self, params) -> dict:
        """``params`` as a dict; a parameter the function does not take is refused."""
        for key in sorted(set(params) - set(self.params)):
            takes = ", ".join(self.params) or "none"
            reject(key, params[key], f"no such parameter ({self.name!r} takes {takes})")
        return dict(params)

    def check_length(self, N) -> int:
        """``N`` at least :attr:`shortest` (already an integer >= 0)."""
        if N < self.shortest:
            reject("N", N, f"N >= {self.shortest} for {self.name!r}")
        return N


def _xor_of(name, positions, params=(), smallest=lambda params: 1) -> BooleanFunction:
    """The XOR of ``positions(N, params)``, computed with one in-place pass per bit."""
    return BooleanFunction(
        name=name, params=params, shortest=1,
        table=lambda N, p, dev: _parity(N, positions(N, p), dev),
        labels=lambda bits, p: bits[:, list(positions(bits.shape[1], p))].to(torch.int64).sum(-1) % 2,
        smallest_N=smallest, form=lambda N, p: (list(positions(N, p)), lambda w: w % 2))


def _strict_majority_of(name, positions, params=(), smallest=lambda params: 1) -> BooleanFunction:
    """The strict majority of ``positions(N, params)``: 1 iff ``2 |x_S| > |S|`` (ties are 0)."""
    def table(N, p, dev):
        S = positions(N, p)
        return (bit_counts(N, S, dev).to(torch.int16) * 2 > len(S)).to(torch.uint8)

    def labels(bits, p):
        S = list(positions(bits.shape[1], p))
        return (2 * bits[:, S].to(torch.int64).sum(-1) > len(S)).to(torch.int64)

    def form(N, p):
        S = list(positions(N, p))
        return S, lambda w: int(2 * w > len(S))

    return BooleanFunction(name=name, params=params, shortest=1, table=table, labels=labels,
                           smallest_N=smallest, form=form)


def _random_table(N, params, dev):
    # drawn on the CPU, so the table is the same on every device
    seed = check_seed(_required(params, "seed", "random"), "seed")
    gen = torch.Generator().manual_seed(seed)
    return torch.randint(0, 2, (1 << N,), generator=gen, dtype=torch.uint8).to(dev)


def _random_labels(bits, params):
    # a random function is its table (memory-limited N): read the values at the strings' indices
    N = bits.shape[1]
    index = (bits.to(torch.int64) << torch.arange(N, device=bits.device)).sum(-1)
    return truth_table("random", N, device=bits.device, **params)[index].to(torch.int64)


def _position_after(name, key):
    """``smallest_N`` of a function of the position ``key``: one past it."""
    return lambda params: check_int(_required(params, key, name), key, lo=0) + 1


def _positions_after(name):
    """``smallest_N`` of a function of the positions ``S``: one past the largest."""
    return lambda params: max(check_ints(_required(params, "S", name), "S", lo=0)) + 1


#: The Boolean functions the engine implements, keyed by :data:`numeric.vocabulary.FUNCTIONS`.
BOOLEAN_FUNCTIONS = {
    "parity": _xor_of("parity", lambda N, p: range(N)),
    "majority": _strict_majority_of("majority", lambda N, p: range(N)),
    "first": _xor_of("first", lambda N, p: [0]),
    "dictator": _xor_of("dictator", lambda N, p: [check_position(_required(p, "i", "dictator"), N, "i")],
                        params=("i",), smallest=_position_after("dictator", "i")),
    "sparse_parity": _xor_of("sparse_parity",
                             lambda N, p: check_positions(_required(p, "S", "sparse_parity"), N),
                             params=("S",), smallest=_positions_after("sparse_parity")),
    "sparse_majority": _strict_majority_of(
        "sparse_majority", lambda N, p: check_positions(_required(p, "S", "sparse_majority"), N),
        params=("S",), smallest=_positions_after("sparse_majority")),
    "constant": BooleanFunction(
        name="constant", params=("value",), shortest=0,
        table=lambda N, p, dev: torch.full((1 << N,), _constant_value(p), dtype=torch.uint8, device=dev),
        labels=lambda bits, p: torch.full((bits.shape[0],), _constant_value(p), dtype=torch.int64,
                                          device=bits.device),
        smallest_N=lambda params: 0, form=lambda N, p: ([], lambda w, value=_constant_value(p): value)),
    "random": BooleanFunction(
        name="random", params=("seed",), shortest=0, table=_random_table, labels=_random_labels,
        smallest_N=lambda params: 0, form=None),
}


def registry_names() -> tuple[str, ...]:
    """Every name the registry accepts: the functions of :data:`numeric.vocabulary.FUNCTIONS`
    and the named entries of :data:`numeric.vocabulary.NAMED_FUNCTIONS` (read at call time)."""
    return vocabulary.FUNCTIONS + tuple(vocabulary.NAMED_FUNCTIONS)


def function_entry(name, what="name") -> BooleanFunction:
    """The registry entry of a function of :data:`numeric.vocabulary.FUNCTIONS`; a name without
    one raises :class:`InputError` about ``what`` (never a fallback to another function)."""
    try:
        return BOOLEAN_FUNCTIONS[name]
    except (KeyError, TypeError):
        reject(what, name, f"one of {tuple(BOOLEAN_FUNCTIONS)}, the Boolean functions the engine "
               "implements")


def resolve(name, params) -> tuple[BooleanFunction, dict]:
    """The registry entry and the parameters that ``name`` (a function of
    :data:`numeric.vocabulary.FUNCTIONS` or a named entry, case-insensitive) with ``params``
    stands for; a parameter the function does not take is refused (a named entry takes none)."""
    name = check_choice(name.lower() if isinstance(name, str) else name, "name", registry_names())
    if name in vocabulary.NAMED_FUNCTIONS:
        function, fixed = vocabulary.NAMED_FUNCTIONS[name]
        for key in sorted(params):
            reject(key, params[key], f"no such parameter ({name!r} is {function} at fixed "
                                     f"parameters and takes none)")
        return function_entry(function), dict(fixed)
    entry = function_entry(name)
    return entry, entry.check_params(params)


def smallest_N(name, **params) -> int:
    """The smallest string length on which the function is defined: 0 for ``constant`` and
    ``random``, one past its largest position for the functions of given positions, else 1."""
    entry, params = resolve(name, params)
    return entry.smallest_N(params)


def truth_table(name: str, N: int, *, device=None, max_N=None, allow_large=False, **params) -> torch.Tensor:
    r"""Truth table of a named Boolean function on :math:`\{0,1\}^N`.

    Args:
        name: a function of :data:`numeric.vocabulary.FUNCTIONS` or a named entry
            (case-insensitive).
        N: string length, ``N >= 1`` (``N >= 0`` for ``constant`` and ``random``); limited
            to :data:`DEFAULT_MAX_N` unless ``max_N=`` or ``allow_large=True``.
        device: torch device (default CPU).
        **params: ``i`` (dictator), ``S`` (sparse parity / majority, distinct positions),
            ``value`` (constant, 0 or 1), ``seed`` (random, integer).
    Returns:
        ``torch.uint8`` tensor of 0/1 of shape ``(2**N,)``, entry ``x`` = :math:`f(x)`.
    """
    entry, params = resolve(name, params)
    N = entry.check_length(check_N(N, max_N=max_N, allow_large=allow_large))
    return entry.table(N, params, check_device(device))


def labels(name: str, bits: torch.Tensor, **params) -> torch.Tensor:
    r"""Values of a named Boolean function on a bit matrix, computed from the bits (any ``N``
    for every function but ``random``, whose values are read from its table).

    MAJORITY (strict): :math:`1[|x| > N/2]`; FIRST: :math:`x_0`; PARITY: :math:`|x| \bmod 2`;
    the others as in :func:`truth_table`.

    Args: ``name`` and ``params`` as in :func:`truth_table`; ``bits`` a ``(B, N)`` integer 0/1
    tensor, ``N >= 1``.
    Returns: ``(B,)`` int64 tensor of 0/1.
    """
    entry, params = resolve(name, params)
    check_int(bits.ndim, "bits.ndim", lo=2, hi=2)
    check_int(bits.shape[1], "bits.shape[1]", lo=1)
    return entry.labels(bits, params)


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
    entry, params = resolve(name, params)
    N = entry.check_length(check_int(N, "N", lo=0))
    if entry.form is None:
        with_form = tuple(n for n, e in BOOLEAN_FUNCTIONS.items() if e.form is not None)
        reject("name", name, f"one of {with_form}, the functions of the form g(sum of x_n over S): "
                             "exact facts come from that form, not from a table")
    S, g = entry.form(N, params)
    k = len(S)
    rest = 2 ** (N - k)
    return [(math.comb(k, w) * rest, g(w),
             (k - w) * (w < k and g(w + 1) != g(w)) + w * (w > 0 and g(w - 1) != g(w)))
            for w in range(k + 1)]


def _constant_value(params):
    value = params.get("value", 0)
    return int(check_choice(int(value) if isinstance(value, bool) else value, "value", (0, 1)))


def _required(params, key, name):
    if key not in params:
        reject(key, "<missing>", f"a value: {name!r} needs the parameter {key}")
    return params[key]


def _parity(N, positions, dev):
    # XOR of the listed bits, one in-place pass per bit
    t = torch.zeros(1 << N, dtype=torch.uint8, device=dev)
    for n in positions:
        bit_view(t, N, n)[:, 1, :] ^= 1
    return t
