"""The shipped run launcher's health check, on a real instance (the shipped instance file) and real processes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from dagster import DagsterEvent, DagsterEventType, DagsterInstance, job, op
from dagster._core.events import EngineEventData
from dagster._core.launcher import WorkerStatus
from dagster._core.storage.dagster_run import DagsterRun

from ocr_pipeline.defs.run_launcher import WORKER_HOST_TAG, ProcessCheckedRunLauncher, worker_host
from ocr_pipeline.runtime.process_clock import process_start_time

DEPLOY = Path(__file__).resolve().parents[3] / "deploy"
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads process start times from /proc")


@op
def noop() -> None:
    """Nothing: the run is only a record here."""


@job
def one_op_job() -> None:
    noop()


@pytest.fixture
def instance(tmp_path: Path) -> Iterator[DagsterInstance]:
    home = tmp_path / "home"
    env = {"DAGSTER_HOME": str(home), "PATH": "/usr/bin:/bin"}
    subprocess.run([str(DEPLOY / "dagster_home.sh")], env=env, capture_output=True, check=True)
    with DagsterInstance.from_config(str(home)) as loaded:
        yield loaded


def _run(instance: DagsterInstance, host: str | None = None) -> DagsterRun:
    run = instance.create_run_for_job(one_op_job)
    if host is not None:
        instance.add_run_tags(run.run_id, {WORKER_HOST_TAG: host})
    # As run monitoring passes it: read back from the run storage, tags included.
    stored = instance.get_run_by_id(run.run_id)
    assert stored is not None
    return stored


def _log_worker(instance: DagsterInstance, run: DagsterRun, pid: int, at: float | None = None) -> None:
    """The engine event a run worker writes first, as dagster/_grpc/impl.py words it."""
    event = DagsterEvent(
        event_type_value=DagsterEventType.ENGINE_EVENT.value,
        job_name=run.job_name,
        message=f"Started process for run (pid: {pid}).",
        event_specific_data=EngineEventData.in_process(pid),
    )
    instance.report_dagster_event(event, run_id=run.run_id, timestamp=at)


def test_the_shipped_instance_uses_the_checking_launcher(instance: DagsterInstance) -> None:
    assert isinstance(instance.run_launcher, ProcessCheckedRunLauncher)
    assert instance.run_launcher.supports_check_run_worker_health
    assert instance.run_monitoring_settings["free_slots_after_run_end_seconds"] > 0
    assert instance.run_monitoring_max_resume_run_attempts == 0


def test_a_live_worker_is_running_and_a_killed_one_is_not_found(instance: DagsterInstance) -> None:
    worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        run = _run(instance, socket.gethostname())
        _log_worker(instance, run, worker.pid)
        health = instance.run_launcher.check_run_worker_health(run)
        assert health.status == WorkerStatus.RUNNING and health.run_worker_id == str(worker.pid)
    finally:
        worker.kill()
        worker.wait()
    health = instance.run_launcher.check_run_worker_health(run)
    assert health.status == WorkerStatus.NOT_FOUND
    assert f"the run worker (pid {worker.pid} on {socket.gethostname()}) is gone" in str(health.msg)


def test_a_pid_taken_by_a_newer_process_is_not_the_worker(instance: DagsterInstance) -> None:
    # The machine restarted and another process got the logged pid: it started after the pid was logged.
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        started = process_start_time(other.pid)
        assert started is not None and abs(started - time.time()) < 30
        run = _run(instance, socket.gethostname())
        _log_worker(instance, run, other.pid, at=started - 60)
        assert instance.run_launcher.check_run_worker_health(run).status == WorkerStatus.NOT_FOUND
    finally:
        other.kill()
        other.wait()


def test_a_zombie_is_no_worker() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 30
    while Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert process_start_time(child.pid) is None  # exited, not yet reaped
    child.wait()
    assert process_start_time(child.pid) is None
    assert process_start_time(os.getpid()) is not None


def test_a_worker_that_cannot_be_checked_from_here_counts_as_running(instance: DagsterInstance) -> None:
    # Never failed on a guess: elsewhere (another host), before its pid is logged, or not launched by this launcher.
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    elsewhere = _run(instance, "another-host.example")
    _log_worker(instance, elsewhere, gone.pid)
    health = instance.run_launcher.check_run_worker_health(elsewhere)
    assert health.status == WorkerStatus.RUNNING and "not checked from" in str(health.msg)
    assert instance.run_launcher.check_run_worker_health(_run(instance, socket.gethostname())).status == (
        WorkerStatus.RUNNING
    )
    assert instance.run_launcher.check_run_worker_health(_run(instance)).status == WorkerStatus.RUNNING


def test_the_worker_host_is_ours_behind_a_loopback_code_server() -> None:
    assert worker_host("localhost") == socket.gethostname()
    assert worker_host("127.0.0.1") == socket.gethostname()
    assert worker_host(None) == socket.gethostname()
    assert worker_host("code-server.internal") == "code-server.internal"
