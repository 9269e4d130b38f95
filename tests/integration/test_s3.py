"""S3 end to end against a real S3 server (SeaweedFS on 127.0.0.1): storage, CLI, sensor, reruns, faults."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from dagster import DagsterInstance, DagsterRunStatus, Definitions, build_sensor_context
from dagster._core.test_utils import create_run_for_test

from ocr_pipeline.defs.definitions import defs as load_project_defs
from ocr_pipeline.defs.materialize import run_resources
from ocr_pipeline.defs.sensors import work_group_sensor
from ocr_pipeline.local_run import run_local
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.workspace.s3 import S3Workspace
from ocr_pipeline.workspace.tables import read_gzip_jsonl, read_jsonl
from tests.support.builders import corpora, pdfgen
from tests.support.fault_proxy import FaultProxy
from tests.support.s3_server import READER, SeaweedS3

# Page counts of the corpus's PDFs: the estimate (their sampled mean) is right for none of them.
MIXED_PAGES = (1, 120, 3)


@pytest.fixture(scope="module")
def s3() -> Iterator[SeaweedS3]:
    with SeaweedS3() as server:
        yield server


@pytest.fixture
def s3_env(s3: SeaweedS3, monkeypatch: pytest.MonkeyPatch) -> SeaweedS3:
    """Workspace credentials through the standard AWS variables; inputs read with a read-only identity."""
    for key, value in s3.env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("OCR_PIPELINE_INPUT_AWS_ACCESS_KEY_ID", READER[0])
    monkeypatch.setenv("OCR_PIPELINE_INPUT_AWS_SECRET_ACCESS_KEY", READER[1])
    return s3


def _bucket(s3: SeaweedS3, name: str) -> str:
    client = s3.client()
    with contextlib.suppress(client.exceptions.BucketAlreadyOwnedByYou):
        client.create_bucket(Bucket=name)
    return name


def _upload_corpus(s3: SeaweedS3, bucket: str, prefix: str, count: int = 3) -> list[str]:
    """doc0 (1 page), doc1 (120 pages), doc2 (3 pages), ... and a broken one: the scan's page estimate is wrong
    for every one of them, as on a real corpus."""
    client = s3.client()
    keys = []
    for i in range(count):
        key = f"{prefix}doc{i}.pdf"
        body = corpora.numbered_pdf(f"doc{i}", MIXED_PAGES[i % len(MIXED_PAGES)])
        client.put_object(Bucket=_bucket(s3, bucket), Key=key, Body=body)
        keys.append(key)
    client.put_object(Bucket=bucket, Key=f"{prefix}broken.pdf", Body=b"%PDF-1.4 truncated")
    return keys


def _shards(ws: S3Workspace) -> dict[str, bytes]:
    return {k: ws.read_bytes(k) for k in ws.list("dolma/")}


def test_workspace_operations(s3: SeaweedS3) -> None:
    ws = S3Workspace(f"s3://{_bucket(s3, 'ws-ops')}/run/a", s3.client())
    ws.write_bytes("dolma/g000001.jsonl.gz", b"one")
    ws.write_bytes("dolma/g000002.jsonl.gz", b"two")
    assert ws.exists("dolma/g000001.jsonl.gz") and not ws.exists("dolma/g9.jsonl.gz")
    assert list(ws.list("dolma/")) == ["dolma/g000001.jsonl.gz", "dolma/g000002.jsonl.gz"]
    assert ws.read_bytes("dolma/g000002.jsonl.gz") == b"two"
    with pytest.raises(FileNotFoundError):
        ws.read_bytes("nope")
    with pytest.raises(ValueError):
        ws.write_bytes("../escape", b"x")
    ws.delete("dolma/g000001.jsonl.gz")
    assert list(ws.list("dolma/")) == ["dolma/g000002.jsonl.gz"]


def test_cli_runs_s3_to_s3_and_reruns_exactly(s3_env: SeaweedS3, tmp_path: Path) -> None:
    _upload_corpus(s3_env, "pdfs-in", "corpus/")
    _bucket(s3_env, "ocr-ws")
    cmd = [sys.executable, "-m", "ocr_pipeline.cli", "run", "s3://ocr-ws/run", "--pdfs", "s3://pdfs-in/corpus/*.pdf",
           "--markdown", "--pages_per_group", "4", "--quiet"]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=os.environ.copy())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "documents:      3" in proc.stdout and "corrupt_pdf=1" in proc.stdout
    ws = S3Workspace("s3://ocr-ws/run", s3_env.client())
    first = _shards(ws)
    docs = [d for data in first.values() for d in read_gzip_jsonl(data)]
    assert sorted(d["metadata"]["Source-File"] for d in docs) == [f"s3://pdfs-in/corpus/doc{i}.pdf" for i in range(3)]
    assert ws.exists("markdown/doc0.md")
    ledger = [line for k in ws.list("rejected/") if k.endswith(".jsonl") for line in read_jsonl(ws, k)]
    assert [(line["source"], line["reason"]) for line in ledger] == [("s3://pdfs-in/corpus/broken.pdf", "corrupt_pdf")]
    # The input bucket is read with a read-only identity: nothing was written there.
    assert sorted(o["Key"] for o in s3_env.client().list_objects_v2(Bucket="pdfs-in")["Contents"]) == [
        "corpus/broken.pdf", "corpus/doc0.pdf", "corpus/doc1.pdf", "corpus/doc2.pdf"]  # fmt: skip
    # Rerun of every group from scratch: byte-identical shards, pages served from the memo.
    for key in first:
        ws.delete(key)
    settings = PipelineSettings(workspace="s3://ocr-ws/run", pdfs=["s3://pdfs-in/corpus/*.pdf"], pages_per_group=4)
    summary = run_local(settings, show_progress=False)
    assert summary.ok and summary.groups == len(first)
    assert _shards(ws) == first


def test_sensor_registers_groups_and_requests_each_run_once(s3_env: SeaweedS3) -> None:
    _upload_corpus(s3_env, "sensor-in", "new/", count=2)
    _bucket(s3_env, "sensor-ws")
    settings = PipelineSettings(workspace="s3://sensor-ws/w", pdfs=["s3://sensor-in/new/"], pages_per_group=3)
    resources = run_resources(settings)
    project_defs = load_project_defs()
    defs = Definitions(
        assets=project_defs.assets, asset_checks=project_defs.asset_checks, jobs=project_defs.jobs, resources=resources
    )
    job = defs.resolve_job_def("ocr_job")
    instance = DagsterInstance.ephemeral()

    def tick(cursor: str | None) -> tuple[int, list[str], str | None]:
        """(inventory runs, groups run, cursor) of one tick, each requested run executed as the daemon would."""
        with build_sensor_context(instance=instance, resources=resources, cursor=cursor) as context:
            result = work_group_sensor(context)
        inventory = [r for r in result.run_requests if r.job_name == "inventory_job"]
        for run in inventory:  # it reads the inputs, forms the groups and registers them
            inventory_job = defs.resolve_job_def("inventory_job")
            assert inventory_job.execute_in_process(run_config=run.run_config, instance=instance, tags=run.tags).success
        groups = [r for r in result.run_requests if r.job_name == "ocr_job"]
        for run in groups:
            tags = {**run.tags, "dagster/partition": run.partition_key}
            assert job.execute_in_process(partition_key=run.partition_key, instance=instance, tags=tags).success
        return len(inventory), [r.partition_key for r in groups], result.cursor

    scans, ran, cursor = tick(None)
    assert scans == 1 and ran == []  # the tick only lists; its inventory run forms and registers the groups
    scans, ran, cursor = tick(cursor)
    # Three inputs, each estimated at 60 pages (the sampled mean of 1 and 120), in groups of three pages: one each.
    assert ran == ["g000001", "g000002", "g000003"] and instance.get_dynamic_partitions("work_groups") == ran
    ws = S3Workspace("s3://sensor-ws/w", s3_env.client())
    assert sorted(ws.list("dolma/")) == [f"dolma/{g}.jsonl.gz" for g in ran]
    scans, ran, cursor = tick(cursor)
    assert (scans, ran) == (0, [])
    s3_env.client().put_object(Bucket="sensor-in", Key="new/later.pdf", Body=pdfgen.text_pdf([["Late arrival."]]))
    scans, ran, cursor = tick(cursor)
    assert (scans, ran) == (1, [])
    scans, ran, cursor = tick(cursor)
    assert ran == ["g000004"]
    scans, ran, cursor = tick(cursor)
    assert (scans, ran) == (0, [])
    # A failed run is retried by Dagster (its `dagster/max_retries` tag), never a second request from the sensor.
    ws.delete("dolma/g000004.jsonl.gz")
    create_run_for_test(instance, job_name="ocr_job", status=DagsterRunStatus.FAILURE,
                        tags={"dagster/partition": "g000004"})  # fmt: skip
    with build_sensor_context(instance=instance, resources=resources, cursor=cursor) as context:
        result = work_group_sensor(context)
    assert result.run_requests == []


def test_throttling_and_dropped_connections_are_retried(s3_env: SeaweedS3, monkeypatch: pytest.MonkeyPatch) -> None:
    _upload_corpus(s3_env, "slow-in", "c/", count=2)
    _bucket(s3_env, "slow-ws")

    def fault(n: int) -> str | None:
        # One request in 25 throttled, one in 37 dropped (~380 requests: ~15 and ~10). Throttling every 8th made
        # botocore's adaptive limiter crawl: 125 s of the suite for the same proof.
        return "503" if n % 25 == 0 else ("drop" if n % 37 == 0 else None)

    with FaultProxy(s3_env.endpoint, fault) as proxy:
        monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.url)
        settings = PipelineSettings(workspace="s3://slow-ws/w", pdfs=["s3://slow-in/c/"])
        summary = run_local(settings, show_progress=False)
    assert summary.ok and summary.documents == 2
    assert proxy.injected["503"] >= 8 and proxy.injected["drop"] >= 4


def test_vanished_input_is_a_rejection(s3_env: SeaweedS3) -> None:
    keys = _upload_corpus(s3_env, "gone-in", "c/", count=2)
    _bucket(s3_env, "gone-ws")
    settings = PipelineSettings(workspace="s3://gone-ws/w", pdfs=["s3://gone-in/c/"])
    from ocr_pipeline.defs.materialize import run_group
    from ocr_pipeline.stages.pdf_inventory import scan_inputs

    ws = S3Workspace("s3://gone-ws/w", s3_env.client())
    [group] = scan_inputs(settings.pdfs, ws, 500, input_client=s3_env.client(READER)).new_groups
    s3_env.client().delete_object(Bucket="gone-in", Key=keys[0])
    assert run_group(settings, group)
    reasons = {line["source"]: line["reason"] for line in read_jsonl(ws, f"rejected/{group}.jsonl")}
    assert reasons[f"s3://gone-in/{keys[0]}"] == "input_missing"
    assert len(read_gzip_jsonl(ws.read_bytes(f"dolma/{group}.jsonl.gz"))) == 1


def test_killed_run_resumes_without_loss_or_duplicates(s3_env: SeaweedS3) -> None:
    client = s3_env.client()
    _bucket(s3_env, "kill-in")
    _bucket(s3_env, "kill-ws")
    for i in range(4):
        scan = pdfgen.scan_pdf(pdfgen.text_pdf([[pdfgen.SENTENCES[i]]], font_size=18), dpi=90)
        client.put_object(Bucket="kill-in", Key=f"s/{i}.pdf", Body=scan)
    cmd = [sys.executable, "-m", "ocr_pipeline.cli", "run", "s3://kill-ws/w", "--pdfs", "s3://kill-in/s/", "--quiet"]
    proc = subprocess.Popen(cmd, env=os.environ.copy(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)  # fmt: skip
    ws = S3Workspace("s3://kill-ws/w", client)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and not any(True for _ in ws.list("memo/")):
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = len(list(ws.list("memo/")))
    assert 1 <= done_before < 4 and not any(True for _ in ws.list("dolma/"))
    settings = PipelineSettings(workspace="s3://kill-ws/w", pdfs=["s3://kill-in/s/"])
    summary = run_local(settings, show_progress=False)
    assert summary.ok and summary.documents == 4
    docs = [d for k in ws.list("dolma/") for d in read_gzip_jsonl(ws.read_bytes(k))]
    assert sorted(d["metadata"]["Source-File"] for d in docs) == [f"s3://kill-in/s/{i}.pdf" for i in range(4)]
    from ocr_pipeline.workspace.tables import read_rows

    hits = [r["memo_hit"] for k in ws.list("manifests/ocr/") for r in read_rows(ws, k, ["memo_hit"])]
    assert sum(hits) == done_before


def test_dagster_job_execute_from_a_ci_script(s3_env: SeaweedS3, tmp_path: Path) -> None:
    _upload_corpus(s3_env, "ci-in", "batch/", count=2)
    _bucket(s3_env, "ci-ws")
    env = {**os.environ, "PYTHON": sys.executable, "DAGSTER_HOME": str(tmp_path / "dagster_home"),
           "OCR_PIPELINE_WORKSPACE": "s3://ci-ws/run", "OCR_PIPELINE_PDFS": "s3://ci-in/batch/",
           "OCR_PIPELINE_PAGES_PER_GROUP": "4"}  # fmt: skip
    script = Path(__file__).resolve().parents[2] / "scripts" / "ci_run_partitions.sh"
    proc = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "every group has its Dolma shard" in proc.stdout
    ws = S3Workspace("s3://ci-ws/run", s3_env.client())
    docs = [d for k in ws.list("dolma/") for d in read_gzip_jsonl(ws.read_bytes(k))]
    assert sorted(d["metadata"]["Source-File"] for d in docs) == [
        "s3://ci-in/batch/doc0.pdf",
        "s3://ci-in/batch/doc1.pdf",
    ]
