r"""Boolean functions on :math:`\{0,1\}^N` as truth tables (SPEC §1, §3).

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
"""

from __future__ import annotations

import torch

from numeric.validation import InputError

#: Default largest ``N`` for tables and profiles (16 MB per uint8 table); raise it with
#: ``max_N=`` or ``allow_large=True``.
DEFAULT_MAX_N = 24
#: Largest ``N`` ever accepted (a 4 GB table): beyond it, even ``allow_large`` is refused.
HARD_MAX_N = 32

FUNCTIONS = (
    "parity", "majority", "first", "dictator", "sparse_parity", "sparse_majority",
    "constant", "random",
)

# the parameters each function accepts (anything else is an error, not silently ignored)
_PARAMS = {
    "parity": (), "majority": (), "first": (), "dictator": ("i",),
    "sparse_parity": ("S",), "sparse_majority": ("S",), "constant": ("value",),
    "random": ("seed",),
}


def check_N(N, *, max_N=None, allow_large=False, what="N") -> int:
    """Validate a string length ``N`` against the memory limit; return it as ``int``.

    The limit is ``max_N`` when given, else :data:`HARD_MAX_N` with ``allow_large=True``,
    else :data:`DEFAULT_MAX_N`; it never exceeds :data:`HARD_MAX_N`.
    """
    if isinstance(N, bool):
        raise InputError(f"{what} = {N!r}: expected an integer >= 0, not a bool")
    if not isinstance(N, int):
        try:
            import numbers

            if not isinstance(N, numbers.Integral):
                raise TypeError
            N = int(N)
        except TypeError:
            raise InputError(f"{what} = {N!r}: expected an integer >= 0") from None
    if N < 0:
        raise InputError(f"{what} = {N}: expected an integer >= 0")
    limit = _limit(max_N, allow_large)
    if N > limit:
        raise InputError(
            f"{what} = {N} is above the memory limit N <= {limit} (a table of 2^{N} strings); "
            f"pass allow_large=True (CLI: --allow-large) or max_N= to raise it "
            f"(hard cap {HARD_MAX_N})"
        )
    return N


def _limit(max_N, allow_large) -> int:
    if max_N is None:
        return HARD_MAX_N if allow_large else DEFAULT_MAX_N
    if isinstance(max_N, bool) or not isinstance(max_N, int) or max_N < 0:
        raise InputError(f"max_N = {max_N!r}: expected an integer >= 0")
    if max_N > HARD_MAX_N:
        raise InputError(f"max_N = {max_N}: at most {HARD_MAX_N} (a 2^{HARD_MAX_N}-byte table)")
    return max_N


