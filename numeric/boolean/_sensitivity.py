r"""Exact sensitivity profiles of truth tables (docs/claims.md, SG-1), CPU and CUDA.

For :math:`f:\{0,1\}^N\to\{0,1\}` given as a truth table (string index
:math:`x=\sum_n \mathrm{bit}_n 2^n`):

.. math::

    s(x,f) = \#\{n : f(x) \ne f(x\oplus e_n)\},\qquad
    K_k = \#\{x : s(x,f) = k\},\qquad
    \mathrm{as}(f) = 2^{-N}\sum_x s(x,f) = 2^{-N}\sum_k k K_k .

Algorithm (XOR-indexed bit flips, no index tensors). The partner of ``x`` across bit ``n``
is ``x ^ (1 << n)``; viewing the table as ``(2^{N-1-n}, 2, 2^n)`` puts every pair in the two
halves of the middle axis, so ``d_n = t[:,0,:] ^ t[:,1,:]`` is the flip indicator of bit
``n`` and ``s = Σ_n d_n`` (added to both members of each pair). To stay near the floor of
``N`` passes over the table, the work is done per cache-sized chunk of ``2^c`` strings:

- bits ``n < 3`` pair bytes inside one 64-bit word: the partner word is a byte swap by
  shifts and masks (SWAR), and ``s += w ^ swap(w)`` updates 8 strings per word operation;
- bits ``3 <= n < c`` pair words inside the chunk (the reshape trick on the word view);
- bits ``n >= c`` pair the chunk with chunk ``j ^ (1 << (n - c))``: one contiguous XOR.

The per-string counts (``uint8``, ``N <= 255``) of a chunk are histogrammed and dropped, so
the profile needs the table plus ``O(2^c)`` memory: ``N = 28`` takes 256 MB.
"""

from __future__ import annotations

from fractions import Fraction

import torch

from numeric.boolean import _bitsliced as bitsliced
from numeric.boolean._functions import bit_counts, bit_view, memory_limit
from numeric.validation import check_choice, check_int, check_tensor_storage, reject

_WORD = 3  # log2(bytes per int64 word)
#: per bit n < 3 of the string index, the byte shift and mask of the low member of each pair of
#: neighbours (strings x and x ^ 2^n) inside an int64 word of the byte table
NEIGHBOUR_SWAPS = {
    0: (8, 0x00FF00FF00FF00FF),
    1: (16, 0x0000FFFF0000FFFF),
    2: (32, 0x00000000FFFFFFFF),
}


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def as_table(table, *, max_N=None, allow_large=False, what="table") -> tuple[torch.Tensor, int]:
    """Validate a truth table and return it as a contiguous ``uint8`` tensor with its ``N``.

    Accepts a torch tensor, numpy array or sequence of 0/1 values (bool, integer or float
    dtype) of length ``2^N``. Raises :class:`InputError` for other shapes, lengths, values
    (NaN, 2, -1, 0.5, ...) or ``N`` above the memory limit (see
    :func:`numeric.boolean.check_N`).
    """
    if not isinstance(table, torch.Tensor):
        try:
            import numpy as np

            arr = np.asarray(table)
            if arr.dtype == object or arr.dtype.kind not in "biuf":
                raise TypeError(f"dtype {arr.dtype}")
            table = torch.from_numpy(np.ascontiguousarray(arr))
        except (TypeError, ValueError) as exc:
            reject(what, f"<{type(table).__name__}: {exc}>", "a 1-D array of 0/1 values")
    check_tensor_storage(table, what)
    if table.dim() != 1:
        reject(what, f"<tensor of shape {tuple(table.shape)}>", "a 1-D truth table of length 2^N")
    size = table.numel()
    if size == 0 or size & (size - 1):
        reject(what, f"<table of length {size}>",
               f"2^N entries (length {size} is not a power of two)")
    N = size.bit_length() - 1
    limit = memory_limit(max_N, allow_large)
    if N > limit:
        reject(what, f"<table with N = {N}>", f"N <= {limit}, the memory limit; pass "
               "allow_large=True (CLI: --allow-large) or max_N= to raise it")
    if table.dtype == torch.bool:
        return table.to(torch.uint8).contiguous(), N
    if table.is_complex():
        reject(what, "<table of complex values>", "only 0 and 1")
    if table.dtype == torch.uint8:
        # one reduction, no temporary: a 2^N bool mask would cost more than a profile pass
        if int(table.max()) <= 1:
            return table.contiguous(), N
        bad = table > 1
    elif table.dtype.is_floating_point:
        bad = ~((table == 0) | (table == 1))  # NaN compares unequal to both
    else:
        bad = (table < 0) | (table > 1)
    if bool(bad.any()):
        idx = int(bad.nonzero()[0, 0])
        reject(what, f"<table whose entry {idx} is {table[idx].item()!r}>", "only 0 and 1")
    return table.to(torch.uint8).contiguous(), N


