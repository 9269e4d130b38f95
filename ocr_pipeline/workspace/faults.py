"""Crash injection for tests: `OCR_PIPELINE_TEST_FAULT=<point>:<kill|raise>` stops the process at a named write."""

from __future__ import annotations

import os
import signal

FAULT_VARIABLE = "OCR_PIPELINE_TEST_FAULT"


class InjectedFault(RuntimeError):
    """Raised at a fault point named in OCR_PIPELINE_TEST_FAULT with the `raise` action."""


def fault_point(name: str) -> None:
    """Kill this process or raise here when the test variable names this point; a no-op otherwise."""
    spec = os.environ.get(FAULT_VARIABLE)
    if not spec:
        return
    for entry in spec.split(","):
        point, _, action = entry.strip().partition(":")
        if point != name:
            continue
        if action == "kill":
            # SIGKILL: no finally blocks, no atexit, exactly what a power cut or the OOM killer leaves behind.
            os.kill(os.getpid(), signal.SIGKILL)
        raise InjectedFault(f"injected fault at {name}")
