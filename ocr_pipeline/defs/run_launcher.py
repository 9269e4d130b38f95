"""The shipped instance's run launcher: Dagster's DefaultRunLauncher, with run workers that run monitoring can check.

DefaultRunLauncher starts each run as a process of the code server and cannot say whether that process still
exists, so a run whose process was SIGKILLed (an OOM kill, a node restart, `dagster dev` killed) stays STARTED for
ever, holding one of the queue's `max_concurrent_runs` slots. This launcher answers run monitoring's health check
from the pid the run worker logs as it starts ("Started process for run (pid: N)"), on the host the run was launched
on: a run whose process is gone is marked failed, and Dagster's run retries start it again. A run it cannot judge
(launched on another host) is left to the instance's `run_monitoring.max_runtime_seconds`.
"""

from __future__ import annotations

import socket

from dagster import DagsterEventType, DefaultRunLauncher
from dagster._core.launcher import CheckRunHealthResult, LaunchRunContext, WorkerStatus
from dagster._core.remote_representation.code_location import GrpcServerCodeLocation
from dagster._core.storage.dagster_run import DagsterRun

from ocr_pipeline.runtime.process_clock import process_start_time

# The host whose processes run the run's worker: set before launch; a health check elsewhere cannot see its pids.
WORKER_HOST_TAG = "ocr_pipeline/run_worker_host"
LOOPBACK = {"localhost", "127.0.0.1", "::1", ""}
STARTED_PROCESS = "Started process for run"
# Start times are known to a second (Linux's boot time, ps's elapsed time): a process that started up to this much
# after its pid was logged is still the one that logged it.
CLOCK_SLACK_S = 2.0


def worker_host(grpc_host: str | None) -> str:
    """The host a run launched through a code server at `grpc_host` runs on: ours when it listens on loopback."""
    host = grpc_host or ""
    return socket.gethostname() if host in LOOPBACK else host


def code_server_host(context: LaunchRunContext) -> str | None:
    """The host of the code server DefaultRunLauncher will start the run through (None when it cannot tell)."""
    origin = context.dagster_run.remote_job_origin
    if context.workspace is None or origin is None:
        return None
    location = context.workspace.get_code_location(origin.repository_origin.code_location_origin.location_name)
    return location.client.host if isinstance(location, GrpcServerCodeLocation) else None


class ProcessCheckedRunLauncher(DefaultRunLauncher):
    """DefaultRunLauncher whose `check_run_worker_health` tells run monitoring when a run's process is gone."""

    @property
    def supports_check_run_worker_health(self) -> bool:
        """Run monitoring asks this launcher about every STARTED run at each poll."""
        return True

    def launch_run(self, context: LaunchRunContext) -> None:
        """Record the host whose processes the run's worker will be among, then launch as DefaultRunLauncher does."""
        # Tagged first: a daemon killed between the tag and the launch leaves a run that never started (run
        # monitoring's start timeout fails it), never a started run that no health check can judge.
        host = code_server_host(context)
        if host is not None:
            self._instance.add_run_tags(context.dagster_run.run_id, {WORKER_HOST_TAG: worker_host(host)})
        super().launch_run(context)

    def _logged_worker(self, run_id: str) -> tuple[int, float] | None:
        """(pid, when it was logged) from the run worker's first engine event, if it wrote it."""
        records = self._instance.get_records_for_run(
            run_id, of_type=DagsterEventType.ENGINE_EVENT, limit=20, ascending=True
        ).records
        for record in records:
            entry = record.event_log_entry
            event = entry.dagster_event
            if event is None or STARTED_PROCESS not in entry.message or event.engine_event_data is None:
                continue
            pid = event.engine_event_data.metadata.get("pid")
            if pid is not None:
                return int(str(pid.value)), entry.timestamp
        return None

    def check_run_worker_health(self, run: DagsterRun) -> CheckRunHealthResult:
        """RUNNING while the run's process exists (or cannot be checked from here); NOT_FOUND once it is gone."""
        host, here = run.tags.get(WORKER_HOST_TAG), socket.gethostname()
        if host is None:
            return CheckRunHealthResult(WorkerStatus.RUNNING, "not launched by this launcher: not checked")
        if host != here:
            return CheckRunHealthResult(WorkerStatus.RUNNING, f"run worker on {host}: not checked from {here}")
        logged = self._logged_worker(run.run_id)
        if logged is None:
            # The worker logs its pid before it marks the run STARTED, so this is a run being started right now.
            return CheckRunHealthResult(WorkerStatus.RUNNING, "the run worker has not logged its pid yet")
        pid, logged_at = logged
        started = process_start_time(pid)
        if started is None or started > logged_at + CLOCK_SLACK_S:
            # No such process, or a newer one that reuses the pid (after a restart of the machine).
            return CheckRunHealthResult(
                WorkerStatus.NOT_FOUND,
                f"the run worker (pid {pid} on {host}) is gone: killed, or its machine restarted",
            )
        return CheckRunHealthResult(WorkerStatus.RUNNING, f"pid {pid} on {host}", run_worker_id=str(pid))
