"""Targets of the crossval bad-input tests (tests/verify/crossval/test_crossval_bad_input.py): the
test copies this file into its temporary folder and names its functions as MODULE:FUNCTION; it
is never imported by the test suite itself. Each misbehaves in one way: exits, dies, hangs,
prints, reads stdin, forks, samples, returns what is not numbers or of the wrong length.
"""

import os, sys, time
import numpy as np

_calls = [0]

def _profile(table):
    t = np.asarray(table)
    N = int(np.log2(len(t)))
    idx = np.arange(len(t))
    s = sum((t != t[idx ^ (1 << n)]).astype(int) for n in range(N))
    return np.bincount(np.atleast_1d(s), minlength=N + 1)[: N + 1]

def profile(table):
    return _profile(table)

def wrong_from_12(table):
    K = _profile(table).copy()
    if len(table) >= 4096:
        K[-1] += 1
    return K

def average(table):
    K = _profile(table)
    return float(np.dot(np.arange(len(K)), K)) / len(table)

def exits(*args):
    sys.exit(0)

def exits_after_first(*args):
    _calls[0] += 1
    if _calls[0] > 1:
        sys.exit(0)
    return _profile(args[0]) if len(args) == 1 else (np.zeros(len(args[1])), np.zeros(len(args[1])))

def dies(*args):
    os._exit(0)

def sleeps(*args):
    time.sleep(10**6)

def returns_text(*args):
    return "forty-two"

def _true_grad(V, theta, theta_tilde, support):
    sys.path.insert(0, os.environ["BOOLVERIFY_ROOT"])
    from docs.examples.xor_impl import population_grad
    return population_grad(V, theta, theta_tilde, support)

def complex_grad(V, theta, theta_tilde, support, attention="softmax"):
    g, gt = _true_grad(V, theta, theta_tilde, support)
    return np.asarray(g) + 1e-3j, np.asarray(gt) + 0j

def nan_grad(V, theta, theta_tilde, support, attention="softmax"):
    return np.full(len(theta), np.nan), np.full(len(theta), np.nan)

def text_grad(V, theta, theta_tilde, support, attention="softmax"):
    g, gt = _true_grad(V, theta, theta_tilde, support)
    return [str(x) for x in g], [str(x) for x in gt]

def complex_profile(table):
    return _profile(table) + 0j

def text_profile(table):
    return [str(k) for k in _profile(table)]

def inf_average(table):
    return float("inf")

not_callable = 3

def noisy(table):
    print("garbage on stdout {not json", flush=True)
    sys.stdout.write("\x00" * 5000 + "\n")
    return _profile(table)

def reads_stdin(table):
    sys.stdin.read()
    return _profile(table)

def forks(table):
    pid = os.fork()
    if pid == 0:
        return _profile(table)       # the forked copy returns into the caller, like a bad library
    os.waitpid(pid, 0)
    return _profile(table)

def pool(table):
    import multiprocessing
    with multiprocessing.get_context("fork").Pool(2) as p:
        p.map(abs, [1, 2])
    return _profile(table)

def leaves_sleeper(table):
    import subprocess
    proc = subprocess.Popen(["sleep", "300"])
    with open(os.environ["SLEEPER_PIDS"], "a") as fh:
        fh.write(f"{proc.pid}\n")
    return _profile(table)

def random_profile(table):
    K = _profile(table).astype(float)
    return K + np.random.default_rng().integers(0, 2, size=len(K))

def random_from_3(table):
    K = _profile(table)
    return K + (np.random.default_rng().integers(0, 2, size=len(K)) if len(table) >= 8 else 0)

def interrupts(*args):
    raise KeyboardInterrupt

def raises(*args):
    raise ValueError("bad value")

def exits_3(*args):
    sys.exit(3)

def returns_none(*args):
    return None

def returns_dict(*args):
    return {"K": 1}

def short_profile(table):
    return _profile(table)[:-1]

def nan_profile(table):
    return np.full(int(np.log2(len(table))) + 1, np.nan)

def _influences(table):
    t = np.asarray(table)
    N = int(np.log2(len(t)))
    idx = np.arange(len(t))
    return np.array([np.mean(t != t[idx ^ (1 << n)]) for n in range(N)])

def influences(table):
    return _influences(table)

def influences_msb(table):
    return _influences(table)[::-1]

def influences_counts(table):
    return _influences(table) * len(table)

def influences_list(table):
    assert isinstance(table, list), type(table)
    return [float(x) for x in _influences(np.array(table))]

def wrong_on_probe(V, theta, theta_tilde, support, attention="softmax"):
    g, gt = _true_grad(V, theta, theta_tilde, support)
    if np.asarray(V).shape == (2, 1) and float(np.asarray(theta)[0]) == 0.5:
        return np.asarray(g) + 1.0, np.asarray(gt)
    return g, gt

def wrong_on_probe_table(table):
    K = _profile(table)
    if list(np.asarray(table)) == [0, 1, 0, 0, 1, 1, 1, 1]:
        K = K.copy()
        K[0] += 1
    return K
