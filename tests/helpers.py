"""Helpers shared by the unit tests (a module of the tests layer, not a test file)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import strategies as st

from numeric.validation import InputError

#: The project's root folder (where README.md, docs/ and the packages are).
PROJECT_ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def raises_input_error(name: str, expected: str | None = None):
    """Expect an :class:`InputError` about argument ``name`` (its ``.name``; an entry of it,
    ``name[i]``, and a field of a located record, ``<file>: instance 0: name``, count), and
    where ``expected`` is given, one whose ``.expected`` contains it: the test pins the
    argument and the requirement, not the prose of the message."""
    with pytest.raises(InputError) as info:
        yield info
    err = info.value
    found = str(err.name)
    assert found == name or found.startswith(name + "[") or found.endswith(": " + name), \
        f"InputError about {err.name!r} ({err}), expected one about {name!r}"
    if expected is not None:
        assert expected in (err.expected or ""), f"{err.expected!r} does not say {expected!r}"


def run_cli_process(*args, cwd=None, env=None, timeout=300) -> subprocess.CompletedProcess:
    """``boolverify ARGS...`` in a child process (``python -m verify.cli``, so the child runs
    this checkout), its output captured as text; for what only a process shows (exit codes
    from signals, pipes, the working folder, a one-line error on stderr). The checkout's root
    leads ``PYTHONPATH``, so that a child started in another folder runs this checkout too,
    not the installed copy."""
    import os
    from pathlib import Path

    env = dict(os.environ if env is None else env)
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    return subprocess.run([sys.executable, "-m", "verify.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=timeout)


# -- XOR instances ---------------------------------------------------------------------------
#: the three choices of theta~ that the instances cover
TILDES = ("anti", "same", "independent")


def xor_instance(d, m, seed, log_norm=0.0, tilde="anti", steps_c=None, support=(0, 1), attention="softmax",
                 batch=(), dtype=None):
    """``(V, theta, theta_tilde)`` from a seed: unit embedding rows (the engine's sampler),
    theta with :math:`|\\theta| = 10^{\\mathrm{log\\_norm}}`, theta~ either -theta (the paper's
    init), +theta, or independent of the same norm; optionally after one population step of
    size ``default_lr(d, m, steps_c)``. Float64 unless ``dtype`` says otherwise."""
    import torch

    from numeric.xor import default_lr, one_step, sample_embeddings

    dtype = torch.float64 if dtype is None else dtype
    g = torch.Generator().manual_seed(seed)
    V = sample_embeddings(d, m, generator=g, batch_shape=batch)
    th = torch.randn(*batch, m, generator=g, dtype=torch.float64)
    th = th / th.norm(dim=-1, keepdim=True) * 10.0 ** log_norm
    if tilde == "anti":
        tt = -th
    elif tilde == "same":
        tt = th.clone()
    else:
        tt = torch.randn(*batch, m, generator=g, dtype=torch.float64)
        tt = tt / tt.norm(dim=-1, keepdim=True) * 10.0 ** log_norm
    if steps_c is not None:
        th, tt = one_step(V, th, tt, support, default_lr(d, m, steps_c), attention)
    return V.to(dtype), th.to(dtype), tt.to(dtype)


@st.composite
def xor_supports(draw, d):
    """A support ``(a, b)``: two distinct positions of ``range(d)``, in either order."""
    a = draw(st.integers(0, d - 1))
    b = draw(st.integers(0, d - 2))
    return a, b + (b >= a)


@st.composite
def xor_instances(draw, dims=st.integers(2, 12), ms=st.integers(1, 8), log_norms=st.floats(-2, 3),
                  tildes=st.sampled_from(TILDES), steps=st.sampled_from([None, None, 1.0, 10.0, 100.0]),
                  attentions=st.sampled_from(["softmax", "linear", "erf"])):
    """``(V, theta, theta_tilde, support, attention)`` drawn as :func:`xor_instance` builds them."""
    d, m = draw(dims), draw(ms)
    support, attention = draw(xor_supports(d)), draw(attentions)
    V, th, tt = xor_instance(d, m, draw(st.integers(0, 2**31 - 1)), draw(log_norms), draw(tildes),
                             draw(steps), support, attention)
    return V, th, tt, support, attention


def children_of(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (from /proc)."""
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                kids.append(int(entry))
    return kids


def process_gone(pid: int) -> bool:
    """True once ``pid`` has exited (no such process, or a zombie waiting for its parent)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def assert_all_exit(pids, within_s: float, what: str) -> None:
    """Every process of ``pids`` exits within ``within_s`` seconds."""
    deadline = time.monotonic() + within_s
    while not all(process_gone(p) for p in pids):
        assert time.monotonic() < deadline, f"{what} outlived the killed run"
        time.sleep(0.1)


def assert_next_run_removes_folder(tmp: Path, prefix: str, monkeypatch) -> None:
    """A killed run left its ``prefix*`` folder in ``tmp``; the clean-up the next run does first
    removes it."""
    import tempfile

    from verify.report.workers import remove_stale_folders

    assert list(tmp.glob(f"{prefix}*"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    remove_stale_folders(prefix)
    assert list(tmp.glob(f"{prefix}*")) == []


def public_init_law(name: str, scheme: str, D: int, shape, *, B: float = 10.0, sigma: float = 10.0,
                    s: float = 1.0, drawn_biases: bool = False):
    """The law of parameter ``name`` (a ``BooleanTransformer`` name) under the public
    initialisation ``scheme``, restated from the public code (RandFLTAtt/src/components/sanplay.py
    of satwik77/Transformer-Simplicity): ``("fixed", value)``, ``("uniform", half_width)`` or
    ``("normal", std)``. ``s`` is the public ``inp_init``; ``drawn_biases`` its ``bias=True``."""
    import math

    ln = ".ln" in name or name.startswith("ln_f.")
    if ln:
        return ("fixed", 1.0 if name.endswith("gain") else 0.0)  # a_2 / b_2: never drawn
    if name == "out.bias":
        return ("fixed", 0.0)  # the decoder has no bias
    layer_bias = name.endswith("bias")
    if scheme == "bhattamishra_uniform":  # init_weights: every weight_init
        return ("fixed", 0.0) if layer_bias and not drawn_biases else ("uniform", B)
    if scheme == "bhattamishra_gaussian":  # init_gauss_weights
        if name == "tok":
            return ("normal", s)
        if name == "pos":
            return ("uniform", s)
        if name == "out.weight":
            return ("normal", 1.0)
        return ("fixed", 0.0) if layer_bias and not drawn_biases else ("normal", sigma)
    if layer_bias:
        return ("fixed", 0.0)
    if name in ("tok", "pos") or (name == "out.weight" and scheme == "bhattamishra_xavier_normal"):
        return ("normal", 1.0)
    fan_out, fan_in = shape
    if scheme == "bhattamishra_xavier_uniform":
        return ("uniform", math.sqrt(6.0 / (fan_in + fan_out)))
    return ("normal", math.sqrt(2.0 / (fan_in + fan_out)))


def law_holds(values, law, false_fail: float) -> bool:
    """Whether ``values`` (a tensor) are draws of ``law`` (:func:`public_init_law`): fixed values
    exactly; a uniform law inside its support, with the mean of z^2 (z standardised) in the
    two-sided ``1 - false_fail`` chi-square interval (conservative for uniform z^2); a normal law
    the same interval and some |z| beyond sqrt(3) (the uniform support) when that is missed with
    probability below ``false_fail``."""
    import math

    import torch
    from scipy.stats import chi2, norm

    from verify.common.tolerances import tolerance

    v = values.detach().to(torch.float64).reshape(-1).cpu()
    kind, a = law
    if kind == "fixed":
        return bool((v == a).all())
    sd = a / math.sqrt(3) if kind == "uniform" else a
    z = v / sd
    n = z.numel()
    lo, hi = (float(chi2.ppf(q, n)) / n for q in (false_fail / 2, 1 - false_fail / 2))
    ok = lo < float((z * z).mean()) < hi
    if kind == "uniform":
        return ok and float(v.abs().max()) <= a * (1 + tolerance().rtol)
    if (2 * norm.cdf(math.sqrt(3)) - 1) ** n <= false_fail:
        ok = ok and float(z.abs().max()) > math.sqrt(3)
    return ok


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def is_public_path(target: str) -> bool:
    """Whether a dotted path names a public object: its attribute part (after the longest
    importable module) has no private name. A private module (``numeric.xor._forms``) may hold a
    public object; the object is what a mutant wraps or a seam names, found where it is bound."""
    import importlib

    parts = target.split(".")
    for k in range(len(parts), 0, -1):
        try:
            importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        return not any(_private(p) for p in parts[k:])
    return False
