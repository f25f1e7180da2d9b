"""Where the cells of a sweep run: in this process (the default), on an embedded
``dask.distributed.LocalCluster`` (``workers=N``), or on a running Dask cluster
(``scheduler="tcp://HOST:8786"``).

Each cell is one task; the results come back to the calling process in the order they
complete (:func:`distributed.as_completed`), and that process alone writes the results file
(through :func:`verify.common.atomic_io.merge_json_records`), so workers need no access to it.
A task whose worker dies is run again on another worker by the scheduler; a task that raises
is retried ``retries`` times. A cell is computed from per-seed generators only, so the same
cell gives the same result on whichever worker runs it.

dask is imported only when a cluster is asked for; the in-process path has no dask dependency
at run time. The sweeps report progress through a callback; the commands draw it
(:mod:`verify.cli.progress`).
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
from contextlib import contextmanager

from numeric.validation import check_int, reject

#: most worker processes of an embedded cluster (more belongs on a real cluster)
MAX_WORKERS = 64

#: seconds to wait for a running scheduler to answer
CONNECT_TIMEOUT = 10
#: seconds a scheduler with no worker is given for one to join before the run is refused
WORKERS_TIMEOUT = 60
#: the largest first message of a Dask scheduler (its handshake is ~60 bytes of msgpack): a longer
#: length prefix is another protocol's bytes read as a length
_HANDSHAKE_MAX = 1 << 16

_ADDRESS = re.compile(r"^(?:tcp://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):([0-9]{1,5})$")
_ADDRESS_TEXT = "host:port or tcp://host:port, e.g. tcp://10.0.0.5:8786"


#: the embedded scheduler's options: its HTTP endpoints (health, metrics) on a port the OS picks
FREE_HTTP_PORT = {"dashboard_address": ":0"}


def check_workers(value, name="workers"):
    """The number of worker processes of an embedded cluster: an integer in 1..64, or ``None``."""
    if value is None:
        return None
    return check_int(value, name, lo=1, hi=MAX_WORKERS)


def check_scheduler(value, name="scheduler", *, probe=False):
    """A scheduler address ``host:port`` or ``tcp://host:port`` (or ``None``), returned as
    ``tcp://host:port``. With ``probe``, a TCP connection is opened and closed, so that a wrong
    address fails at once rather than after the engine has loaded."""
    if value is None:
        return None
    m = _ADDRESS.match(value) if isinstance(value, str) else None
    if m is None or not 1 <= int(m.group(2)) <= 65535:
        reject(name, value, _ADDRESS_TEXT)
    host, port = m.group(1), int(m.group(2))
    if probe:
        _probe_handshake(host.strip("[]"), port, name, value)
    return f"tcp://{host}:{port}"


def _read_exactly(conn, n):
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            break
        data += chunk
    return data


def _probe_handshake(host, port, name, value):
    """Connect and read the scheduler's first message: a Dask scheduler sends its handshake
    (an 8-byte length, then msgpack naming ``pickle-protocol``) as soon as it accepts, without
    waiting for the client. Anything else at the address (a silent listener, another server) is
    refused here: handed to dask, the first hangs forever and the second's bytes, read as a
    frame length, make it allocate without bound."""
    try:
        conn = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT)
    except OSError as exc:
        reject(name, value, f"the address of a running Dask scheduler (cannot connect: {exc.strerror or exc})")
    with conn:
        try:
            conn.settimeout(CONNECT_TIMEOUT)
            head = _read_exactly(conn, 8)
            size = int.from_bytes(head, "little") if len(head) == 8 else -1
            body = _read_exactly(conn, size) if 0 < size <= _HANDSHAKE_MAX else b""
        except OSError as exc:      # a timeout included
            head, body = b"", b""
            why = f"no Dask handshake within {CONNECT_TIMEOUT} s ({exc.strerror or exc})"
        else:
            why = "its first bytes are not a Dask handshake"
    if b"pickle-protocol" not in body:
        reject(name, value, f"the address of a Dask scheduler ({value} accepts connections but is not a Dask "
                            f"scheduler: {why})")


def check_backend(workers=None, scheduler=None, names=("workers", "scheduler")):
    """Both settings checked; at most one of them may be given. Returns ``(workers, scheduler)``."""
    workers = check_workers(workers, names[0])
    scheduler = check_scheduler(scheduler, names[1])
    if workers is not None and scheduler is not None:
        reject(names[1], scheduler, f"no scheduler together with {names[0]} (which starts a local cluster)")
    return workers, scheduler


def task_key(label, key) -> str:
    """The Dask key of a cell: its label and a hash of its settings. Two sweeps that submit the
    same cell to one scheduler share the task instead of computing it twice."""
    digest = hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:16]
    return f"boolverify-{label}-{digest}"


@contextmanager
def _client(workers, scheduler):
    import logging

    from distributed import Client, LocalCluster

    if scheduler is not None:
        check_scheduler(scheduler, "scheduler", probe=True)
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            reject("scheduler", scheduler, f"the address of a running Dask scheduler ({exc})")
        with client:
            try:
                # tasks on a scheduler without workers would wait silently forever
                client.wait_for_workers(1, timeout=WORKERS_TIMEOUT)
            except (TimeoutError, OSError):
                reject("scheduler", scheduler, f"a Dask scheduler with workers (no workers joined within "
                                               f"{WORKERS_TIMEOUT} s)")
            yield client
        return
    # one thread per worker process: torch parallelises inside a cell, dask across cells;
    # no dashboard, and the scheduler's own HTTP endpoints on a free port (by default they take
    # 8787, and a second cluster, e.g. a concurrent sweep, warns that it is in use)
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, scheduler_kwargs=FREE_HTTP_PORT,
                      silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        yield client


def run_tasks(fn, tasks, *, workers=None, scheduler=None, retries=2, label="cell"):
    """Run ``fn(*args)`` for each ``(key, args)`` of ``tasks``; yield ``(index, result)`` as they
    complete (``index`` into ``tasks``).

    In this process, one after the other, unless ``workers`` (an embedded cluster of that many
    processes) or ``scheduler`` (an address) is given. An exception of a task is raised here
    once its retries are spent; the tasks not yet finished are then cancelled.
    """
    workers, scheduler = check_backend(workers, scheduler)
    tasks = list(tasks)
    if not tasks:
        return
    if workers is None and scheduler is None:
        for i, (_, args) in enumerate(tasks):
            yield i, fn(*args)
        return
    from distributed import as_completed

    with _client(workers, scheduler) as client:
        futures = {}
        for i, (key, args) in enumerate(tasks):
            fut = client.submit(fn, *args, key=task_key(label, key), retries=retries)
            futures[fut] = i
        try:
            for fut in as_completed(futures):
                yield futures[fut], fut.result()
        finally:
            client.cancel(list(futures))


__all__ = ["MAX_WORKERS", "FREE_HTTP_PORT", "WORKERS_TIMEOUT", "check_workers", "check_scheduler", "check_backend",
           "task_key", "run_tasks"]
