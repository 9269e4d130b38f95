"""The shipped Dagster instance files: valid for Dagster 1.13, run retries on, only the storage differs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from dagster import DagsterInstance
from dagster._core.instance.config import dagster_instance_config

DEPLOY = Path(__file__).resolve().parents[3] / "deploy"


def _load(name: str) -> dict:
    return yaml.safe_load((DEPLOY / name).read_text())


@pytest.mark.parametrize("name", ["dagster.yaml", "dagster-postgres.yaml"])
def test_instance_file_is_valid_dagster_config(name: str, tmp_path: Path) -> None:
    shutil.copy(DEPLOY / name, tmp_path / "dagster.yaml")
    config, _ = dagster_instance_config(str(tmp_path))
    assert config["telemetry"] == {"enabled": False}
    assert config["run_coordinator"]["class"] == "QueuedRunCoordinator"
    assert config["concurrency"]["runs"]["max_concurrent_runs"] >= 1
    assert config["concurrency"]["pools"]["default_limit"] == 1  # the `gpu` pool, unless set in the instance
    assert config["run_monitoring"]["enabled"] is True
    # Failed partitions are retried by Dagster, as often as the sensor's `dagster/max_retries` tag says.
    assert config["run_retries"] == {"enabled": True, "max_retries": 0, "retry_on_asset_or_op_failure": True}


def test_postgres_file_differs_only_in_storage() -> None:
    local, postgres = _load("dagster.yaml"), _load("dagster-postgres.yaml")
    storage = postgres.pop("storage")
    assert postgres == local
    db = storage["postgres"]["postgres_db"]
    assert {k: v for k, v in db.items() if isinstance(v, dict)} == {
        "hostname": {"env": "DAGSTER_PG_HOST"},
        "port": {"env": "DAGSTER_PG_PORT"},
        "username": {"env": "DAGSTER_PG_USER"},
        "password": {"env": "DAGSTER_PG_PASSWORD"},
        "db_name": {"env": "DAGSTER_PG_DB"},
    }


def test_local_instance_loads_with_the_queue_and_pool(tmp_path: Path) -> None:
    env = {"DAGSTER_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
    setup = subprocess.run([str(DEPLOY / "dagster_home.sh")], env=env, capture_output=True, text=True, check=True)
    assert "SQLite" in setup.stdout
    with DagsterInstance.from_config(env["DAGSTER_HOME"]) as instance:
        assert type(instance.run_coordinator).__name__ == "QueuedRunCoordinator"
        assert instance.event_log_storage.get_concurrency_info("gpu").limit == 1
        assert instance.run_retries_enabled and instance.run_retries_max_retries == 0
        assert instance.run_retries_retry_on_asset_or_op_failure


def test_postgres_setup_refuses_missing_variables(tmp_path: Path) -> None:
    env = {"DAGSTER_HOME": str(tmp_path / "home"), "DAGSTER_PG_HOST": "127.0.0.1", "PATH": "/usr/bin:/bin"}
    setup = subprocess.run([str(DEPLOY / "dagster_home.sh")], env=env, capture_output=True, text=True)
    assert setup.returncode == 2 and "DAGSTER_PG_PORT is not set" in setup.stderr
