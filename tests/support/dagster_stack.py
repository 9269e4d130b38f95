"""A real Dagster deployment on 127.0.0.1: `dagster-daemon run` and `dagster-webserver`, driven over GraphQL.

The processes are the ones production runs (the daemon's sensor, run queue, backfill and monitoring loops; the
webserver's GraphQL API that the UI uses); only the machine is smaller. Each gets its own log file.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import httpx

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
T = TypeVar("T")

START_SENSOR = """
mutation($selector: SensorSelector!) {
  startSensor(sensorSelector: $selector) {
    __typename
    ... on Sensor { sensorState { status } }
    ... on PythonError { message }
  }
}"""
PARTITION_STATUSES = """
query($key: AssetKeyInput!) {
  assetNodeOrError(assetKey: $key) {
    ... on AssetNode {
      assetPartitionStatuses {
        ... on DefaultPartitionStatuses {
          materializedPartitions failedPartitions unmaterializedPartitions materializingPartitions
        }
      }
    }
  }
}"""
LAUNCH_BACKFILL = """
mutation($params: LaunchBackfillParams!) {
  launchPartitionBackfill(backfillParams: $params) {
    __typename
    ... on LaunchBackfillSuccess { backfillId }
    ... on PythonError { message }
    ... on InvalidSubsetError { message }
  }
}"""
BACKFILL_STATUS = """
query($id: String!) {
  partitionBackfillOrError(backfillId: $id) { ... on PartitionBackfill { status } ... on PythonError { message } }
}"""
LAUNCH_RUN = """
mutation($params: ExecutionParams!) {
  launchRun(executionParams: $params) {
    __typename
    ... on LaunchRunSuccess { run { runId } }
    ... on PythonError { message }
  }
}"""
RUNS = """
query($filter: RunsFilter) {
  runsOrError(filter: $filter) { ... on Runs { results { runId jobName status tags { key value } } } }
}"""
REPOSITORIES = "{ repositoriesOrError { ... on RepositoryConnection { nodes { name location { name } } } } }"
LOAD_ERRORS = """
{
  workspaceOrError { ... on Workspace { locationEntries { locationOrLoadError { ... on PythonError { message } } } } }
}"""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(what: str, probe: Callable[[], T | None], timeout_s: float, poll_s: float = 2.0) -> T:
    """Call `probe` until it returns something truthy; TimeoutError naming `what` after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {timeout_s:.0f}s")
        time.sleep(poll_s)


