"""DuckDB has no statement timeout: one thread per process interrupts the queries that run past their deadline.

One long-lived thread rather than a timer per query: starting a thread costs milliseconds on a busy machine, as much
as the query it would guard.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol


class Interruptible(Protocol):
    """What the watchdog stops: a DuckDB connection."""

    def interrupt(self) -> None:
        """Stop the query running on this connection."""


class Watchdog:
    """Interrupts each watched connection whose deadline passes before its query ends."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._watched: dict[int, tuple[float, Interruptible]] = {}
        self._tokens = itertools.count()
        self._target = float("inf")  # the deadline the thread sleeps until
        self._thread: threading.Thread | None = None
        self._pid = 0

    @contextmanager
    def watch(self, connection: Interruptible, seconds: float) -> Iterator[None]:
        """Interrupt `connection` if the body still runs after `seconds`."""
        deadline = time.monotonic() + seconds
        with self._condition:
            if self._thread is None or self._pid != os.getpid():  # a forked child has no such thread
                self._pid = os.getpid()
                self._thread = threading.Thread(target=self._run, name="check-query-watchdog", daemon=True)
                self._thread.start()
            token = next(self._tokens)
            self._watched[token] = (deadline, connection)
            if deadline < self._target:
                self._condition.notify()
        try:
            yield
        finally:
            with self._condition:
                self._watched.pop(token, None)

    def _run(self) -> None:
        with self._condition:
            while True:
                now = time.monotonic()
                self._interrupt_due(now)
                self._target = min((d for d, _ in self._watched.values()), default=float("inf"))
                self._condition.wait(None if self._target == float("inf") else self._target - now)

    def _interrupt_due(self, now: float) -> None:
        """Interrupt and forget the connections past their deadline (a function of its own, so the thread's frame
        keeps no connection alive once its query is done)."""
        due = [token for token, (deadline, _) in self._watched.items() if deadline <= now]
        for token in due:
            self._watched.pop(token)[1].interrupt()


WATCHDOG = Watchdog()
