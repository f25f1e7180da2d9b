"""The pytest worker processes of ``boolverify check`` and ``boolverify mutants``.

Each worker is one ``python -m pytest`` process with one torch thread (OpenMP and MKL too,
unless its :class:`Task` sets ``OMP_NUM_THREADS`` and the like in its ``env``) that
writes its events as JSON lines to its own file (``BOOLVERIFY_EVENTS``, read by
:mod:`verify.report.check_plugin`) and its output to its own log, both in a temporary folder of
the run. :func:`run_workers` starts them ``jobs`` at a time, streams their events and stops every
worker still running when it is interrupted. A worker also dies with its parent when the parent
is killed by SIGKILL, which no handler can catch (:func:`die_with_parent`), and the next run
removes the folder such a run left (:func:`run_folder`).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

#: seconds between two looks at the running workers
POLL_S = 0.2


@dataclass(frozen=True)
class Task:
    """One worker to run: ``python -m pytest *args`` with ``env`` added to the environment.

    ``name`` names its files in the run's folder (``events-NAME.jsonl``, ``log-NAME.txt``).
    """

    name: str
    args: tuple[str, ...]
    env: dict = field(default_factory=dict)
    cwd: str | None = None


@dataclass
class Finished:
    """A worker that has exited (``returncode``) or was stopped at its time limit
    (``returncode`` None, ``timed_out``)."""

    task: Task
    returncode: int | None
    events: list
    log: str
    seconds: float

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


class _Worker:
    def __init__(self, task: Task, folder: Path):
        self.task = task
        self.events_path = folder / f"events-{task.name}.jsonl"
        self.events_path.touch()
        self.events: list[dict] = []
        self.offset = 0
        self.log = open(folder / f"log-{task.name}.txt", "w")
        # one thread unless the task asks for more (its env is applied last)
        env = {**os.environ, "BOOLVERIFY_EVENTS": str(self.events_path), "OMP_NUM_THREADS": "1",
               "MKL_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1", **task.env}
        try:
            self.proc = subprocess.Popen(
                # each task names its own options: the ini file's addopts spread a plain pytest
                # run over the cores (pytest-xdist), and a worker is one process of a pool already
                [sys.executable, "-m", "pytest", "-o", "addopts=", *task.args], env=env, cwd=task.cwd,
                stdout=self.log, stderr=subprocess.STDOUT,
                preexec_fn=(functools.partial(die_with_parent, os.getpid())
                            if sys.platform == "linux" else None))
        except BaseException:
            self.log.close()
            raise
        self.started = time.monotonic()

    def read_events(self) -> list[dict]:
        """The complete event lines written since the last read (a partial last line is read
        next time)."""
        with open(self.events_path, encoding="utf-8") as fh:
            fh.seek(self.offset)
            chunk = fh.read()
        done = chunk.rfind("\n") + 1
        self.offset += len(chunk[:done].encode("utf-8"))
        new = [json.loads(line) for line in chunk[:done].splitlines() if line.strip()]
        self.events += new
        return new

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self.log.close()

    def finish(self, returncode) -> Finished:
        self.log.close()
        return Finished(self.task, returncode, self.events,
                        Path(self.log.name).read_text(errors="replace"),
                        time.monotonic() - self.started)


def run_workers(tasks, folder: Path, jobs: int, *, on_event: Callable | None = None,
                on_finished: Callable | None = None, timeout_s: float | None = None) -> list[Finished]:
    """Run the ``tasks`` (:class:`Task`) as pytest workers, ``jobs`` at a time, in task order.

    Args:
        folder: where the workers' event files and logs go (e.g. :func:`run_folder`).
        on_event: receives ``(task, event)`` for each event as it arrives.
        on_finished: receives each :class:`Finished` as its worker ends.
        timeout_s: wall-clock limit per worker; a worker past it is killed (``timed_out``).

    Returns:
        the :class:`Finished` workers in task order. On any exception (an interrupt, SIGTERM
        raised as one) every running worker is killed before it propagates.
    """
    queue = list(tasks)
    running: list[_Worker] = []
    done: dict[int, Finished] = {}
    order = {id(t): k for k, t in enumerate(queue)}
    try:
        while queue or running:
            while queue and len(running) < jobs:
                running.append(_Worker(queue.pop(0), folder))
            for worker in list(running):
                rc = worker.proc.poll()
                for ev in worker.read_events():
                    if on_event:
                        on_event(worker.task, ev)
                over = (rc is None and timeout_s is not None
                        and time.monotonic() - worker.started > timeout_s)
                if rc is None and not over:
                    continue
                if over:
                    worker.proc.kill()
                    worker.proc.wait()
                running.remove(worker)
                result = worker.finish(None if over else rc)
                done[order[id(worker.task)]] = result
                if on_finished:
                    on_finished(result)
            if running:
                time.sleep(POLL_S)
    finally:
        for worker in running:
            worker.stop()
    return [done[k] for k in sorted(done)]


@contextlib.contextmanager
def run_folder(prefix: str):
    """A temporary folder ``PREFIX<pid>-...`` for one run's worker files, removed at the end;
    first removes the folders of earlier runs of ``prefix`` whose process is gone (killed with
    SIGKILL). ``prefix`` must end with ``-``."""
    remove_stale_folders(prefix)
    with tempfile.TemporaryDirectory(prefix=f"{prefix}{os.getpid()}-") as tmp:
        yield Path(tmp)


def remove_stale_folders(prefix: str) -> None:
    """Remove the temporary folders of earlier runs of ``prefix`` whose process is gone (the
    process id is part of each folder's name)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{prefix}*-*"):
        try:
            pid = int(folder.name[len(prefix):].split("-")[0])
        except ValueError:
            continue
        if pid != os.getpid() and not _alive(pid):
            shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def die_with_parent(parent: int) -> None:
    """In a worker, before exec: ask Linux to kill it when the process ``parent`` that started
    it dies, even by SIGKILL (``PR_SET_PDEATHSIG``), so no worker outlives an interrupted run. A
    parent killed between the fork and this call sends no signal, so the worker then checks that
    its parent is still ``parent`` and exits if not."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:
        os._exit(1)


__all__ = ["Task", "Finished", "run_workers", "run_folder", "remove_stale_folders", "die_with_parent"]
