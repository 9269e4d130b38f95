"""A code location for the run launcher's tests: one job whose run worker stays alive until it is killed."""

from __future__ import annotations

import time

from dagster import Definitions, job, op

# Long enough for a test to look at the live worker and kill it; short enough that a leftover ends by itself.
SLEEP_S = 120


@op
def wait_to_be_killed() -> None:
    """Sleep: the test kills this run's worker process."""
    time.sleep(SLEEP_S)


@job
def sleepy_job() -> None:
    """One op that sleeps."""
    wait_to_be_killed()


defs = Definitions(jobs=[sleepy_job])