def _default_chunk_log(dev) -> int:
    # CPU: two 128 KB arrays per chunk stay in L2; CUDA: large launches, few chunks.
    return 26 if dev.type == "cuda" else 17


def _chunks(t: torch.Tensor, N: int, chunk_log: int | None):
    """Yield ``(j, s_j)``: per-string sensitivity (uint8) of chunk ``j`` of ``2^c`` strings."""
    if chunk_log is not None:
        check_int(chunk_log, "chunk_log", lo=0)
    c = min(N, _default_chunk_log(t.device) if chunk_log is None else chunk_log)
    C = 1 << c
    tc = t.view(1 << (N - c), C)
    for j in range(tc.shape[0]):
        x = tc[j]
        s = torch.zeros(C, dtype=torch.uint8, device=t.device)
        if c >= _WORD:
            xw, sw = x.view(torch.int64), s.view(torch.int64)
            for n in range(_WORD):
                sh, m = NEIGHBOUR_SWAPS[n]
                partner = ((xw >> sh) & m) | ((xw << sh) & _signed(~m & ((1 << 64) - 1)))
                sw += xw ^ partner  # per-byte values <= N < 256: no carry between bytes
            for n in range(_WORD, c):
                v = bit_view(xw, c - _WORD, n - _WORD)
                bit_view(sw, c - _WORD, n - _WORD).add_((v[:, 0, :] ^ v[:, 1, :]).unsqueeze(1))
        else:
            for n in range(c):
                v = bit_view(x, c, n)
                bit_view(s, c, n).add_((v[:, 0, :] ^ v[:, 1, :]).unsqueeze(1))
        buf = torch.empty_like(x)
        for n in range(c, N):
            torch.bitwise_xor(x, tc[j ^ (1 << (n - c))], out=buf)
            s += buf
        yield j, s


def sensitivity(table, *, max_N=None, allow_large=False, chunk_log=None) -> torch.Tensor:
    r"""Per-string sensitivity :math:`s(x,f) = \#\{n : f(x)\ne f(x\oplus e_n)\}`.

    Args:
        table: truth table of 0/1, length :math:`2^N` (see :func:`as_table`).
        max_N, allow_large: memory limit on ``N`` (default :data:`numeric.boolean._functions.DEFAULT_MAX_N`).
        chunk_log: log2 of the chunk size in strings (tuning; default by device).
    Returns:
        ``torch.uint8`` tensor of shape ``(2**N,)`` on the table's device.
    """
    t, N = as_table(table, max_N=max_N, allow_large=allow_large)
    out = torch.empty_like(t)
    C = None
    for j, s in _chunks(t, N, chunk_log):
        C = s.numel()
        out[j * C:(j + 1) * C] = s
    return out


