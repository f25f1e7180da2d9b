"""Reading a truth table, and the profile it claims, from a ``.npy``, ``.json`` or text file, and
checking a claimed profile K_0..K_N.
"""

from __future__ import annotations

from pathlib import Path

from numeric.validation import InputError, check_choice, check_int, reject
from verify.crossval.claim_files import check_text_size, read_json
from verify.crossval.profile_functions import TABLE_VALUES


def read_table(path, N=None, values="01", allow_large=False):
    """A truth table from ``.npy``, ``.json`` (``{"table": [...], "profile": [...]}`` or a list) or
    text (0/1 separated by spaces or commas, or one run of digits); with ``values="pm1"`` the
    file holds +1/-1 (``+1 -> 0``, ``-1 -> 1``). Returns the 0/1 table (``uint8``) and the claimed
    profile of a JSON file (or ``None``)."""
    import numpy as np

    check_choice(values, "values", TABLE_VALUES)
    path = Path(path)
    if not path.is_file():
        raise InputError(f"file {str(path)!r} does not exist" if not path.exists()
                         else f"{str(path)!r} is not a file")
    claimed = None
    try:
        if path.suffix == ".npy":
            arr = np.load(path, allow_pickle=False)
            if not hasattr(arr, "ravel"):
                raise InputError(f"{path}: an .npz archive, not a single .npy array")
        elif path.suffix == ".json":
            data = read_json(path)
            if isinstance(data, dict):
                if "table" not in data:
                    raise InputError(f"{path}: expected a field 'table'")
                unknown = sorted(set(map(str, data)) - {"table", "profile"})
                if unknown:
                    raise InputError(f"{path}: unknown field(s) {', '.join(unknown)}; expected 'table' and "
                                     "optionally 'profile'")
                claimed = data.get("profile")
                data = data["table"]
            arr = np.asarray(data)
        else:
            check_text_size(path)
            text = path.read_text(encoding="utf-8")
            tokens = text.replace(",", " ").split()
            if len(tokens) == 1 and values == "01":  # a single run of digits: "0110..."
                tokens = list(tokens[0])
            arr = np.array([int(t) for t in tokens])
    except InputError:
        raise
    except Exception as exc:
        raise InputError(f"{path}: cannot read a truth table ({type(exc).__name__}: {exc})") from None
    if arr.ndim != 1:
        raise InputError(f"{path}: a table of shape {arr.shape}; expected one dimension, entry x at "
                         "index x (a 2-D table is not flattened)")
    allowed = (0, 1) if values == "01" else (1, -1)
    if arr.dtype.kind not in "biuf" or arr.size == 0 or not np.all((arr == allowed[0]) | (arr == allowed[1])):
        other = " (it holds only +1 and -1: pass --values pm1 / values='pm1')" if (
            values == "01" and arr.dtype.kind in "iuf" and arr.size and np.all((arr == 1) | (arr == -1))) else ""
        raise InputError(f"{path}: a truth table holds only {allowed[0]} and {allowed[1]}{other}")
    n = int(arr.size).bit_length() - 1
    if 2**n != arr.size:
        raise InputError(f"{path}: table length {arr.size} is not a power of two")
    limit = 16  # every memory limit is at least 16: a small table fits without importing torch
    if n > limit:
        from numeric.boolean import memory_limit

        limit = memory_limit(None, allow_large)
    if n > limit:
        more = "; pass --allow-large (allow_large=True) to go up to 32" if not allow_large else ""
        raise InputError(f"{path}: table of 2^{n} entries; expected N <= {limit}, the memory limit{more}")
    if N is not None and n != check_int(N, "N", lo=0):
        raise InputError(f"{path}: table has 2^{n} entries but N = {N}")
    if claimed is not None:
        claimed = check_claimed(claimed, n, f"{path}: profile")
    bits = arr == -1 if values == "pm1" else arr == 1
    return bits.astype(np.uint8), claimed


def check_claimed(claimed, N, name="claimed"):
    """A claimed profile K_0..K_N: ``N + 1`` non-negative integers."""
    expected = f"a list of {N + 1} non-negative integers K_0..K_{N}"
    if not isinstance(claimed, (list, tuple)) or len(claimed) != N + 1:
        reject(name, claimed, expected)
    if not all(isinstance(k, int) and not isinstance(k, bool) and k >= 0 for k in claimed):
        reject(name, claimed, expected)
    return [int(k) for k in claimed]
