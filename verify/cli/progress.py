"""The progress display of every long ``boolverify`` command, and its account of what it wrote.

One style everywhere, so that a log of one command reads like a log of another:

- on a terminal (stderr is a tty): one rich bar with the task (``label: text``), the bar, the
  count ``k/n`` of finished units, the rate (units per second) and the time remaining;
- anywhere else (a pipe, a log file, CI): one plain line per finished unit on stderr, e.g.
  ``check: [3/17] SX-3 pass (4.1 s)``, with ``, about 52 s left`` once a rate is known.

``BOOLVERIFY_PROGRESS=bar`` or ``=lines`` forces the style (tests, terminals that cannot redraw).

The library layers do not import this module (nor rich): they take a progress callback, which
the command builds from a :class:`Progress` (:meth:`Progress.advance` per finished unit, or
:meth:`Progress.work` for the ``(done, total, text)`` callbacks of weighted work).

Work reported before a message of the weighted-work callback (``resumed from FILE: ...``) was
found done, not computed (cells a resumed results file already holds): it counts in ``k/n`` but
not in the rate or the estimate.
"""

from __future__ import annotations

import os
import sys
import time

#: the environment variable that forces the style: "bar" or "lines"
MODE_ENV = "BOOLVERIFY_PROGRESS"
_active: list = []   # the displays open in this process, innermost last


def style(stream=None) -> str:
    """``"bar"`` or ``"lines"``: the environment's choice, else ``"bar"`` on a terminal."""
    forced = os.environ.get(MODE_ENV, "").strip().lower()
    if forced in ("bar", "lines"):
        return forced
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return "bar" if isatty is not None and isatty() else "lines"


def clock(seconds: float) -> str:
    """``h:mm:ss`` (or ``m:ss`` under an hour) of a non-negative duration."""
    s = int(round(max(0.0, seconds)))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def rate_text(per_second: float | None, unit: str) -> str:
    """Units per second, or per minute/hour when slower (a rate of 0.003/s reads badly)."""
    if per_second is None or per_second <= 0:
        return f"- {unit}/s"
    for scale, per in ((1.0, "s"), (60.0, "min"), (3600.0, "h")):
        if per_second * scale >= 1 or per == "h":
            value = per_second * scale
            return f"{value:.3g} {unit}/{per}"
    raise AssertionError("unreachable")


