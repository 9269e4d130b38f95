"""The work-group sensor: a tick lists and asks; the inventory run it asks for reads, forms and registers.

Real ticks (`build_sensor_context`) on a real ephemeral instance, and the inventory runs they request executed
in-process with the request's own run config and tags, over a local folder of PDFs of 1, 4 and 120 pages.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path
from typing import Any

import pytest
from dagster import DagsterInstance, DagsterRun, DagsterRunStatus, RunRequest, SensorResult, build_sensor_context

from ocr_pipeline.defs.definitions import build_definitions
from ocr_pipeline.defs.materialize import run_resources
from ocr_pipeline.defs.sensors import work_group_sensor
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.stages.pdf_inventory import list_groups, read_group, scan_inputs
from ocr_pipeline.workspace.storage import open_workspace
from tests.support.builders import corpora, pdfgen

RETRY_TAGS = {"dagster/max_retries": "2", "dagster/retry_strategy": "ALL_STEPS"}


class Deployment:
    """A workspace, its sources, the resources and definitions built from them, and an ephemeral instance."""

    def __init__(self, tmp_path: Path, **settings: Any) -> None:
        self.folder = tmp_path / "in"
        self.folder.mkdir()
        settings = {"pages_per_group": 100, **settings}
        self.settings = PipelineSettings(workspace=str(tmp_path / "ws"), pdfs=[str(self.folder)], **settings)
        self.resources = run_resources(self.settings)
        self.defs = build_definitions(self.resources, with_automation=False)
        self.instance = DagsterInstance.ephemeral()
        self.workspace = open_workspace(self.settings.workspace, None)
        self.cursor: str | None = None

    def tick(self) -> SensorResult:
        with build_sensor_context(instance=self.instance, resources=self.resources, cursor=self.cursor) as context:
            result = work_group_sensor(context)
        self.cursor = result.cursor
        return result

    def run_inventory(self, request: RunRequest) -> str:
        """Execute the requested inventory run as the daemon would launch it; returns its run id."""
        job = self.defs.resolve_job_def(request.job_name or "")
        result = job.execute_in_process(run_config=request.run_config, instance=self.instance, tags=request.tags)
        assert result.success
        return result.run_id

    def add_run(self, job: str, group: str, status: DagsterRunStatus) -> None:
        self.instance.add_run(DagsterRun(job_name=job, tags={"dagster/partition": group}, status=status))


def _split(result: SensorResult) -> tuple[list[RunRequest], list[RunRequest]]:
    """(inventory requests, ocr requests) of one tick."""
    inventory = [r for r in result.run_requests if r.job_name == "inventory_job"]
    ocr = [r for r in result.run_requests if r.job_name == "ocr_job"]
    assert len(inventory) + len(ocr) == len(result.run_requests)
    return inventory, ocr


def test_tick_lists_then_the_inventory_run_forms_and_registers_and_the_next_tick_runs_the_groups(
    tmp_path: Path,
) -> None:
    dep = Deployment(tmp_path)
    for name, body in corpora.mixed_pdfs().items():
        (dep.folder / name).write_bytes(body)
    [inventory], ocr = _split(dep.tick())
    # The tick only listed: nothing read, no group formed, no partition registered.
    assert ocr == []
    assert list(dep.workspace.list("inventory/")) == [] and dep.instance.get_dynamic_partitions("work_groups") == []
    config = inventory.run_config["ops"]["pdf_inventory"]["config"]
    assert config == {"pdfs": [str(dep.folder)], "start_after": {}, "max_new_inputs": 20_000}
    assert inventory.tags == RETRY_TAGS
    run_id = dep.run_inventory(inventory)
    # The run read the inputs (the broken one is rejected there), formed the groups, and registered them.
    assert list_groups(dep.workspace) == ["g000001", "g000002"]
    assert dep.instance.get_dynamic_partitions("work_groups") == ["g000001", "g000002"]
    logs = [e.user_message for e in dep.instance.all_logs(run_id)]
    assert any(m.startswith(f"scanning {dep.folder}") for m in logs)
    assert any("4 new inputs in 2 new groups, 2 partitions registered" in m for m in logs)

    inventory, ocr = _split(dep.tick())
    assert inventory == []  # everything listed is known now
    assert [(r.partition_key, r.run_key) for r in ocr] == [("g000001", "g000001:first"), ("g000002", "g000002:first")]
    assert all(r.tags == RETRY_TAGS for r in ocr)

    # Done is the marker (and its shard): a done group gets no run.
    dep.workspace.write_bytes("done/g000001.json", b"{}")
    dep.workspace.write_bytes("dolma/g000001.jsonl.gz", b"")
    assert [r.partition_key for r in _split(dep.tick())[1]] == ["g000002"]
    # Any run of the partition counts, a UI backfill's too; a failed one is Dagster's to retry, not the sensor's.
    dep.add_run("__ASSET_JOB", "g000002", DagsterRunStatus.STARTED)
    assert dep.tick().run_requests == []
    dep.add_run("ocr_job", "g000002", DagsterRunStatus.FAILURE)
    assert dep.tick().run_requests == []


def test_bounds_are_read_at_each_tick_and_a_bounded_listing_goes_on_next_tick(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dep = Deployment(tmp_path, pages_per_group=1)
    for i in range(5):
        (dep.folder / f"d{i}.pdf").write_bytes(corpora.numbered_pdf(f"d{i}", 1))
    # Set after the sensor module was imported: only a tick that reads the settings itself sees them.
    monkeypatch.setenv("OCR_PIPELINE_SENSOR_MAX_NEW_INPUTS", "2")
    monkeypatch.setenv("OCR_PIPELINE_SENSOR_MAX_RUNS", "1")
    monkeypatch.setenv("OCR_PIPELINE_SENSOR_MAX_RETRIES", "4")
    keys = []
    for expected_groups in (["g000001", "g000002"], ["g000001", "g000002", "g000003", "g000004"]):
        [inventory], ocr = _split(dep.tick())
        assert inventory.run_config["ops"]["pdf_inventory"]["config"]["max_new_inputs"] == 2
        assert inventory.tags["dagster/max_retries"] == "4"
        keys.append(inventory.run_key)
        dep.run_inventory(inventory)
        assert dep.instance.get_dynamic_partitions("work_groups") == expected_groups
    assert keys[0] != keys[1]  # another window, another run (the daemon launches a run key once)
    [inventory], ocr = _split(dep.tick())
    assert len(ocr) == 1  # sensor_max_runs
    dep.run_inventory(inventory)
    inventory, ocr = _split(dep.tick())
    assert inventory == [] and len(dep.instance.get_dynamic_partitions("work_groups")) == 5


def test_no_listing_while_an_inventory_run_is_in_progress(tmp_path: Path) -> None:
    dep = Deployment(tmp_path)
    (dep.folder / "a.pdf").write_bytes(corpora.numbered_pdf("a", 1))
    dep.instance.add_run(DagsterRun(job_name="inventory_job", status=DagsterRunStatus.STARTED))
    assert dep.tick().run_requests == []
    assert list(dep.workspace.list("inventory/")) == []


def test_groups_a_scan_formed_but_did_not_register_get_an_inventory_run_that_registers_them(tmp_path: Path) -> None:
    dep = Deployment(tmp_path)
    (dep.folder / "a.pdf").write_bytes(corpora.numbered_pdf("a", 1))
    # A scan that died after writing its group: the inputs are known, the partition is not.
    scan_inputs(dep.settings.pdfs, dep.workspace, 100)
    [inventory], ocr = _split(dep.tick())
    assert ocr == [] and inventory.run_key.startswith("inventory:register:")
    dep.run_inventory(inventory)
    assert dep.instance.get_dynamic_partitions("work_groups") == ["g000001"]
    assert [r.partition_key for r in dep.tick().run_requests] == ["g000001"]


def test_an_archive_cut_short_by_the_expansion_budget_is_scanned_again_until_done(tmp_path: Path) -> None:
    members = [corpora.numbered_pdf(f"m{i}", 1) for i in range(3)]
    # Room for one member per run: the first run extracts m0 and refuses m1, so m2 is left for the next run.
    dep = Deployment(tmp_path, max_archive_bytes=max(len(m) for m in members) + 10)
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        for i, member in enumerate(members):
            pdfgen.add_tar_member(tar, f"m{i}.pdf", member)
    (dep.folder / "a.tar.gz").write_bytes(data.getvalue())
    [first] = _split(dep.tick())[0]
    first_run = dep.run_inventory(first)
    # No listing shows the archive's remaining member: the inventory run's `more_to_scan` does.
    [again], _ = _split(dep.tick())
    assert again.run_key == f"inventory:after:{first_run}"
    assert _split(dep.tick())[0] == []  # asked once: were it to fail, listing would go on, not stall on it
    dep.run_inventory(again)
    assert _split(dep.tick())[0] == []
    rows = [row for g in list_groups(dep.workspace) for row in read_group(dep.workspace, g)]
    archive = dep.folder.resolve() / "a.tar.gz"
    assert {(r["source"], r["reason"]) for r in rows} == {
        (f"{archive}::m0.pdf", None), (f"{archive}::m1.pdf", "archive_budget_exceeded"), (f"{archive}::m2.pdf", None)
    }  # fmt: skip
