"""The shipped run launcher on a real code server: a run launched through it is tagged with its worker's host before
the launch, its live worker counts as running, and once the worker is SIGKILLed Dagster's own run monitoring marks
the run failed (what DefaultRunLauncher never did)."""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from dagster import DagsterInstance, DagsterRunStatus
from dagster._core.launcher import LaunchRunContext, WorkerStatus
from dagster._core.storage.dagster_run import RunRecord
from dagster._core.workspace.context import WorkspaceProcessContext, WorkspaceRequestContext
from dagster._core.workspace.load_target import ModuleTarget
from dagster._daemon.monitoring.run_monitoring import monitor_started_run

from ocr_pipeline.defs.run_launcher import WORKER_HOST_TAG, ProcessCheckedRunLauncher
from tests.support.dagster_stack import REPO, wait_for
from tests.support.launcher_jobs import sleepy_job

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads process start times from /proc")
LOCATION = "launcher_jobs"


@pytest.fixture
def instance(tmp_path: Path) -> Iterator[DagsterInstance]:
    home = tmp_path / "home"
    setup = subprocess.run([str(REPO / "deploy" / "dagster_home.sh")], env={**os.environ, "DAGSTER_HOME": str(home)},
                           capture_output=True, text=True)  # fmt: skip
    assert setup.returncode == 0, setup.stderr
    with DagsterInstance.from_config(str(home)) as loaded:
        yield loaded


@pytest.fixture
def workspace(instance: DagsterInstance) -> Iterator[WorkspaceRequestContext]:
    """A real code server (`dagster api grpc`) for tests/support/launcher_jobs.py, as the daemon starts one."""
    target = ModuleTarget("tests.support.launcher_jobs", None, str(REPO), LOCATION)
    with WorkspaceProcessContext(instance, target) as process_context:
        context = process_context.create_request_context()
        assert not context.get_code_location_error(LOCATION), context.get_code_location_error(LOCATION)
        yield context


def _new_run(instance: DagsterInstance, workspace: WorkspaceRequestContext) -> str:
    remote = workspace.get_code_location(LOCATION).get_repository("__repository__").get_full_job(sleepy_job.name)
    run = instance.create_run_for_job(
        sleepy_job, remote_job_origin=remote.get_remote_origin(), job_code_origin=remote.get_python_origin()
    )
    return run.run_id


def _stat_fields(pid: int) -> list[str]:
    """/proc/PID/stat's fields after the command name (which may hold spaces): state, ppid, ..."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def _parent_pid(pid: int) -> int:
    """The pid of the process that started `pid` (the run worker's code server)."""
    return int(_stat_fields(pid)[1])


def _state(pid: int) -> str:
    """The process's state letter ('Z' for a zombie its parent has not reaped yet)."""
    try:
        return _stat_fields(pid)[0]
    except FileNotFoundError:
        return "gone"


def _record(instance: DagsterInstance, run_id: str) -> RunRecord:
    record = instance.get_run_record_by_id(run_id)
    assert record is not None
    return record


def test_a_killed_run_worker_is_marked_failed_by_run_monitoring(
    instance: DagsterInstance, workspace: WorkspaceRequestContext
) -> None:
    assert isinstance(instance.run_launcher, ProcessCheckedRunLauncher)
    run_id = _new_run(instance, workspace)
    instance.launch_run(run_id, workspace)
    assert _record(instance, run_id).dagster_run.tags[WORKER_HOST_TAG] == socket.gethostname()

    started = wait_for("the run to start", lambda: _record(instance, run_id).dagster_run.status ==
                       DagsterRunStatus.STARTED or None, 120, 0.5)  # fmt: skip
    assert started
    run = _record(instance, run_id).dagster_run
    alive = instance.run_launcher.check_run_worker_health(run)
    assert alive.status == WorkerStatus.RUNNING and alive.run_worker_id
    pid = int(alive.run_worker_id)

    # The whole family goes, as when `dagster dev` or its node is SIGKILLed: the code server first, since a live
    # one notices its own child's death within half a second and fails the run itself (its orphan check).
    server = _parent_pid(pid)
    os.kill(server, signal.SIGKILL)
    wait_for("the code server to go", lambda: not Path(f"/proc/{server}/stat").exists() or
             _state(server) == "Z" or None, 30, 0.1)  # fmt: skip
    os.kill(pid, signal.SIGKILL)  # an OOM kill: the worker records nothing
    wait_for("the worker to go", lambda: instance.run_launcher.check_run_worker_health(run).status ==
             WorkerStatus.NOT_FOUND or None, 30, 0.2)  # fmt: skip
    assert _record(instance, run_id).dagster_run.status == DagsterRunStatus.STARTED  # no one else ends it

    # One poll of Dagster's run monitoring, as the daemon makes it every poll_interval_seconds.
    monitor_started_run(instance, workspace, _record(instance, run_id), logging.getLogger("test"))
    failed = _record(instance, run_id).dagster_run
    assert failed.status == DagsterRunStatus.FAILURE
    messages = [e.message for e in instance.all_logs(run_id) if e.dagster_event and e.dagster_event.is_run_failure]
    assert any(f"the run worker (pid {pid} on {socket.gethostname()}) is gone" in m for m in messages), messages


def test_the_run_is_tagged_with_its_host_before_the_launch(
    instance: DagsterInstance, workspace: WorkspaceRequestContext
) -> None:
    # The code server is gone when the launch is tried (as when a daemon dies mid-launch): the launch fails, and
    # the run already carries its host, so a later health check can judge it.
    location = workspace.get_code_location(LOCATION)
    run_id = _new_run(instance, workspace)
    location.client.shutdown_server()  # type: ignore[attr-defined]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            location.client.ping("")  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - gone
            break
        time.sleep(0.2)
    run = _record(instance, run_id).dagster_run
    with pytest.raises(Exception):  # noqa: B017 - whatever gRPC raises for a server that is gone
        instance.run_launcher.launch_run(LaunchRunContext(dagster_run=run, workspace=workspace))
    assert _record(instance, run_id).dagster_run.tags[WORKER_HOST_TAG] == socket.gethostname()