class Progress:
    """The display of one command's work: ``total`` units (None while unknown) named ``unit``.

    ``every``: on a pipe, at most one line per that many seconds (the last unit always gets
    its line), for work reported in many small steps (blocks of a streamed matrix).
    ``console``: a rich console to draw on (tests inject one with ``force_terminal=True``);
    ``stream``: where the lines (or the bar) go, default stderr.
    """

    def __init__(self, label: str, total: int | None = None, *, unit: str = "units", every: float = 0.0,
                 stream=None, console=None):
        self.label, self.unit, self.every = label, unit, every
        self.stream = stream
        self.console = console
        self.total = total
        self.done = 0
        self.work_done, self.work_total = 0.0, None
        self._t0 = self._base_t = time.monotonic()
        self._base_done, self._base_work = 0, 0.0
        self._last_unit = self._last_line = self._t0
        self._bar = None
        self._task = None
        self._text = ""

    # -- the display ---------------------------------------------------------------------------
    def __enter__(self):
        stream = sys.stderr if self.stream is None else self.stream
        bar = (self.console.is_terminal if self.console is not None else style(stream) == "bar")
        # rich draws one live display at a time: a command run inside another one (runs,
        # reproduce) reports in lines above the outer bar
        if bar and not any(p._bar is not None for p in _active):
            from rich.console import Console
            from rich.progress import BarColumn, Progress as RichProgress, TextColumn

            console = self.console or Console(file=stream, force_terminal=True)
            self._bar = RichProgress(TextColumn("{task.description}"), BarColumn(),
                                     TextColumn("{task.fields[count]}"), TextColumn("{task.fields[rate]}"),
                                     TextColumn("{task.fields[eta]}"), console=console, transient=False)
            self._bar.__enter__()
            self._task = self._bar.add_task(self.label, total=self.total, count=self._count(),
                                            rate=self._rate(), eta="")
        _active.append(self)
        return self

    def __exit__(self, *exc):
        _active.remove(self)
        if self._bar is not None:
            self._refresh()
            self._bar.__exit__(*exc)
            self._bar = None
        return False

    def _write(self, line: str) -> None:
        outer = next((p for p in reversed(_active) if p._bar is not None), None)
        if outer is not None and outer is not self:
            outer._bar.console.print(line, markup=False, highlight=False)
            return
        stream = sys.stderr if self.stream is None else self.stream
        print(line, file=stream, flush=True)

    # -- the numbers ---------------------------------------------------------------------------
    def _count(self) -> str:
        return f"{self.done}/{'?' if self.total is None else self.total} {self.unit}"

    def _per_second(self) -> float | None:
        elapsed = time.monotonic() - self._base_t
        run = self.done - self._base_done
        return run / elapsed if run > 0 and elapsed > 0 else None

    def _rate(self) -> str:
        return rate_text(self._per_second(), self.unit)

    def remaining(self) -> float | None:
        """Seconds left, from this run's speed on the work (or the units); None while unknown."""
        work, total = (self.work_done, self.work_total) if self.work_total else (self.done, self.total)
        base = self._base_work if self.work_total else self._base_done
        if not total or work <= base or work >= total:
            return None
        return (time.monotonic() - self._base_t) * (total - work) / (work - base)

    def _refresh(self) -> None:
        if self._bar is None:
            return
        left = self.remaining()
        completed, total = ((self.work_done, self.work_total) if self.work_total else (self.done, self.total))
        self._bar.update(self._task, completed=completed, total=total,
                         description=f"{self.label}: {self._text}" if self._text else self.label,
                         count=self._count(), rate=self._rate(),
                         eta="" if left is None else f"{clock(left)} left")

    # -- what the command reports --------------------------------------------------------------
    def set_total(self, total: int | None) -> None:
        self.total = total
        self._refresh()

    def advance(self, text: str = "", *, n: int = 1, seconds: float | None = None, saved: bool = False) -> None:
        """``n`` more units finished; ``text`` names the last (``"SX-3 pass"``), ``seconds`` its
        own time (default: since the previous unit); ``saved``: found done, not computed now
        (left out of the rate and the estimate)."""
        now = time.monotonic()
        self.done += n
        if saved:
            self._base_done, self._base_work, self._base_t = self.done, self.work_done, now
        seconds = now - self._last_unit if seconds is None else seconds
        self._last_unit = now
        self._text = text
        if self._bar is not None:
            self._refresh()
            return
        last = self.total is not None and self.done >= self.total
        if not last and now - self._last_line < self.every:
            return
        self._last_line = now
        left = self.remaining()
        tail = "" if left is None else f", about {clock(left)} left"
        total = "?" if self.total is None else self.total
        self._write(f"{self.label}: [{self.done}/{total}] {text}".rstrip() + f" ({seconds:.1f} s{tail})")

    def work(self, done: float, total: float, text: str = "", *, seconds: float | None = None) -> None:
        """The ``progress(done, total, text)`` callback of weighted work (a sweep's cells, each
        of its own cost): each call that moves ``done`` finishes one unit; one that does not is
        a message (a resumed file), shown as a note, and what was reported before it was found
        done, not computed: the rate and the estimate start from there. ``seconds``: the unit's
        own time, as for :meth:`advance`."""
        moved = done > self.work_done
        self.work_done, self.work_total = float(done), float(total) if total else None
        if moved:
            self.advance(text, seconds=seconds)
            return
        self._base_done, self._base_work, self._base_t = self.done, self.work_done, time.monotonic()
        if text:
            self.note(text)

    def position(self, done: int, total: int | None = None, text: str = "") -> None:
        """Absolute progress ``done`` of ``total`` units (callbacks that count for themselves)."""
        if total is not None:
            self.total = total
        if done > self.done:
            self.advance(text, n=done - self.done)
        elif done < self.done:  # a new pass over the same units
            self.done = done
            self._base_done, self._base_t = done, time.monotonic()
            self._refresh()

    def status(self, text: str) -> None:
        """What the unit in progress is doing (a training run's step and loss): shown in the
        bar, not logged (a pipe gets a line per finished unit only)."""
        self._text = text
        self._refresh()

    def note(self, text: str) -> None:
        """A message that is not a finished unit (a resumed file, a phase that starts)."""
        if self._bar is not None:
            self._bar.console.print(f"{self.label}: {text}", markup=False, highlight=False)
        else:
            self._write(f"{self.label}: {text}")


def progress(label: str, total: int | None = None, **kwargs) -> Progress:
    """A :class:`Progress` to use as a context manager: ``with progress("volume", 50) as p: ...``."""
    return Progress(label, total, **kwargs)


def report_written(paths, stream=None) -> None:
    """The last lines of a command: ``wrote PATH`` for each file it wrote, in order."""
    stream = sys.stderr if stream is None else stream
    for path in paths:
        print(f"wrote {path}", file=stream, flush=True)


__all__ = ["MODE_ENV", "style", "clock", "rate_text", "Progress", "progress", "report_written"]
