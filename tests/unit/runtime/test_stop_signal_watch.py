"""A stop signal a Dagster run's handler swallows is still heard, so `ocr-pipeline run` stops after that run."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest
from dagster._utils.interrupts import capture_interrupts, check_captured_interrupt

from ocr_pipeline.runtime.stop_signals import StopSignalWatch


@pytest.fixture
def quiet_sigterm() -> Iterator[None]:
    """SIGTERM handled by a Python function that does nothing (pytest's own process must not stop)."""
    previous = signal.signal(signal.SIGTERM, lambda *_: None)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_sigterm_dagster_noted_outside_a_step_is_forgotten_by_it_and_heard_by_the_watch(quiet_sigterm: None) -> None:
    with StopSignalWatch() as watch:
        assert not watch.heard_stop()
        with capture_interrupts():  # what a run holds around its steps: the handler only notes the signal
            os.kill(os.getpid(), signal.SIGTERM)
        # Dagster clears its note when the run ends; the run is reported a success.
        assert not check_captured_interrupt()
        assert watch.heard_stop()
        assert watch.heard_stop()  # stays heard once read
        with pytest.raises(KeyboardInterrupt):
            watch.raise_if_stopped()


def test_other_signals_do_not_stop_and_the_previous_wakeup_fd_is_restored() -> None:
    previous = signal.signal(signal.SIGUSR1, lambda *_: None)
    try:
        with StopSignalWatch() as watch:
            os.kill(os.getpid(), signal.SIGUSR1)
            assert not watch.heard_stop()
            watch.raise_if_stopped()
        assert signal.set_wakeup_fd(-1) == -1  # nothing of the watch's is left listening
    finally:
        signal.signal(signal.SIGUSR1, previous)
