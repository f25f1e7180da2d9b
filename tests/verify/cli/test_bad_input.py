"""Every command against bad input: one table, one harness.

Each row is ``(argv, files)``: the command line (``{in}`` is a folder holding ``files``,
``{out}`` an empty folder for outputs) must exit 2 with at most two lines on stderr, the first
starting ``boolverify: error:``, no traceback, nothing left in ``{out}`` or the working
folder, and it must return (a hang is stopped by an alarm and fails the row). The rows of
``crossval`` are in tests/verify/crossval/test_crossval_bad_input.py; signals are at the end of this file.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from verify.experiments.records import SWEEP_SCHEMA
from verify.report import runner as check_runner
from tests.helpers import assert_all_exit, assert_next_run_removes_folder, children_of

HANG_LIMIT_S = 120      # far above any row's run time; only a hang reaches it

DEEP = "[" * 100_000 + "]" * 100_000
SWEEP_INTS = json.dumps({"schema": SWEEP_SCHEMA, "cells": [1, 2]})
SWEEP_PARTIAL = json.dumps({"schema": SWEEP_SCHEMA, "cells": [{"key": {"d": 100, "m": 4}}]})
SWEEP_OTHER = json.dumps({"schema": "something-else", "cells": []})


def _sweep_file(*edits):
    """A results file of one saved cell (d = 100, m = 4, 2 seeds), changed by ``edits``:
    each ``(field, value)`` sets a field of the cell, ``("copy", field, value)`` adds a
    second copy of the cell with that field changed."""
    key = {"kind": "step", "d": 100, "m": 4, "n_seeds": 2, "seed_offset": 0, "c": 10.0, "eps": 0.01,
           "dtype": "torch.float64"}
    cell = {"key": key, "d": 100, "m": 4, "n_seeds": 2, "support": [0, 1], "lr": 1.0, "successes": 1,
            "successes_limit": 1, "rate": 0.5, "rate_limit": 0.5, "assignment_matches": 1,
            "median_loss": 0.1, "seconds": 0.1, "success_bits": "10"}
    cells = [cell]
    for e in edits:
        if e[0] == "copy":
            cells.append({**cell, e[1]: e[2]})
        else:
            cell[e[0]] = e[1]
    return json.dumps({"schema": SWEEP_SCHEMA, "cells": cells})
MUTANTS_PARTIAL = json.dumps({"mutants": [], "caught": 0})
MUTANTS_WHOLE = json.dumps({"mutants": [], "caught": 0, "total": 0, "score": 1.0, "survivors": []})
MUTANTS_WRONG_TYPES = json.dumps({"mutants": 3, "caught": "all", "total": None, "score": "1",
                                  "survivors": {}})
MUTANTS_NAN_SCORE = MUTANTS_WHOLE.replace("1.0", "NaN")

CHECK = [
    (["check", "--profile", "huge"], {}),
    (["check", "--claim", "SX-99"], {}),
    (["check", "--claim", "sx-1"], {}),
    (["check", "--claim", ""], {}),
    (["check", "--seed", "-1"], {}),
    (["check", "--seed", "abc"], {}),
    (["check", "--seed", "1.5e0"], {}),
    (["check", "--seed", str(10**30)], {}),
    (["check", "--jobs", "0"], {}),
    (["check", "--jobs", "-2"], {}),
    (["check", "--jobs", "x"], {}),
    (["check", "--json", "{out}"], {}),
    (["check", "--json", "/proc/r.json"], {}),
    (["check", "--json", "{out}/no/such/r.json"], {}),
    (["check", "--markdown", "{out}"], {}),
    (["check", "--markdown", "/sys/r.md"], {}),
    (["check", "--mutants", "{in}/missing.json"], {}),
    (["check", "--mutants", "{in}/m.json"], {"m.json": "not json"}),
    (["check", "--mutants", "{in}/m.json"], {"m.json": DEEP}),
    (["check", "--mutants", "{in}/m.json"], {"m.json": MUTANTS_PARTIAL}),
    (["check", "--mutants", "{in}/m.json"], {"m.json": b"\xff\xfe\x00garbage"}),
    (["check", "--mutants", "{in}"], {}),
    (["check", "extra-argument"], {}),
    (["check", "--no-such-option"], {}),
]

DERIVE = [
    (["derive", "--out", "{out}/d.txt", "--no-checks"], {}),
    (["derive", "--out", "{out}", "--no-checks"], {}),
    (["derive", "--out", "/proc/d.tex", "--no-checks"], {}),
    (["derive", "--out", "{out}/no/such/d.tex", "--no-checks"], {}),
    (["derive", "--out"], {}),
    (["derive", "extra"], {}),
]

MUTANTS = [
    (["mutants", "--jobs", "0"], {}),
    (["mutants", "--jobs", "1000"], {}),
    (["mutants", "--jobs", "nan"], {}),
    (["mutants", "--only", "no-such-mutant"], {}),
    (["mutants", "--json", "/proc/m.json", "--list"], {}),
    (["mutants", "--json", "{out}", "--list"], {}),
    (["mutants", "--only"], {}),
]

RUNS = [
    (["runs"], {}),
    (["runs", "no-such-run", "--out-dir", "{out}/docs"], {}),
    (["runs", "sg5", "no-such-run", "--out-dir", "{out}/docs"], {}),
    (["runs", "SG5", "--quick", "--out-dir", "{out}/docs"], {}),
    (["runs", "sg5", "--quick", "--threads", "0", "--out-dir", "{out}/docs"], {}),
    (["runs", "sg5", "--quick", "--threads", "x", "--out-dir", "{out}/docs"], {}),
    (["runs", "sg5", "--quick", "--out-dir", "{in}/f"], {"f": "a file, not a folder"}),
    (["runs", "sg5", "--quick", "--out-dir", ""], {}),
    (["runs", "--no-such-option"], {}),
    (["reproduce"], {}),
    (["reproduce", "no-such-run", "--out-dir", "{out}/s"], {}),
    (["reproduce", "figures", "--out-dir", "{out}/s"], {}),
    (["reproduce", "sg2", "--quick", "--out-dir", "{out}/s"], {}),  # no committed docs/data here
    (["reproduce", "sg2", "--quick", "--committed", "{in}", "--out-dir", "{out}/s"], {"f": "no data/ folder"}),
    (["reproduce", "sg2", "--quick", "--threads", "0", "--out-dir", "{out}/s"], {}),
]

XOR_STEP = [[*(["xor", "step"]), *args] for args in (
    ["--m", "4"],
    ["--d", "100"],
    ["--d", "abc", "--m", "4"],
    ["--d", "1", "--m", "4"],
    ["--d", "0", "--m", "4"],
    ["--d", "-5", "--m", "4"],
    ["--d", "1e100", "--m", "4"],
    ["--d", "100000000000", "--m", "4"],
    ["--d", "100000", "--m", "100000000"],
    ["--d", "100", "--m", "0"],
    ["--d", "100", "--m", "-1"],
    ["--d", "100", "--m", "4", "--eps", "0"],
    ["--d", "100", "--m", "4", "--eps", "0.7"],
    ["--d", "100", "--m", "4", "--eps", "nan"],
    ["--d", "100", "--m", "4", "--eps", "inf"],
    ["--d", "100", "--m", "4", "--eps", "-1"],
    ["--d", "100", "--m", "4", "--c", "0"],
    ["--d", "100", "--m", "4", "--c", "-1"],
    ["--d", "100", "--m", "4", "--c", "nan"],
    ["--d", "100", "--m", "4", "--c", "inf"],
    ["--d", "100", "--m", "4", "--c", "1e308"],
    ["--d", "100", "--m", "4", "--support", "-1,2"],
    ["--d", "100", "--m", "4", "--support", "1"],
    ["--d", "100", "--m", "4", "--support", "1,1"],
    ["--d", "100", "--m", "4", "--support", "1,2,3"],
    ["--d", "100", "--m", "4", "--support", "a,b"],
    ["--d", "100", "--m", "4", "--support", "0,100"],
    ["--d", "100", "--m", "4", "--attention", "tanh"],
    ["--d", "100", "--m", "4", "--seed", "-1"],
    ["--d", "100", "--m", "4", "--seed", "x"],
    ["--d", "100", "--m", "4", "--out", "/proc/x.json"],
    ["--d", "100", "--m", "4", "--json", "{out}/no/such/x.json"],
    ["--d", "100", "--m", "4", "--json", "{out}"],
    ["--d", "100", "--m", "4", "--figure", "{out}/a.gif"],
    ["--d", "100", "--m", "4", "--figure", "{out}/a"],
    ["--d", "100", "--m", "4", "--figure", "/proc/a.png"],
)]

XOR_SWEEP = [[*(["xor", "sweep"]), *args] for args in (
    ["--d", "", "--m", "4"],
    ["--d", "abc", "--m", "4"],
    ["--d", "1", "--m", "4"],
    ["--d", "1e400", "--m", "4"],
    ["--d", "1e100", "--m", "4"],
    ["--d", "1e10", "--m", "1"],
    ["--d", "100", "--m", "0"],
    ["--d", "100", "--m", "x"],
    ["--d", "100", "--m", "4", "--seeds", "0"],
    ["--d", "100", "--m", "4", "--seeds", "-3"],
    ["--d", "100", "--m", "4", "--seeds-for-d", "bad"],
    ["--d", "100", "--m", "4", "--seeds-for-d", "100:0"],
    ["--d", "100", "--m", "4", "--device", "tpu"],
    ["--d", "100", "--m", "4", "--device", "cuda:99"],
    ["--d", "100", "--m", "4", "--eps", "1"],
    ["--d", "100", "--m", "4", "--c", "1e308"],
    ["--d", "100", "--m", "4", "--out", "/proc/s.json"],
    ["--d", "100", "--m", "4", "--out", "{out}/no/such/s.json"],
    ["--d", "100", "--m", "4", "--figure", "{out}/s.gif"],
    ["--d", "100", "--m", "4", "--workers", "0"],
    ["--d", "100", "--m", "4", "--workers", "1000"],
    ["--d", "100", "--m", "4", "--scheduler", "no port"],
)]

XOR_SAMPLES = [[*(["xor", "samples"]), *args] for args in (
    ["--d", "100", "--n", "1e100"],
    ["--d", "100", "--n", "0"],
    ["--d", "100", "--n", "abc"],
    ["--d", "1", "--n", "10"],
    ["--d", "100", "--n", "10", "--m", "100000000000"],
    ["--d", "100", "--n", "10", "--m", "0"],
    ["--d", "100", "--n", "10", "--seeds", "0"],
    ["--d", "100", "--n", "10", "--device", "gpu"],
    ["--d", "100", "--n", "10", "--out", "/proc/s.json"],
    ["--d", "100", "--n", "10", "--figure", "{out}/s.tiff"],
    ["--d", "100000000000", "--n", "10"],
)]

XOR_COMPARE = [[*(["xor", "compare"]), *args] for args in (
    ["--d", "100000000000"],
    ["--d", "1"],
    ["--m", "0"],
    ["--m", "65"],
    ["--d", "10", "--m", "10"],
    ["--seeds", "0"],
    ["--steps", "-1"],
    ["--steps", "1000000000000000"],
    ["--train-seeds", "0"],
    ["--seeds", "5", "--train-seeds", "6"],
    ["--c", "1e308"],
    ["--out", "/proc/c.json"],
    ["--figure", "{out}/c.jpg"],
)]

PROFILE = [[*(["sensitivity", "profile"]), *args] for args in (
    [],
    ["--function", "majority", "--table", "{in}/t.txt"],
    ["--function", "nosuch", "--N", "4"],
    ["--function", "majority"],
    ["--function", "majority", "--N", "0"],
    ["--function", "majority", "--N", "40"],
    ["--function", "majority", "--N", "26"],
    ["--function", "dictator", "--N", "4", "--i", "99"],
    ["--function", "sparse_parity", "--N", "4", "--S", "a,b"],
    ["--function", "sparse_parity", "--N", "4", "--S", "0,99"],
    ["--function", "constant", "--N", "4", "--value", "2"],
    ["--function", "majority", "--N", "4", "--msb-first"],
    ["--function", "majority", "--N", "4", "--json", "/proc/p.json"],
    ["--function", "majority", "--N", "4", "--figure", "{out}/p.bmp"],
    ["--function", "majority", "--N", "4", "--device", "tpu"],
    ["--table", "{in}/missing.txt"],
    ["--table", "{in}/garbage.txt"],
    ["--table", "{in}/three.txt"],
    ["--table", "{in}/t.txt", "--N", "2"],
    ["--table", "{in}/binary.txt"],
    ["--table", "{in}"],
    *[["--table", "{in}/" + name] for name in ("object.npy", "half.npy", "nan.npy", "matrix.npy",
                                               "truncated.npy", "bomb.npy", "three.npy", "empty.npy")],
)]


def _npy(array=None, header=None, cut=0):
    """The bytes of a .npy file: an array, or a bare header promising ``header`` (a shape)."""
    import io

    import numpy as np
    from numpy.lib import format as npy_format

    buf = io.BytesIO()
    if header is not None:
        npy_format.write_array_header_1_0(buf, {"descr": "|u1", "fortran_order": False, "shape": header})
        buf.write(bytes(16))
    else:
        np.save(buf, array, allow_pickle=True)
    data = buf.getvalue()
    return data[:len(data) - cut]


def _npy_files():
    import numpy as np

    return {"object.npy": _npy(np.array([0, 1, 1, 0], dtype=object)),
            "half.npy": _npy(np.array([0.5, 1, 1, 0])),
            "nan.npy": _npy(np.array([np.nan, 1, 1, 0])),
            "matrix.npy": _npy(np.zeros((2, 2), dtype=np.uint8)),
            "truncated.npy": _npy(np.zeros(64, dtype=np.uint8), cut=5),
            "bomb.npy": _npy(header=(2**40,)),
            "three.npy": _npy(np.zeros(3, dtype=np.uint8)),
            "empty.npy": b""}


PROFILE_FILES = {"t.txt": "0110", "garbage.txt": "hello world", "three.txt": "011",
                 "binary.txt": b"\xff\xfe\x00\x01", **_npy_files()}

RANDOM = [[*(["sensitivity", "random"]), *args] for args in (
    ["--N", "0"],
    ["--N", "99"],
    ["--D", "1"],
    ["--D", "1000000", "--H", "1"],
    ["--L", "0"],
    ["--L", "100000000"],
    ["--H", "3"],
    ["--F", "0"],
    ["--eps", "-1"],
    ["--eps", "nan"],
    ["--B", "0"],
    ["--sigma", "-1"],
    ["--models", "0"],
    ["--init", "bad"],
    ["--device", "tpu"],
    ["--json", "/proc/r.json"],
    ["--figure", "{out}/r.gif"],
)]

BOUNDS = [[*(["sensitivity", "bounds"]), *args] for args in (
    ["--D", "1"],
    ["--L", "0"],
    ["--F", "0"],
    ["--N-max", "0"],
    ["--eps", "-1"],
    ["--xi", "0"],
    ["--B", "0"],
    ["--C-lip", "0"],
    ["--C-lip", "nan"],
    ["--json", "/proc/b.json"],
    ["--D", "1.5e0"],
)]

TRAIN = [[*(["sensitivity", "train"]), *args] for args in (
    ["--target", "nosuch"],
    ["--target", ""],
    ["--N", "0"],
    ["--N", "abc"],
    ["--N", "100000000"],
    ["--N", "4", "--seeds", "0"],
    ["--N", "4", "--steps", "0"],
    ["--N", "4", "--lr", "0"],
    ["--N", "4", "--lr", "-1"],
    ["--N", "4", "--lr", "nan"],
    ["--N", "4", "--steps", "3", "--lr", "1e300"],
    ["--N", "4", "--weight-decay", "-1"],
    ["--N", "4", "--batch-size", "0"],
    ["--N", "4", "--loss", "hinge"],
    ["--N", "4", "--init", "orthogonal"],
    ["--N", "4", "--dtype", "float16"],
    ["--N", "4", "--device", "tpu"],
    ["--N", "30", "--exact"],
    ["--N", "4", "--train-strings", "0"],
    ["--N", "4", "--json", "/proc/t.json"],
    ["--N", "4", "--figure", "{out}/t.gif"],
    ["--N", "4", "--D", "0"],
    ["--N", "4", "--H", "3"],
)]

SAMPLE = [[*(["sensitivity", "sample"]), *args] for args in (
    ["--N", "0"],
    ["--N", "5000"],
    ["--D", "1"],
    ["--D", "100000", "--L", "3"],
    ["--H", "3"],
    ["--strings", "0"],
    ["--models", "0"],
    ["--models", "1000000000", "--strings", "1000000000"],
    ["--level", "1"],
    ["--level", "nan"],
    ["--seed", "-1"],
    ["--threads", "0"],
    ["--init", "bad"],
    ["--json", "/proc/s.json"],
    ["--json", "{out}"],
)]

TOP = [
    [],
    ["nosuchcommand"],
    ["xor"],
    ["xor", "nosuch"],
    ["sensitivity"],
    ["sensitivity", "nosuch"],
    ["--version-typo"],
]

RESUME = [
    (["xor", "sweep", "--d", "100", "--m", "4", "--seeds", "2", "--out", "{in}/s.json"], {"s.json": SWEEP_INTS}),
    (["xor", "sweep", "--d", "100", "--m", "4", "--seeds", "2", "--out", "{in}/s.json"], {"s.json": SWEEP_PARTIAL}),
    (["xor", "sweep", "--d", "100", "--m", "4", "--seeds", "2", "--out", "{in}/s.json"], {"s.json": SWEEP_OTHER}),
    (["xor", "sweep", "--d", "100", "--m", "4", "--seeds", "2", "--out", "{in}/s.json"], {"s.json": DEEP}),
    (["xor", "sweep", "--d", "100", "--m", "4", "--seeds", "2", "--out", "{in}/s.json"], {"s.json": "{"}),
    (["xor", "samples", "--d", "100", "--n", "8", "--seeds", "2", "--out", "{in}/s.json"], {"s.json": SWEEP_INTS}),
] + [(["xor", "sweep", "--d", "100", "--m", "4", "--seeds", "2", "--out", "{in}/s.json"], {"s.json": _sweep_file(*e)})
     for e in ([("rate", "0.5")], [("successes", "1")], [("d", 1000)], [("m", 8)], [("median_loss", None)],
               [("success_bits", 10)], [("support", [0.0, 1.0])], [("copy", "successes", 2)],
               [("n_seeds", True)])]

SAME_FILE = [
    (["check", "--json", "{out}/r", "--markdown", "{out}/r"], {}),
    (["check", "--json", "{out}/r", "--markdown", "{out}/./r"], {}),
    (["check", "--json", "{in}/m.json", "--mutants", "{in}/m.json"], {"m.json": MUTANTS_WHOLE}),
    (["check", "--mutants", "{in}/m.json"], {"m.json": MUTANTS_WRONG_TYPES}),
    (["check", "--mutants", "{in}/m.json"], {"m.json": MUTANTS_NAN_SCORE}),
    (["xor", "step", "--d", "10", "--m", "2", "--json", "{out}/f.png", "--figure", "{out}/f.png"], {}),
    (["xor", "sweep", "--d", "10", "--m", "2", "--seeds", "1", "--out", "{out}/f.svg",
      "--figure", "{out}/f.svg"], {}),
    (["xor", "samples", "--d", "10", "--n", "4", "--seeds", "1", "--out", "{out}/f.svg",
      "--figure", "{out}/../out/f.svg"], {}),
    (["xor", "compare", "--d", "10", "--m", "2", "--seeds", "1", "--out", "{out}/f.pdf",
      "--figure", "{out}/f.pdf"], {}),
    (["sensitivity", "profile", "--table", "{in}/t.txt", "--json", "{in}/t.txt"], PROFILE_FILES),
    (["sensitivity", "profile", "--table", "{in}/t.txt", "--figure", "{in}/link.png"],
     {"t.txt": "0110", "link.png": ("symlink", "t.txt")}),
    (["sensitivity", "profile", "--function", "parity", "--N", "3", "--json", "{out}/p.png",
      "--figure", "{out}/p.png"], {}),
    (["sensitivity", "train", "--N", "4", "--steps", "1", "--json", "{out}/t.png",
      "--figure", "{out}/t.png"], {}),
    (["sensitivity", "train", "--N", "4", "--steps", "1", "--figure", "{out}/t.png",
      "--figure", "{out}/t.png"], {}),
    (["sensitivity", "random", "--N", "3", "--models", "1", "--json", "{out}/r.png",
      "--figure", "{out}/r.png"], {}),
]

# integers read exactly, sizes that would run for years, limits of threads, jobs and seeds
EXACT_AND_BOUNDED = [[*args] for args in (
    ["xor", "sweep", "--d", "10", "--m", "1.9e0"],
    ["xor", "sweep", "--d", "10.5", "--m", "2"],
    ["xor", "sweep", "--d", "10", "--m", "2", "--seeds", "2.5"],
    ["xor", "sweep", "--d", "10", "--m", "2", "--seeds", "1e5000"],
    ["xor", "sweep", "--d", "10,10", "--m", "2"],
    ["xor", "sweep", "--d", "10", "--m", "2,2"],
    ["xor", "sweep", "--d", "10,20", "--m", "2", "--seeds-for-d", "10:3,10:4"],
    ["xor", "sweep", "--d", "10,20", "--m", "2", "--seeds-for-d", "99:5"],
    ["xor", "sweep", "--d", "10", "--m", "2", "--seeds-for-d", "10:1.5"],
    ["xor", "sweep", "--d", "10", "--m", "2", "--seeds-for-d", "10:2:3"],
    ["xor", "samples", "--d", "10", "--n", "4,4", "--seeds", "1"],
    ["xor", "step", "--d", "10", "--m", "2", "--support", "0,1.5"],
    ["xor", "step", "--d", "10", "--m", "2", "--seed", "1e400"],
    ["xor", "step", "--d", "1e30", "--m", "2"],
    ["xor", "compare", "--steps", "1e12"],
    ["xor", "compare", "--d", "10", "--m", "2", "--seeds", "1", "--max-days", "0"],
    ["xor", "compare", "--d", "10", "--m", "2", "--seeds", "1", "--max-days", "nan"],
    ["xor", "sweep", "--d", "1e6", "--m", "64", "--seeds", "1e9"],
    ["sensitivity", "train", "--steps", "1e11"],
    ["sensitivity", "train", "--threads", "5000"],
    ["sensitivity", "train", "--N", "4,1.5"],
    ["sensitivity", "sample", "--models", "1e12"],
    ["sensitivity", "sample", "--threads", "1000"],
    ["sensitivity", "sample", "--seed", str(2**64)],
    ["sensitivity", "sample", "--seed", str(2**63 - 1), "--models", "2"],
    ["sensitivity", "random", "--N", "3", "--models", "1", "--seed", str(2**64)],
    ["sensitivity", "random", "--N", "3", "--models", "1", "--seed", str(-2**64)],
    ["sensitivity", "profile", "--function", "random", "--N", "3", "--seed", str(2**64)],
    ["sensitivity", "profile", "--function", "random", "--N", "3", "--seed", "-1"],
    ["sensitivity", "profile", "--function", "sparse_parity", "--N", "4", "--S", "0,1.5"],
    ["sensitivity", "profile", "--function", "parity", "--N", "4.5"],
    ["check", "--jobs", str(10**6)],
    ["check", "--jobs", "65"],
    ["mutants", "--jobs", "1e9"],
    ["runs", "sg5", "--quick", "--threads", "1e4"],
)]

# Outputs: every file a command writes goes through one gate (verify.cli.options.check_output):
# a FIFO, a device, a folder, a socket, a name in a missing folder, a name equal to an input or
# to another output (however spelled: ./x, x/../x, a symlink, a hard link) is refused before
# the run, and nothing in {in} is replaced. A symlink to a regular file is followed (the link
# stays); one into a missing folder, to a FIFO, or in a loop is refused.
FIFO = {"p": ("fifo",)}
LONG = "a" * 300
OUTPUT_GATE = [
    (["xor", "step", "--d", "10", "--m", "2", "--json", "{in}/p"], FIFO),
    (["xor", "step", "--d", "10", "--m", "2", "--figure", "{in}/p.svg"], {"p.svg": ("fifo",)}),
    (["xor", "sweep", "--d", "10", "--m", "2", "--seeds", "1", "--out", "{in}/p"], FIFO),
    (["xor", "samples", "--d", "10", "--n", "4", "--seeds", "1", "--out", "{in}/p"], FIFO),
    (["xor", "compare", "--d", "10", "--m", "2", "--seeds", "1", "--out", "{in}/p"], FIFO),
    (["check", "--claim", "SX-1", "--markdown", "{in}/p"], FIFO),
    (["check", "--claim", "SX-1", "--json", "{in}/link"], {"p": ("fifo",), "link": ("symlink", "p")}),
    (["mutants", "--list", "--json", "{in}/p"], FIFO),
    (["sensitivity", "profile", "--function", "parity", "--N", "3", "--json", "{in}/p"], FIFO),
    (["sensitivity", "random", "--N", "3", "--models", "1", "--json", "{in}/p"], FIFO),
    (["sensitivity", "bounds", "--json", "{in}/p"], FIFO),
    (["sensitivity", "sample", "--N", "4", "--models", "1", "--strings", "2", "--json", "{in}/p"], FIFO),
    (["sensitivity", "train", "--N", "4", "--steps", "1", "--figure", "{in}/p.png"], {"p.png": ("fifo",)}),
    (["sensitivity", "volume", "--function", "first", "--N", "4", "--json", "{in}/p"], FIFO),
    (["xor", "step", "--d", "10", "--m", "2", "--json", "{in}/dangling"],
     {"dangling": ("symlink", "missing/x.json")}),
    (["xor", "step", "--d", "10", "--m", "2", "--json", "{in}/loop"], {"loop": ("symlink", "loop")}),
    (["xor", "step", "--d", "10", "--m", "2", "--json", "{in}/dirlink"], {"d/f": "x", "dirlink": ("symlink", "d")}),
    (["xor", "step", "--d", "10", "--m", "2", "--json", "{in}/f/x.json"], {"f": "a file, not a folder"}),
    (["xor", "step", "--d", "10", "--m", "2", "--json", "{out}/a\nb.json"], {}),
    (["xor", "step", "--d", "10", "--m", "2", "--json", "{out}/a\x00b.json"], {}),
    (["xor", "step", "--d", "10", "--m", "2", "--json", "{out}/" + LONG + ".json"], {}),
    (["xor", "step", "--d", "10", "--m", "2", "--figure", "{out}/" + LONG + ".svg"], {}),
    (["xor", "step", "--d", "10", "--m", "2", "--figure", "{out}/f.svg", "--json", "{out}/f.provenance.json"], {}),
    (["sensitivity", "profile", "--table", "{in}/t.txt", "--json", "{in}/./t.txt"], {"t.txt": "0110"}),
    (["sensitivity", "profile", "--table", "{in}/t.txt", "--json", "{in}/d/../t.txt"], {"t.txt": "0110", "d/x": ""}),
    (["sensitivity", "profile", "--table", "{in}/t.txt", "--json", "{in}/hard.txt"],
     {"t.txt": "0110", "hard.txt": ("hardlink", "t.txt")}),
    (["sensitivity", "profile", "--table", "{in}/link", "--json", "{in}/t.txt"],
     {"t.txt": "0110", "link": ("symlink", "t.txt")}),
    (["check", "--mutants", "{in}/m.json", "--markdown", "{in}/mlink"],
     {"m.json": MUTANTS_WHOLE, "mlink": ("symlink", "m.json")}),
    (["sensitivity", "train", "--N", "4", "--steps", "1", "--figure", "{out}/t.png", "--figure", "{out}/./t.png"], {}),
    (["sensitivity", "profile", "--table", "{in}/t.provenance.json", "--figure", "{in}/t.svg"],
     {"t.provenance.json": "0110"}),
    (["sensitivity", "volume", "--function", "first", "--N", "4", "--json", "{out}/v.png", "--figure",
      "{out}/v.png"], {}),
    (["runs", "sg5", "--quick", "--out-dir", "{in}/p"], FIFO),
    (["runs", "sg5", "--quick", "--out-dir", "/proc/boolverify-out"], {}),
    (["runs", "sg5", "--quick", "--out-dir", "{in}/f/sub"], {"f": "a file"}),
    (["runs", "sg5", "--quick", "--out-dir", "{in}/o"], {"o/data": ("fifo",)}),
    (["runs", "sg5", "--quick", "--out-dir", "{in}/o"], {"o/data/sg5_margin.json": ("fifo",)}),
    (["runs", "sg5", "--quick", "--out-dir", "{in}/o"], {"o/figures/sg5_margin_vs_N.png": ("fifo",)}),
    (["reproduce", "sg5", "--quick", "--committed", "{in}/c", "--out-dir", "/proc/boolverify-out"],
     {"c/data/sg5_margin.json": "{}"}),
    (["reproduce", "sg5", "--quick", "--committed", "{in}/c", "--out-dir", "{in}/p"],
     {"c/data/sg5_margin.json": "{}", "p": ("fifo",)}),
    (["runs", "theorem45", "--quick", "--out-dir", "{in}/o"], {"o/data/theorem45.json": "{not json"}),
    (["runs", "theorem45", "--quick", "--out-dir", "{in}/o"],
     {"o/data/theorem45.json": json.dumps({"params": {}, "cells": {"x": 1}})}),
    (["runs", "xor-sweep", "--quick", "--out-dir", "{in}/o"], {"o/data/xor_sweep.json": "[1, 2"}),
]

# Seeds: one check everywhere (an integer in [0, 2^63 - 1]; no wrapping, no aliasing)
SEEDS = [[*args] for args in (
    ["xor", "step", "--d", "10", "--m", "2", "--seed", str(2**63)],
    ["xor", "step", "--d", "10", "--m", "2", "--seed", "0x10"],
    ["xor", "step", "--d", "10", "--m", "2", "--seed", "True"],
    ["xor", "step", "--d", "10", "--m", "2", "--seed", "2**63"],
    ["xor", "step", "--d", "10", "--m", "2", "--seed", "1e3.5"],
    ["xor", "step", "--d", "10", "--m", "2", "--seed", "-1e0"],
    ["sensitivity", "random", "--N", "3", "--models", "1", "--seed", "-1"],
    ["sensitivity", "random", "--N", "3", "--models", "2", "--seed", str(2**63 - 1)],
    ["sensitivity", "sample", "--N", "4", "--models", "1", "--strings", "2", "--seed", "nan"],
    ["sensitivity", "volume", "--function", "first", "--N", "4", "--seed", "-1"],
    ["sensitivity", "volume", "--function", "first", "--N", "4", "--solution", "trained", "--train-seed", "-1"],
    ["sensitivity", "profile", "--function", "random", "--N", "3", "--seed", "1.5"],
    ["check", "--seed", str(2**63)],
    ["xor", "step", "--d", "10", "--m", "2", "--seed", "\uff11\uff12"],      # full-width digits
    ["sensitivity", "random", "--N", "3", "--models", "1", "--seed", "\u0661"],   # Arabic-Indic one
)]

CASES = (CHECK + DERIVE + MUTANTS + RUNS
         + [(a, {}) for a in XOR_STEP + XOR_SWEEP + XOR_SAMPLES + XOR_COMPARE]
         + [(a, PROFILE_FILES) for a in PROFILE]
         + [(a, {}) for a in RANDOM + BOUNDS + TRAIN + SAMPLE + TOP] + RESUME + SAME_FILE
         + [(a, {}) for a in EXACT_AND_BOUNDED] + OUTPUT_GATE + [(a, {}) for a in SEEDS])


def _write(folder, files):
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, tuple) and content[0] == "symlink":
            path.symlink_to(folder / content[1])
        elif isinstance(content, tuple) and content[0] == "hardlink":
            os.link(folder / content[1], path)
        elif isinstance(content, tuple) and content[0] == "fifo":
            os.mkfifo(path)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def _listing(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def _snapshot(folder):
    """Each entry of ``folder`` with its kind and content (a FIFO replaced by a file, or a link
    replaced by a copy, changes it even where the names stay)."""
    import stat

    out = []
    for p in sorted(folder.rglob("*")):
        st = os.lstat(p)
        if stat.S_ISLNK(st.st_mode):
            what = ("link", os.readlink(p))
        elif stat.S_ISREG(st.st_mode):
            what = ("file", p.read_bytes(), st.st_ino)
        else:
            what = (stat.S_IFMT(st.st_mode), st.st_ino)
        out.append((str(p.relative_to(folder)), what))
    return out


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang()


@pytest.mark.parametrize("argv, files", CASES, ids=[" ".join(a) or "(none)" for a, _ in CASES])
def test_bad_input_one_line_exit_2(argv, files, tmp_path, monkeypatch, capsys):
    from verify.cli import main

    inp, out, cwd = tmp_path / "in", tmp_path / "out", tmp_path / "cwd"
    for folder in (inp, out, cwd):
        folder.mkdir()
    _write(inp, files)
    before = _snapshot(inp)
    monkeypatch.chdir(cwd)
    args = [a.replace("{in}", str(inp)).replace("{out}", str(out)) for a in argv]
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(HANG_LIMIT_S)
    try:
        code = main(args)
    except _Hang:
        pytest.fail(f"no answer within {HANG_LIMIT_S} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    _, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2, err
    assert 1 <= len(lines) <= 2 and lines[0].startswith("boolverify: error: "), err
    assert "Traceback" not in err
    assert _listing(out) == [] and _listing(cwd) == [], "output left behind"
    assert _snapshot(inp) == before, "an input file was changed or a file added beside it"


def test_the_table_is_large_and_covers_every_command():
    from verify.cli import COMMAND_GROUPS

    assert len(CASES) >= 150
    commands = {a[0] for a, _ in CASES if a}
    assert set(COMMAND_GROUPS) - {"crossval"} <= commands    # crossval: its own table


# --------------------------------------------------------------------------- signals


def _start(args, tmp, **kw):
    env = dict(os.environ, TMPDIR=str(tmp), PYTHONUNBUFFERED="1")
    return subprocess.Popen([sys.executable, "-m", "verify.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, **kw)


def _wait_for(predicate, proc, limit=120):
    deadline = time.monotonic() + limit
    while not predicate():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)


def _wait_for_workers(proc, tmp):
    """The worker processes of a running ``check``, once each has been started (an events file
    is created just before its worker)."""
    def started():
        files = list(tmp.glob("boolverify-check-*/events-*.jsonl"))
        return files and len(children_of(proc.pid)) >= len(files)

    _wait_for(started, proc)
    return children_of(proc.pid)


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_check_terminated_stops_workers_and_cleans_up(tmp_path):
    """SIGTERM: exit 143, no report, the workers stopped and the temporary folder removed."""
    out, tmp = tmp_path / "out", tmp_path / "tmp"
    out.mkdir()
    tmp.mkdir()
    proc = _start(["check", "--claim", "SX-4", "--claim", "SG-6", "--json", str(out / "r.json")], tmp)
    workers = _wait_for_workers(proc, tmp)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "terminated" in err and "Traceback" not in err
    assert os.listdir(out) == [] and list(tmp.glob("boolverify-check-*")) == []
    assert_all_exit(workers, 10, "a worker")


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_check_killed_leaves_no_worker_and_the_next_run_removes_its_folder(tmp_path, monkeypatch):
    """SIGKILL cannot be handled: the workers die with their parent, and the next run removes
    the folder the killed one left."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = _start(["check", "--claim", "SX-4", "--claim", "SG-6"], tmp)
    workers = _wait_for_workers(proc, tmp)
    proc.kill()
    proc.communicate(timeout=60)
    assert_all_exit(workers, 10, "a worker")
    assert_next_run_removes_folder(tmp, check_runner.TMP_PREFIX, monkeypatch)


@pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG")
def test_worker_whose_parent_died_before_it_was_set_up_exits():
    """The race the death signal cannot cover: a parent killed between the fork and the prctl.
    The worker then finds another parent and exits before running anything."""
    import functools

    from verify.report.workers import die_with_parent

    def run(parent):
        p = subprocess.run([sys.executable, "-c", "print('ran')"], capture_output=True, text=True,
                           preexec_fn=functools.partial(die_with_parent, parent), timeout=60)
        return p.returncode, p.stdout.strip()

    assert run(os.getpid()) == (0, "ran")
    assert run(os.getpid() + 1) == (1, "")


def test_sweep_terminated_leaves_a_whole_file_or_none(tmp_path):
    """SIGTERM during a sweep: exit 143; the results file, if any, is complete JSON."""
    out = tmp_path / "s.json"
    proc = _start(["xor", "sweep", "--d", "1000,3000,10000", "--m", "8,16,32", "--seeds", "40",
                   "--out", str(out)], tmp_path)
    _wait_for(lambda: out.exists(), proc, limit=180)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "Traceback" not in err
    data = json.loads(out.read_text())
    assert data["schema"] == SWEEP_SCHEMA and data["cells"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".s.json")] == []


# the message names the option the user wrote, not the library argument it became
NAMED = [
    (["sensitivity", "bounds", "--B", "1e308"], "--B"),
    (["sensitivity", "profile", "--function", "parity", "--N", "4", "--i", "2"], "--i"),
    (["sensitivity", "profile", "--function", "sparse_parity", "--N", "4", "--S", "1,1"], "--S"),
    (["sensitivity", "profile", "--function", "random", "--N", "3", "--seed", str(2**64)], "--seed"),
    (["sensitivity", "train", "--N", "4", "--train-strings", "100", "--steps", "1"], "--train-strings"),
    (["xor", "sweep", "--d", "10,10", "--m", "2"], "--d"),
    (["xor", "samples", "--d", "10", "--n", "4,4", "--seeds", "1"], "--n"),
    (["xor", "sweep", "--d", "10", "--m", "1.9e0"], "--m"),
    (["xor", "sweep", "--d", "10", "--m", "2", "--seeds-for-d", "10:1,10:2"], "--seeds-for-d"),
    (["xor", "sweep", "--d", "100", "--m", "4", "--seeds", "2", "--out", "{in}/s.json"], "--json"),
    (["xor", "compare", "--steps", "1e12"], "--steps"),
    (["check", "--json", "{in}/r", "--markdown", "{in}/r"], "--markdown"),
]


@pytest.mark.parametrize("argv, option", NAMED, ids=[" ".join(a) for a, _ in NAMED])
def test_the_message_names_the_option(argv, option, tmp_path, capsys):
    from verify.cli import main

    (tmp_path / "s.json").write_text(SWEEP_INTS)
    code = main([a.replace("{in}", str(tmp_path)) for a in argv])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"boolverify: error: {option} "), err
