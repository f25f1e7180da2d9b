r"""CPU fast path of :func:`numeric.boolean.profile`: bit-sliced counters in numpy.

The table is packed 64 strings per ``uint64`` word (``np.packbits``, little bit order, so
bit ``j`` of word ``w`` is string ``64 w + j``). Per chunk of :math:`2^c` strings:

- the flip indicator ``d_n`` of bit ``n`` is one packed plane: for ``n < 6`` a shift by
  :math:`2^n` inside the word and a mask; for ``6 <= n < c`` the XOR of the two halves of the
  ``(.., 2, 2^{n-6})`` word view; for ``n >= c`` the XOR with chunk ``j ^ 2^{n-c}``;
- the planes are summed into a binary counter (one plane per binary digit of
  :math:`s(x,f) \le N`) by a carry-save tree of full adders (5 word operations per plane);
- the histogram uses inclusion–exclusion over the digit planes: with
  :math:`c_v = \#\{x : \text{all digits of } v \text{ are set in } s(x)\}` (one AND and one
  popcount per ``v <= N``; digits sets with value above ``N`` never occur),
  :math:`K_k = \sum_{v \supseteq k} (-1)^{|v \setminus k|} c_v`.

Every operation touches 1/8 of the bytes of the uint8 table, which is how the profile stays
within a small factor of ``N`` plain passes over the table.
"""

from __future__ import annotations

import numpy as np

#: per bit n < 6 of the string index, the mask of the low member of each pair of neighbours
#: (strings x and x ^ 2^n) inside a 64-bit word of the bit-sliced table
NEIGHBOUR_MASKS = [np.uint64(m) for m in (
    0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x00FF00FF00FF00FF,
    0x0000FFFF0000FFFF, 0x00000000FFFFFFFF)]

MIN_N = 6  # at least one full word

# popcount per byte, for numpy < 2.0 (no np.bitwise_count)
_POP8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def popcount_sum(a: np.ndarray, u8: np.ndarray | None = None) -> int:
    """Number of set bits in a ``uint64`` array (``np.bitwise_count`` when numpy has it)."""
    if hasattr(np, "bitwise_count"):
        if u8 is None:
            return int(np.bitwise_count(a).sum(dtype=np.int64))
        np.bitwise_count(a, out=u8)
        return int(u8.sum(dtype=np.int64))
    return popcount_sum_lut(a)


def popcount_sum_lut(a: np.ndarray) -> int:
    """:func:`popcount_sum` by a byte table (numpy < 2.0 has no ``np.bitwise_count``)."""
    return int(_POP8[np.ascontiguousarray(a).view(np.uint8)].sum(dtype=np.int64))


class _Adder:
    """Carry-save accumulation of bit planes into a binary counter (≤ 2 pending per level)."""

    def __init__(self, W, levels, pool):
        self.W = W
        self.pending = [[] for _ in range(levels + 2)]
        self.pool = pool  # shared across chunks: fresh 128 KB arrays cost page faults

    def release(self):
        for pend in self.pending:
            self.pool += pend
            pend.clear()

    def buf(self):
        return self.pool.pop() if self.pool else np.empty(self.W, np.uint64)

    def add(self, d, level=0):
        pend = self.pending[level]
        if len(pend) < 2:
            pend.append(d)
            return
        a, b = pend
        u = self.buf()
        np.bitwise_xor(a, b, out=u)
        np.bitwise_and(a, b, out=a)
        np.bitwise_and(u, d, out=b)
        np.bitwise_or(a, b, out=a)   # carry = ab | (a^b)d
        np.bitwise_xor(u, d, out=u)  # sum = a^b^d
        pend[:] = [u]
        self.pool += [b, d]
        self.add(a, level + 1)

    def planes(self, p):
        out = []
        for level in range(len(self.pending)):
            pend = self.pending[level]
            if len(pend) == 2:
                a, b = pend
                c = self.buf()
                np.bitwise_and(a, b, out=c)
                a ^= b
                pend[:] = [a]
                self.add(c, level + 1)
            if level < p:
                out.append(pend[0] if pend else None)
        return out


def profile_counts(t: np.ndarray, N: int, chunk_log: int = 20) -> list[int]:
    """Profile ``K_0..K_N`` of a contiguous uint8 0/1 table of length ``2^N`` (``N >= 6``)."""
    packed = np.packbits(t, bitorder="little").view(np.uint64)
    c = max(MIN_N, min(N, chunk_log))
    W = 1 << (c - 6)
    words = packed.reshape(-1, W)
    p = N.bit_length()  # binary digits of s <= N
    cnt = [0] * (N + 1)  # c_v summed over chunks
    u8 = np.empty(W, np.uint8)
    pool: list = []
    conj = np.empty((N + 1, W), np.uint64)  # AND of the digit planes of v, per v

    def popcount(a):
        return popcount_sum(a, u8)

    for j in range(words.shape[0]):
        x = words[j]
        acc = _Adder(W, p, pool)
        for n in range(N):
            d = acc.buf()
            if n < 6:
                sh = np.uint64(1 << n)
                tmp = acc.buf()
                np.right_shift(x, sh, out=d)
                d ^= x
                d &= NEIGHBOUR_MASKS[n]
                np.left_shift(d, sh, out=tmp)
                d |= tmp
                acc.pool.append(tmp)
            elif n < c:
                b = 1 << (n - 6)
                v, dv = x.reshape(-1, 2, b), d.reshape(-1, 2, b)
                np.bitwise_xor(v[:, 0, :], v[:, 1, :], out=dv[:, 0, :])
                dv[:, 1, :] = dv[:, 0, :]
            else:
                np.bitwise_xor(x, words[j ^ (1 << (n - c))], out=d)
            acc.add(d)
        P = acc.planes(p)
        cnt[0] += W * 64
        A = {0: None}
        for v in range(1, N + 1):
            low = (v & -v).bit_length() - 1
            prev = A[v & (v - 1)]
            Pl = P[low]
            if Pl is None or (prev is not None and isinstance(prev, int)):
                A[v] = 0  # an empty digit plane: no string has these digits
                continue
            if prev is None:
                A[v] = Pl
            else:
                np.bitwise_and(prev, Pl, out=conj[v])
                A[v] = conj[v]
            cnt[v] += popcount(A[v])
        acc.release()
    # Möbius inversion over supersets v ⊇ k (as bit masks), v <= N
    K = []
    for k in range(N + 1):
        tot = 0
        for v in range(k, N + 1):
            if v & k == k:
                tot += (-1) ** bin(v ^ k).count("1") * cnt[v]
        K.append(tot)
    return K
