"""SIGTERM stops a run as Ctrl-C does, however the process was started, and wherever the signal lands.

Dagster's interrupt handling (dagster._utils.interrupts) gives SIGTERM whatever SIGINT has, while a run goes in the
main thread (its own handler, which interrupts the run) and after it ends (SIGINT's handler from before). A command
a shell starts in the background (`ocr-pipeline run ... &` in a script, nohup) has SIGINT ignored, so after the
first run SIGTERM was ignored too: `kill PID` did nothing and the run went on to its end. SIGINT itself stays as
the shell set it (a background job, and the children it starts, must not die of the Ctrl-C meant for the script
that started it); SIGTERM is given a handler raising KeyboardInterrupt again after each run in the main thread.

While a run goes, Dagster's handler only notes a signal, and raises it only inside a step's own code: one that lands
in the framework's work around the steps (between them, in the checks' bookkeeping, at shutdown) is dropped when the
run ends, and the run reports success. `StopSignalWatch` hears every signal at the C level (Python's wakeup file
descriptor, written whichever Python handler is set), so the caller can stop after such a run all the same.
"""

from __future__ import annotations

import signal
import socket
import threading
from types import FrameType

_STOPS = frozenset({signal.SIGINT, signal.SIGTERM})


def _stop(_signo: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def stop_on_sigterm() -> None:
    """Make SIGTERM raise KeyboardInterrupt in the main thread (call again after each Dagster run there)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop)


class StopSignalWatch:
    """Notes every SIGINT and SIGTERM this process receives, even those a Dagster run's handler swallows."""

    def __init__(self) -> None:
        self._read, self._write = socket.socketpair()
        self._read.setblocking(False)
        self._write.setblocking(False)
        self._heard = False
        self._previous: int | None = None

    def __enter__(self) -> StopSignalWatch:
        """Start listening (main thread only; elsewhere signals are not delivered and this listens to nothing)."""
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.set_wakeup_fd(self._write.fileno(), warn_on_full_buffer=False)
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._previous is not None:
            signal.set_wakeup_fd(self._previous)
            self._previous = None
        self._read.close()
        self._write.close()

    def heard_stop(self) -> bool:
        """Whether SIGINT or SIGTERM arrived since the watch started (it stays true once heard)."""
        while not self._heard:
            try:
                received = self._read.recv(256)
            except BlockingIOError:
                break
            if not received:
                break
            self._heard = any(signo in _STOPS for signo in received)
        return self._heard

    def raise_if_stopped(self) -> None:
        """Raise KeyboardInterrupt, as Ctrl-C does, if a stop signal arrived since the watch started."""
        if self.heard_stop():
            raise KeyboardInterrupt

    def after_run(self) -> None:
        """After each Dagster run in this thread: SIGTERM stops again (stop_on_sigterm), and a signal the run
        swallowed stops now."""
        stop_on_sigterm()
        self.raise_if_stopped()


def pool_worker_signals() -> None:
    """In a process running groups for a parent: SIGINT is the parent's to act on, SIGTERM ends this one when idle.

    The parent hears Ctrl-C (a terminal sends it to every process of the job) and sends each worker SIGTERM: a
    Dagster run stops on it as on Ctrl-C, and an idle worker ends at once, with no traceback. Call it again after each
    run: Dagster leaves SIGTERM with SIGINT's disposition, here ignored.
    """
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