def _device(device):
    if device is None:
        return torch.device("cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise InputError(f"device {device!r}: {exc}") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise InputError(f"device {device!r}: CUDA is not available on this machine")
    return dev


def _bit_view(t: torch.Tensor, N: int, n: int) -> torch.Tensor:
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
    return _weights(N, range(N), _device(device))


def _weights(N, positions, dev):
    w = torch.zeros(1 << N, dtype=torch.uint8, device=dev)
    for n in positions:
        _bit_view(w, N, n)[:, 1, :] += 1
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
    dev = _device(device)
    out = torch.zeros(1 << N, N, dtype=dtype, device=dev)
    for n in range(N):
        _bit_view(out[:, n], N, n)[:, 1, :] = 1
    return out


def _check_positions(S, N, what="S") -> list[int]:
    if isinstance(S, (str, bytes)) or not hasattr(S, "__iter__"):
        raise InputError(f"{what} = {S!r}: expected a collection of positions in 0..{N - 1}")
    out = []
    for i in S:
        if isinstance(i, bool) or not isinstance(i, int):
            try:
                import numbers

                if not isinstance(i, numbers.Integral):
                    raise TypeError
                i = int(i)
            except TypeError:
                raise InputError(f"{what} = {S!r}: positions must be integers") from None
        if not 0 <= i < N:
            raise InputError(f"{what} = {S!r}: position {i} out of range 0..{N - 1} (N = {N})")
        out.append(i)
    if len(set(out)) != len(out):
        raise InputError(f"{what} = {S!r}: positions must be distinct")
    if not out:
        raise InputError(f"{what} = {S!r}: need at least one position")
    return sorted(out)


def truth_table(name: str, N: int, *, device=None, max_N=None, allow_large=False, **params) -> torch.Tensor:
    r"""Truth table of a named Boolean function on :math:`\{0,1\}^N`.

    Args:
        name: one of :data:`FUNCTIONS` (case-insensitive).
        N: string length, ``N >= 1`` (``N >= 0`` for ``constant`` and ``random``); limited
            to :data:`DEFAULT_MAX_N` unless ``max_N=`` or ``allow_large=True``.
        device: torch device (default CPU).
        **params: ``i`` (dictator), ``S`` (sparse parity / majority, distinct positions),
            ``value`` (constant, 0 or 1), ``seed`` (random, integer).
    Returns:
        ``torch.uint8`` tensor of 0/1 of shape ``(2**N,)``, entry ``x`` = :math:`f(x)`.
    """
    if not isinstance(name, str) or name.lower() not in _PARAMS:
        raise InputError(f"unknown function {name!r}; known: {', '.join(FUNCTIONS)}")
    name = name.lower()
    extra = set(params) - set(_PARAMS[name])
    if extra:
        allowed = ", ".join(_PARAMS[name]) or "none"
        raise InputError(f"{name}: unexpected parameter(s) {', '.join(sorted(extra))}; allowed: {allowed}")
    N = check_N(N, max_N=max_N, allow_large=allow_large)
    if N == 0 and name not in ("constant", "random"):
        raise InputError(f"{name}: N = 0; expected N >= 1")
    dev = _device(device)
    size = 1 << N
    if name == "parity":
        return _parity(N, range(N), dev)
    if name == "majority":
        # strict: 2|x| > N (no ties count as 1)
        return (_weights(N, range(N), dev).to(torch.int16) * 2 > N).to(torch.uint8)
    if name == "first":
        return _parity(N, [0], dev)
    if name == "dictator":
        if "i" not in params:
            raise InputError("dictator: missing parameter i (the position, 0..N-1)")
        (i,) = _check_positions([params["i"]], N, what="i")
        return _parity(N, [i], dev)
    if name in ("sparse_parity", "sparse_majority"):
        if "S" not in params:
            raise InputError(f"{name}: missing parameter S (distinct positions in 0..N-1)")
        S = _check_positions(params["S"], N)
        if name == "sparse_parity":
            return _parity(N, S, dev)
        return (_weights(N, S, dev).to(torch.int16) * 2 > len(S)).to(torch.uint8)
    if name == "constant":
        value = params.get("value", 0)
        if isinstance(value, bool):
            value = int(value)
        if value not in (0, 1):
            raise InputError(f"constant: value = {value!r}; expected 0 or 1")
        return torch.full((size,), int(value), dtype=torch.uint8, device=dev)
    # random
    if "seed" not in params:
        raise InputError("random: missing parameter seed (an integer)")
    seed = params["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"random: seed = {seed!r}; expected an integer >= 0")
    gen = torch.Generator().manual_seed(seed)
    return torch.randint(0, 2, (size,), generator=gen, dtype=torch.uint8).to(dev)


def _parity(N, positions, dev):
    # XOR of the listed bits, one in-place pass per bit
    t = torch.zeros(1 << N, dtype=torch.uint8, device=dev)
    for n in positions:
        _bit_view(t, N, n)[:, 1, :] ^= 1
    return t


__all__ = [
    "DEFAULT_MAX_N", "HARD_MAX_N", "FUNCTIONS", "truth_table", "all_strings",
    "hamming_weights", "check_N",
]
