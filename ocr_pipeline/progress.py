"""Progress reporting that stages call without knowing who listens (a terminal bar, Dagster logs, nothing)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import NoReturn, Protocol

from tqdm import tqdm


class ProgressSink(Protocol):
    """Receives stage progress: a new phase with its expected total, then increments."""

    def phase(self, name: str, total: int) -> None:
        """A new phase starts (`total` units expected, 0 when unknown)."""

    def advance(self, n: int = 1) -> None:
        """`n` more units are done."""


class NullProgress:
    """Ignores progress (the Dagster UI shows asset metadata instead)."""

    def phase(self, name: str, total: int) -> None:
        """Ignore."""

    def advance(self, n: int = 1) -> None:
        """Ignore."""


class TqdmProgress:
    """A terminal progress bar per phase, for the one-machine CLI."""

    def __init__(self, prefix: str = "", disable: bool = False) -> None:
        self._bar: tqdm[NoReturn] | None = None
        self.prefix, self._disable = prefix, disable

    def phase(self, name: str, total: int) -> None:
        """Close the previous bar and open a new one."""
        self.close()
        self._bar = tqdm(total=total or None, desc=f"{self.prefix}{name}", unit="page", disable=self._disable)

    def advance(self, n: int = 1) -> None:
        """Move the bar."""
        if self._bar is not None:
            self._bar.update(n)

    def close(self) -> None:
        """Close the bar if one is open."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _duration(seconds: float) -> str:
    """45s, 3m20s, 2h05m: short enough for a log line, precise enough for an ETA."""
    s = round(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def _rate(pages_per_s: float) -> str:
    """Two significant digits or so, for fast renderers and slow VLMs alike."""
    # Rounded before the test, so 9.9999 pages/s (float sums of page times) reads 10, not 10.0.
    digits = 0 if round(pages_per_s, 1) >= 10 else 1 if round(pages_per_s, 2) >= 1 else 2
    return f"{pages_per_s:.{digits}f}"


class LoggingProgress:
    """Progress as log lines (a step's log in the Dagster UI): soon after a phase starts, then sparser, bounded.

    Within a phase a line is due, never sooner than `min_gap_s` after the previous one, when
      - `first_s` has passed since the phase started (the first line), or
      - the phase's elapsed time has doubled since the last line (at most log2(length / first_s) such lines:
        15 for a day-long phase; it also keeps a phase with an unknown total talking), or
      - another 1/`lines_per_phase` of the phase's expected pages is done (at most `lines_per_phase` lines).
    So a short step logs every few seconds, a long one about `lines_per_phase` lines spread over its length, and
    whatever the length a step (this object) logs at most `max_lines` such lines, plus one closing line per phase.
    Lines are written from `advance` only (no timer thread): a phase that reads no page writes nothing until it does.
    """

    def __init__(
        self,
        log: Callable[[str], None],
        *,
        first_s: float = 2.0,
        min_gap_s: float = 3.0,
        lines_per_phase: int = 30,
        max_lines: int = 60,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._log, self._clock = log, clock
        self._first_s, self._min_gap_s = first_s, min_gap_s
        self._lines_per_phase, self._max_lines = lines_per_phase, max_lines
        self.lines = 0  # progress lines written by this step so far, closing lines excepted
        self._name, self._total, self._done, self._started = "", 0, 0, 0.0
        self._last_at: float | None = None  # elapsed seconds of the phase at its last line
        self._last_share = 0  # how many 1/lines_per_phase of the total were done at the last line
        self._open = False

    def phase(self, name: str, total: int) -> None:
        """Close the previous phase (its closing line, if it ended short) and start counting a new one."""
        self.close()
        self._name, self._total, self._done, self._started = name, total, 0, self._clock()
        self._last_at, self._last_share, self._open = None, 0, True

    def advance(self, n: int = 1) -> None:
        """Count `n` more; log when a line is due, and the closing line once the expected total is reached."""
        if not self._open:
            return
        self._done += n
        if self._total and self._done >= self._total:
            self.close()
            return
        elapsed = self._clock() - self._started
        if self._due(elapsed):
            self.lines += 1
            self._last_at = elapsed
            self._last_share = self._share()
            self._log(self._line(elapsed))

    def close(self) -> None:
        """Write the open phase's closing line (pages, time, average rate); nothing when no phase is open."""
        if not self._open:
            return
        self._open = False
        elapsed = self._clock() - self._started
        short = bool(self._total) and self._done < self._total
        total = f"/{self._total}" if self._total else ""
        verb = "ended at" if short else "done,"  # short: rejected inputs, or the step failed
        self._log(f"{self._name}: {verb} {self._done}{total} pages in {_duration(elapsed)}, "
                  f"{_rate(self._done / elapsed if elapsed > 0 else 0.0)} pages/s")  # fmt: skip

    def _share(self) -> int:
        return self._done * self._lines_per_phase // self._total if self._total else 0

    def _due(self, elapsed: float) -> bool:
        if self.lines >= self._max_lines:
            return False  # the step's budget is spent: only closing lines from now on
        if self._last_at is None:
            return elapsed >= self._first_s
        if elapsed - self._last_at < self._min_gap_s:
            return False
        return elapsed >= 2 * self._last_at or self._share() > self._last_share

    def _line(self, elapsed: float) -> str:
        rate = self._done / elapsed if elapsed > 0 else 0.0
        if not self._total:
            return f"{self._name}: {self._done} pages, {_rate(rate)} pages/s"
        left = self._total - self._done
        eta = _duration(left / rate) if rate > 0 else "unknown"
        percent = 100 * self._done // self._total
        return f"{self._name}: {self._done}/{self._total} pages ({percent}%), {_rate(rate)} pages/s, ETA {eta}"
