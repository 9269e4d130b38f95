"""SIGTERM stops a run as Ctrl-C does, however the process was started.

Dagster's interrupt handling (dagster._utils.interrupts) gives SIGTERM whatever SIGINT has, while a run goes in the
main thread (its own handler, which interrupts the run) and after it ends (SIGINT's handler from before). A command
a shell starts in the background (`ocr-pipeline run ... &` in a script, nohup) has SIGINT ignored, so after the
first run SIGTERM was ignored too: `kill PID` did nothing and the run went on to its end. SIGINT itself stays as
the shell set it (a background job, and the children it starts, must not die of the Ctrl-C meant for the script
that started it); SIGTERM is given a handler raising KeyboardInterrupt again after each run in the main thread.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType


def _stop(_signo: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def stop_on_sigterm() -> None:
    """Make SIGTERM raise KeyboardInterrupt in the main thread (call again after each Dagster run there)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop)