def profile(table, *, max_N=None, allow_large=False, chunk_log=None, method="auto") -> torch.Tensor:
    r"""Sensitivity profile :math:`K_k = \#\{x\in\{0,1\}^N : s(x,f) = k\}`, :math:`k=0..N`.

    Args:
        table: truth table of 0/1 (torch/numpy/sequence), length :math:`2^N`, string index
            :math:`x = \sum_n \mathrm{bit}_n 2^n`.
        max_N, allow_large: memory limit on ``N`` (default ``N <= 24``; ``allow_large=True``
            raises it to 32).
        chunk_log: log2 of the chunk size in strings (tuning; default by device and method).
        method: ``"bitsliced"`` (CPU only, ``N >= 6``: packed bit planes and carry-save
            counters, see :mod:`numeric.boolean`), ``"bytes"`` (one byte per string, any
            device) or ``"auto"`` (bitsliced on the CPU when ``N >= 6``, else bytes). Both
            give identical counts; the tests check one against the other.
    Returns:
        ``torch.int64`` tensor of shape ``(N+1,)`` on the table's device; it sums to
        :math:`2^N` and :math:`\sum_k k K_k = 2^N \mathrm{as}(f)`.
    """
    t, N = as_table(table, max_N=max_N, allow_large=allow_large)
    check_choice(method, "method", ("auto", "bitsliced", "bytes"))
    if method == "bitsliced" and (t.device.type != "cpu" or N < bitsliced.MIN_N):
        reject("method", method, f"'auto' or 'bytes' for a table with N = {N} on "
               f"{t.device.type}: 'bitsliced' needs a CPU table with N >= {bitsliced.MIN_N}")
    if chunk_log is not None:
        check_int(chunk_log, "chunk_log", lo=0)
    if method == "bitsliced" or (method == "auto" and t.device.type == "cpu" and N >= bitsliced.MIN_N):
        kw = {} if chunk_log is None else {"chunk_log": chunk_log}
        return torch.tensor(bitsliced.profile_counts(t.numpy(), N, **kw), dtype=torch.int64)
    K = torch.zeros(N + 1, dtype=torch.int64, device=t.device)
    for _, s in _chunks(t, N, chunk_log):
        K += torch.bincount(s, minlength=N + 1)
    return K


def average_sensitivity(table, *, max_N=None, allow_large=False) -> float:
    r""":math:`\mathrm{as}(f) = 2^{-N}\sum_x s(x,f)` (a float; exact up to rounding of one
    division by a power of two). Use :func:`to_normalized` for the ``as(f)/N`` convention."""
    K = profile(table, max_N=max_N, allow_large=allow_large).cpu()
    N = K.numel() - 1
    return float(Fraction(int((torch.arange(N + 1) * K).sum()), 1 << N))


def min_sensitivity(table, *, max_N=None, allow_large=False) -> int:
    r""":math:`\min_x s(x,f)`; positive iff :math:`K_0 = 0`."""
    K = profile(table, max_N=max_N, allow_large=allow_large).cpu()
    return int(K.nonzero()[0, 0])


def max_sensitivity(table, *, max_N=None, allow_large=False) -> int:
    r""":math:`s(f) = \max_x s(x,f)`."""
    K = profile(table, max_N=max_N, allow_large=allow_large).cpu()
    return int(K.nonzero()[-1, 0])


# ---------------------------------------------------------------------------------------
# Fourier side: fast Walsh-Hadamard transform, as(f) = Σ_S |S| f̂(S)^2
# ---------------------------------------------------------------------------------------

def walsh_hadamard(table, *, max_N=None, allow_large=False) -> torch.Tensor:
    r"""Unnormalised Walsh–Hadamard transform of :math:`F = (-1)^{f}` (the ±1 form), exact.

    .. math:: W(S) = \sum_{x} (-1)^{f(x) + S\cdot x} = 2^N \hat F(S),

    with ``S`` indexed like strings (bit ``n`` of the index = :math:`n \in S`). In-place
    butterflies on the ``(2^{N-1-n}, 2, 2^n)`` view, :math:`O(N 2^N)`, in ``int64``
    (exact: :math:`|W(S)| \le 2^N`).

    Returns:
        ``torch.int64`` tensor of shape ``(2**N,)``.
    """
    t, N = as_table(table, max_N=max_N, allow_large=allow_large)
    W = 1 - 2 * t.to(torch.int64)
    for n in range(N):
        v = bit_view(W, N, n)
        lo, hi = v[:, 0, :], v[:, 1, :]
        diff = lo - hi
        lo += hi
        hi.copy_(diff)
    return W


def fourier_coefficients(table, *, max_N=None, allow_large=False) -> torch.Tensor:
    r""":math:`\hat F(S) = 2^{-N} \sum_x F(x) (-1)^{S\cdot x}` for :math:`F = (-1)^f = 1 - 2f`
    (``float64``; exact, since the division is by a power of two)."""
    W = walsh_hadamard(table, max_N=max_N, allow_large=allow_large)
    N = W.numel().bit_length() - 1
    return W.to(torch.float64) / float(1 << N)


