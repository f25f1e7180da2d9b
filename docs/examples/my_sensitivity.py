"""Example sensitivity code as it is often written, for the `verify.crossval` library API
(docs/crossval.md, tested by docs/examples/test_my_implementation.py).

Three conventions: `profile_01` takes a 0/1 truth table indexed by x = sum_n bit_n 2^n (ours);
`profile_pm1` takes a table of +1/-1 (0 -> +1, 1 -> -1); `normalised_average_sensitivity`
is written like public code: a Boolean function given as a callable on MSB-first bit strings
such as "0110", returning as(f)/n.
"""

import numpy as np


def profile_01(table):
    """K_0..K_N of a 0/1 table: K_k = #{x : exactly k neighbours x ^ e_n change the value}."""
    table = np.asarray(table)
    N = len(table).bit_length() - 1
    x = np.arange(len(table))
    s = sum((table != table[x ^ (1 << n)]).astype(int) for n in range(N))
    return np.bincount(np.atleast_1d(s), minlength=N + 1)


def profile_pm1(table):
    """The same profile of a table of +1/-1: f(x) f(x ^ e_n) = -1 where the value changes."""
    table = np.asarray(table)
    N = len(table).bit_length() - 1
    x = np.arange(len(table))
    s = sum((table * table[x ^ (1 << n)] < 0).astype(int) for n in range(N))
    return np.bincount(np.atleast_1d(s), minlength=N + 1)


def normalised_average_sensitivity(f, n):
    """as(f)/n for f: {'0','1'}^n -> {0,1}, strings most significant bit first."""
    total = 0
    for x in range(2**n):
        s = format(x, f"0{n}b")
        for i in range(n):
            flipped = s[:i] + ("1" if s[i] == "0" else "0") + s[i + 1:]
            total += f(s) != f(flipped)
    return total / 2**n / n