class DagsterStack:
    """Daemon + webserver for the instance in `home` and the code location in `workspace_yaml`."""

    def __init__(self, home: Path, env: Mapping[str, str], workspace_yaml: Path = REPO / "workspace.yaml") -> None:
        self.home, self.workspace_yaml = home, workspace_yaml
        self.env = {**os.environ, **env, "DAGSTER_HOME": str(home)}
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/graphql"
        self._procs: dict[str, subprocess.Popen[bytes]] = {}
        self.repository: dict[str, str] = {}

    def start(self, timeout_s: float = 600.0) -> DagsterStack:
        """Start both processes (repository root as working directory) and wait for the code location.

        The daemon starts once the webserver serves: a fresh SQLite instance's tables are created by the first
        process that opens them, and two at once race on it (`UNIQUE constraint failed: alembic_version`).
        """
        w = ["-w", str(self.workspace_yaml)]
        self._spawn("webserver", [str(BIN / "dagster-webserver"), "-h", "127.0.0.1", "-p", str(self.port), *w])

        def loaded() -> dict[str, str] | None:
            self._check_alive()
            try:
                nodes = self.graphql(REPOSITORIES)["repositoriesOrError"].get("nodes") or []
                entries = self.graphql(LOAD_ERRORS)["workspaceOrError"].get("locationEntries") or []
            except (httpx.HTTPError, RuntimeError):
                return None
            errors = [m for m in ((e["locationOrLoadError"] or {}).get("message") for e in entries) if m]
            if errors:  # the code location failed to load: no point waiting for it
                raise RuntimeError(f"the code location did not load: {errors[0][-3000:]}")
            if not nodes:
                return None
            return {"repositoryName": nodes[0]["name"], "repositoryLocationName": nodes[0]["location"]["name"]}

        self.repository = wait_for("the code location to load in the webserver", loaded, timeout_s)
        self._spawn("daemon", [str(BIN / "dagster-daemon"), "run", *w])
        return self

    def _spawn(self, name: str, cmd: list[str]) -> None:
        # Appended to: a stack started again after kill() keeps the first life's log.
        log = open(self.home / f"{name}.log", "ab")  # noqa: SIM115 - owned by the process for its life
        self._procs[name] = subprocess.Popen(
            cmd, cwd=REPO, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )

    def _check_alive(self) -> None:
        for name, proc in self._procs.items():
            if proc.poll() is not None:
                raise RuntimeError(f"{name} exited {proc.returncode}: {self.log(name)[-3000:]}")

    def log(self, name: str) -> str:
        """The output of `daemon` or `webserver` so far."""
        return (self.home / f"{name}.log").read_text(errors="replace")

    def graphql(self, query: str, variables: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """POST one GraphQL request; its `data`, or RuntimeError with the errors."""
        response = httpx.post(self.url, json={"query": query, "variables": dict(variables or {})}, timeout=60)
        body = response.json()
        if body.get("errors"):
            raise RuntimeError(body["errors"])
        return body["data"]

    def start_sensor(self, name: str) -> str:
        """Turn a sensor on, as the UI's toggle does; returns its new status."""
        selector = {**self.repository, "sensorName": name}
        result = self.graphql(START_SENSOR, {"selector": selector})["startSensor"]
        if result["__typename"] != "Sensor":
            raise RuntimeError(result)
        return str(result["sensorState"]["status"])

    def partition_statuses(self, asset: str) -> dict[str, list[str]]:
        """The partition picker's view of one asset: materialized, failed, missing, in progress."""
        node = self.graphql(PARTITION_STATUSES, {"key": {"path": [asset]}})["assetNodeOrError"]
        return dict(node["assetPartitionStatuses"])

    def launch_backfill(self, assets: list[str], partitions: list[str]) -> str:
        """An asset backfill of these partitions, as the UI's Materialize → Launch backfill sends it."""
        params = {"assetSelection": [{"path": [a]} for a in assets], "partitionNames": partitions}
        result = self.graphql(LAUNCH_BACKFILL, {"params": params})["launchPartitionBackfill"]
        if result["__typename"] != "LaunchBackfillSuccess":
            raise RuntimeError(result)
        return str(result["backfillId"])

    def launch_job(self, job: str) -> str:
        """Launch one run of an unpartitioned job, as the UI's Materialize button does; returns its run id."""
        params = {"selector": {**self.repository, "jobName": job}, "runConfigData": {}}
        result = self.graphql(LAUNCH_RUN, {"params": params})["launchRun"]
        if result["__typename"] != "LaunchRunSuccess":
            raise RuntimeError(result)
        return str(result["run"]["runId"])

    def runs(self, job: str | None = None) -> list[dict[str, Any]]:
        """Runs (newest first) as the UI's run list shows them: id, job, status, tags as a dict."""
        found = self.graphql(RUNS, {"filter": {"pipelineName": job} if job else {}})["runsOrError"]["results"]
        return [{**r, "tags": {t["key"]: t["value"] for t in r["tags"]}} for r in found]

    def backfill_status(self, backfill_id: str) -> str:
        """REQUESTED while the daemon works on it, then COMPLETED_SUCCESS, COMPLETED_FAILED, ..."""
        return str(self.graphql(BACKFILL_STATUS, {"id": backfill_id})["partitionBackfillOrError"]["status"])

    def stop(self) -> None:
        """SIGTERM both process groups (the daemon's runs and code servers with them), then SIGKILL leftovers."""
        for proc in self._procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self._procs.values():
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
        self._procs.clear()

    def kill(self) -> None:
        """SIGKILL both process groups at once (the daemon's code server and run workers with it), as a node
        restart or an OOM kill of `dagster dev` does: no process gets to record anything. `start()` again after."""
        for proc in self._procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
        for proc in self._procs.values():
            proc.wait(10)
        self._procs.clear()

    def __enter__(self) -> DagsterStack:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
