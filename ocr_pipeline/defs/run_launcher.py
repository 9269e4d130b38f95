"""The shipped instance's run launcher: Dagster's DefaultRunLauncher, with run workers that run monitoring can check.

DefaultRunLauncher starts each run as a process of the code server and cannot say whether that process still
exists, so a run whose process was SIGKILLed (an OOM kill, a node restart, `dagster dev` killed) stays STARTED for
ever, holding one of the queue's `max_concurrent_runs` slots. This launcher answers run monitoring's health check
from the pid the run worker logs as it starts ("Started process for run (pid: N)"), on the host the run was launched
on: a run whose process is gone is marked failed, and Dagster's run retries start it again.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path

from dagster import DagsterEventType, DefaultRunLauncher
from dagster._core.launcher import CheckRunHealthResult, LaunchRunContext, WorkerStatus
from dagster._core.storage.dagster_run import DagsterRun
from dagster._core.storage.tags import GRPC_INFO_TAG

# The host whose processes run the run's worker: set at launch; a health check elsewhere cannot see its pids.
WORKER_HOST_TAG = "ocr_pipeline/run_worker_host"
LOOPBACK = {"localhost", "127.0.0.1", "::1", ""}
STARTED_PROCESS = "Started process for run"
# /proc/stat's boot time has a resolution of one second: a process logged up to this much before its start is ours.
CLOCK_SLACK_S = 2.0


def process_start_time(pid: int) -> float | None:
    """When process `pid` started (epoch seconds), or None when there is none (or only its zombie).

    Outside Linux the start time is unknown: 0.0 for a process that exists.
    """
    stat = Path(f"/proc/{pid}/stat")
    if sys.platform.startswith("linux") and Path("/proc/self/stat").exists():
        try:
            # The command name (field 2) may hold spaces and parentheses: fields are counted after its last ")".
            fields = stat.read_text().rsplit(")", 1)[1].split()
            boot = next(float(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                        if line.startswith("btime "))  # fmt: skip
        except (OSError, IndexError, StopIteration, ValueError):
            return None
        if fields[0] in ("Z", "X"):
            return None
        return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return 0.0
    return 0.0


def worker_host(grpc_info: str | None) -> str:
    """The host a run launched through this code server runs on: ours when the server listens on loopback."""
    host = str(json.loads(grpc_info or "{}").get("host") or "")
    return socket.gethostname() if host in LOOPBACK else host


class ProcessCheckedRunLauncher(DefaultRunLauncher):
    """DefaultRunLauncher whose `check_run_worker_health` tells run monitoring when a run's process is gone."""

    @property
    def supports_check_run_worker_health(self) -> bool:
        """Run monitoring asks this launcher about every STARTED run at each poll."""
        return True

    def launch_run(self, context: LaunchRunContext) -> None:
        """Launch as DefaultRunLauncher does, then record the host whose processes the run's worker is among."""
        super().launch_run(context)
        run_id = context.dagster_run.run_id
        launched = self._instance.get_run_by_id(run_id)
        grpc_info = launched.tags.get(GRPC_INFO_TAG) if launched is not None else None
        self._instance.add_run_tags(run_id, {WORKER_HOST_TAG: worker_host(grpc_info)})

    def _logged_worker(self, run_id: str) -> tuple[int, float] | None:
        """(pid, when it was logged) from the run worker's first engine event, if it wrote it."""
        records = self._instance.get_records_for_run(
            run_id, of_type=DagsterEventType.ENGINE_EVENT, limit=20, ascending=True
        ).records
        for record in records:
            entry = record.event_log_entry
            event = entry.dagster_event
            if event is None or STARTED_PROCESS not in entry.message:
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
