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


class LoggingProgress:
    """Progress as log lines, at most one every `every_s` seconds (a step's log in the Dagster UI)."""

    def __init__(self, log: Callable[[str], None], every_s: float = 30.0) -> None:
        self._log, self._every_s = log, every_s
        self._name, self._total, self._done, self._last = "", 0, 0, 0.0

    def phase(self, name: str, total: int) -> None:
        """Start counting a new phase."""
        self._name, self._total, self._done, self._last = name, total, 0, time.monotonic()

    def advance(self, n: int = 1) -> None:
        """Count `n` more; log when the interval has passed or the phase is complete."""
        self._done += n
        now = time.monotonic()
        if now - self._last >= self._every_s or (self._total and self._done >= self._total):
            self._last = now
            total = f"/{self._total}" if self._total else ""
            self._log(f"{self._name}: {self._done}{total} pages")