def fourier_average_sensitivity(table, *, exact=False, max_N=None, allow_large=False):
    r"""Average sensitivity from the spectrum: :math:`\mathrm{as}(f) = \sum_S |S|\,\hat F(S)^2`.

    Computed exactly as :math:`4^{-N}\sum_S |S|\, W(S)^2` in ``int64`` (no overflow for
    :math:`N \le 29`: :math:`\sum_S W(S)^2 = 4^N` by Parseval).

    Returns:
        ``fractions.Fraction`` when ``exact=True``, else ``float``.
    """
    W = walsh_hadamard(table, max_N=max_N, allow_large=allow_large)
    N = W.numel().bit_length() - 1
    if N > 29:
        reject("table", f"<table with N = {N}>", "N <= 29 (the int64 sums of "
               "fourier_average_sensitivity overflow above)")
    w = bit_counts(N, range(N), W.device).to(torch.int64)
    total = int((w * W * W).sum())
    val = Fraction(total, 1 << (2 * N))
    return val if exact else float(val)


def character_matrix_average_sensitivity(table, *, max_N=12) -> float:
    r"""Reference :math:`O(4^N)` method found in public code: build the character matrix
    :math:`H_{S,x} = (-1)^{|S \wedge x|}`, take :math:`\hat F = 2^{-N} H F` and
    :math:`\sum_S |S| \hat F(S)^2` in float64. For cross-checks and the benchmark only
    (``N <= 12`` by default: a :math:`2^N \times 2^N` matrix)."""
    t, N = as_table(table, max_N=max_N)
    idx = torch.arange(1 << N, device=t.device)
    w = bit_counts(N, range(N), t.device).to(torch.int64)
    H = 1.0 - 2.0 * (w[idx[:, None] & idx[None, :]] & 1).to(torch.float64)
    F = 1.0 - 2.0 * t.to(torch.float64)
    fhat = H @ F / float(1 << N)
    return float((w.to(torch.float64) * fhat * fhat).sum())


# ---------------------------------------------------------------------------------------
# Adapters for conventions found in public code
# ---------------------------------------------------------------------------------------

def to_normalized(as_f, N: int) -> float:
    r"""Average sensitivity in the per-bit convention :math:`\mathrm{as}(f)/N \in [0, 1]`
    (some codes report this; this suite, docs/claims.md, uses the un-normalised
    :math:`\mathrm{as}(f)`)."""
    N = check_int(N, "N", lo=1)
    return as_f / N


def from_normalized(as_over_N, N: int) -> float:
    r"""Inverse of :func:`to_normalized`: :math:`\mathrm{as}(f) = N \cdot (\mathrm{as}(f)/N)`."""
    N = check_int(N, "N", lo=1)
    return as_over_N * N


def to_pm1(table) -> torch.Tensor:
    r"""Values in ±1 form :math:`F = (-1)^{f} = 1 - 2f` (0 ↦ +1, 1 ↦ −1), the convention of
    the Fourier identity. (Codes using :math:`2f-1` differ by a global sign, which leaves
    :math:`\hat F(S)^2`, the profile and :math:`\mathrm{as}(f)` unchanged.)"""
    t, _ = as_table(table, max_N=_HARD)
    return 1 - 2 * t.to(torch.int8)


def from_pm1(values) -> torch.Tensor:
    r"""Truth table of 0/1 from ±1 values with :math:`f = (1 - F)/2` (+1 ↦ 0, −1 ↦ 1)."""
    if not isinstance(values, torch.Tensor):
        import numpy as np

        try:
            values = torch.from_numpy(np.ascontiguousarray(np.asarray(values, dtype=np.float64)))
        except (TypeError, ValueError) as exc:
            reject("values", f"<{type(values).__name__}: {exc}>", "±1 numbers")
    bad = ~((values == 1) | (values == -1))
    if bool(bad.any()):
        idx = int(bad.reshape(-1).nonzero()[0, 0])
        reject("values", f"<values whose entry {idx} is {values.reshape(-1)[idx].item()!r}>",
               "only +1 and -1")
    return ((1 - values) // 2).to(torch.uint8) if not values.dtype.is_floating_point else ((1 - values) / 2).to(torch.uint8)


def from_msb_first(table) -> torch.Tensor:
    r"""Reorder a table listed with position 0 as the *most* significant bit (the order of
    ``itertools.product([0, 1], repeat=N)``) into this suite's order (position 0 least
    significant). The map is the bit reversal of the index, an involution, so it also
    converts back (:func:`to_msb_first` is the same function)."""
    t, N = as_table(table, max_N=_HARD)
    if N < 2:
        return t.clone()
    return t.view([2] * N).permute(*reversed(range(N))).contiguous().view(-1)


to_msb_first = from_msb_first

_HARD = 32
