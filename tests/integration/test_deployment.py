"""The production path as deployed, on one machine: Postgres, SeaweedFS, a VLM server, daemon + webserver.

Nothing is driven in-process: the shipped instance file (deploy/dagster-postgres.yaml) on a real PostgreSQL,
`dagster-daemon run` (sensor, run queue, run retries, backfills, run monitoring) and `dagster-webserver`, whose
GraphQL API turns the sensor on and launches the "failed and missing" backfill exactly as the UI does.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ocr_pipeline.workspace.s3 import S3Workspace
from ocr_pipeline.workspace.tables import read_gzip_jsonl, read_jsonl
from tests.support.builders import corpora
from tests.support.dagster_stack import REPO, DagsterStack, wait_for
from tests.support.oracle import right_answers_of
from tests.support.postgres_server import PostgresOnTcp
from tests.support.s3_server import READER, SeaweedS3
from tests.support.vlm_server import VlmTestServer

GROUP_ASSETS = ["filtered_pdfs", "page_images", "vlm_ocr_outputs", "dolma_shards"]
# Estimated at 42 pages each (the mean of the sampled 1, 4 and 120), four inputs make two groups of 100.
PAGES_PER_GROUP = 100
FIRST_GROUPS = ["g000001", "g000002"]
LATE_GROUP = "g000003"


@pytest.fixture(scope="module")
def services() -> Iterator[tuple[PostgresOnTcp, SeaweedS3]]:
    with PostgresOnTcp() as pg, SeaweedS3() as s3:
        for bucket in ("pdfs-in", "ocr-ws"):
            s3.client().create_bucket(Bucket=bucket)
        yield pg, s3


def _env(pg: PostgresOnTcp, s3: SeaweedS3, server: str, workspace: str) -> dict[str, str]:
    return {
        **pg.env(),
        **s3.env(),
        "OCR_PIPELINE_INPUT_AWS_ACCESS_KEY_ID": READER[0],
        "OCR_PIPELINE_INPUT_AWS_SECRET_ACCESS_KEY": READER[1],
        "OCR_PIPELINE_WORKSPACE": workspace,
        "OCR_PIPELINE_PDFS": "s3://pdfs-in/corpus/",
        "OCR_PIPELINE_SERVER": server,
        "OCR_PIPELINE_PAGES_PER_GROUP": str(PAGES_PER_GROUP),
        "OCR_PIPELINE_MAX_CONCURRENT_REQUESTS": "8",
        # A run whose server is down fails after 5 s instead of 10 minutes; Dagster retries it once, then leaves
        # it to a person.
        "OCR_PIPELINE_SERVER_READY_TIMEOUT_S": "5",
        "OCR_PIPELINE_SENSOR_MAX_RETRIES": "1",
        # Ticks 5 s apart instead of 60: the daemon's pace is what this test checks, not its patience.
        "OCR_PIPELINE_SENSOR_INTERVAL_S": "5",
    }


def _shards(ws: S3Workspace) -> dict[str, bytes]:
    return {k: ws.read_bytes(k) for k in ws.list("dolma/") if k.endswith(".jsonl.gz")}


def _accounted(ws: S3Workspace) -> dict[str, str]:
    """source → "document" or its rejection reason, over every shard and ledger of the workspace."""
    where = {d["metadata"]["Source-File"]: "document" for data in _shards(ws).values() for d in read_gzip_jsonl(data)}
    for key in ws.list("rejected/"):
        if key.endswith(".jsonl") and "/partial/" not in key:
            where.update({line["source"]: line["reason"] for line in read_jsonl(ws, key)})
    return where


def _run_statuses(pg: PostgresOnTcp, group: str) -> list[str]:
    """Statuses of the group's ocr_job runs, oldest first, read from the Postgres run storage itself."""
    sql = (
        "SELECT r.status FROM runs r JOIN run_tags t ON t.run_id = r.run_id "
        f"WHERE t.key = 'dagster/partition' AND t.value = '{group}' ORDER BY r.create_timestamp"
    )
    out = pg.query(sql)
    return out.splitlines() if out else []


def _runs(pg: PostgresOnTcp, where: str) -> list[dict[str, str]]:
    """run_id, status and tags of the runs `where` selects, oldest first, from the Postgres run storage."""
    sql = f"SELECT r.run_id, r.status FROM runs r WHERE {where} ORDER BY r.create_timestamp"
    runs = [dict(zip(("run_id", "status"), line.split("|"), strict=True)) for line in pg.query(sql).splitlines()]
    for run in runs:
        tags = pg.query(f"SELECT key, value FROM run_tags WHERE run_id = '{run['run_id']}'").splitlines()
        run.update(dict(line.split("|", 1) for line in tags))
    return runs


def _partition_runs(pg: PostgresOnTcp, group: str) -> list[dict[str, str]]:
    where = f"r.run_id IN (SELECT run_id FROM run_tags WHERE key = 'dagster/partition' AND value = '{group}')"
    return _runs(pg, where)


def _no_overlap_in_gpu_pool(pg: PostgresOnTcp) -> bool:
    """render_and_ocr steps (vlm_ocr_outputs' op; pool `gpu`, limit 1) never ran at the same time in two runs."""
    sql = (
        "SELECT run_id, dagster_event_type, extract(epoch from timestamp) FROM event_logs "
        "WHERE step_key = 'render_and_ocr' AND dagster_event_type IN ('STEP_START', 'STEP_SUCCESS', 'STEP_FAILURE')"
    )
    spans: dict[str, list[float]] = {}
    for line in pg.query(sql).splitlines():
        run_id, _, ts = line.split("|")
        spans.setdefault(run_id, []).append(float(ts))
    intervals = sorted((min(v), max(v)) for v in spans.values())
    return all(end <= start for (_, end), (start, _) in zip(intervals, intervals[1:], strict=False))


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_daemon_on_postgres_runs_s3_corpus_retries_and_backfills_a_failed_partition(
    services: tuple[PostgresOnTcp, SeaweedS3], tmp_path: Path
) -> None:
    pg, s3 = services
    started = time.monotonic()
    corpus = corpora.mixed_pdfs()  # 1, 4 and 120 pages, and one input that is not a PDF
    late_pdf = {"late_2p.pdf": corpora.numbered_pdf("late", 2)}
    # Right answers: the test is about the deployment, not what the model reads (unrelated words would stop
    # every partition at the text-layer agreement gate).
    answers = right_answers_of({**corpus, **late_pdf})
    vlm = VlmTestServer(text_for=answers).start()
    port = vlm.port
    env = _env(pg, s3, vlm.url, "s3://ocr-ws/daemon")
    home = tmp_path / "dagster_home"
    setup_env = {**os.environ, **env, "DAGSTER_HOME": str(home)}
    setup = subprocess.run([str(REPO / "deploy" / "dagster_home.sh")], env=setup_env, capture_output=True, text=True)
    assert setup.returncode == 0, setup.stderr
    assert "Postgres at 127.0.0.1" in setup.stdout
    sources = corpora.upload(s3.client(), "pdfs-in", "corpus/", corpus)
    ws = S3Workspace("s3://ocr-ws/daemon", s3.client())
    try:
        with DagsterStack(home, env) as stack:
            assert stack.start_sensor("work_group_sensor") == "RUNNING"

            # The daemon's first tick lists the corpus and queues an inventory run, which reads it, forms the
            # groups and registers them; a later tick queues a run for each group; the queue starts them.
            def first_runs_succeeded() -> bool:
                statuses = [_run_statuses(pg, g) for g in FIRST_GROUPS]
                assert not any("FAILURE" in s for s in statuses), (statuses, stack.log("daemon")[-5000:])
                return all(s == ["SUCCESS"] for s in statuses)

            wait_for("both runs to succeed", first_runs_succeeded, 900, poll_s=5)
            [inventory] = _runs(pg, "r.pipeline_name = 'inventory_job'")
            assert inventory["status"] == "SUCCESS" and inventory["dagster/sensor_name"] == "work_group_sensor"
            logs = pg.query(f"SELECT count(*) FROM event_logs WHERE run_id = '{inventory['run_id']}' "
                            "AND event LIKE '%4 new inputs in 2 new groups, 2 partitions registered%'")  # fmt: skip
            assert logs == "1"  # the scan's work is in its own run, with its log in the UI
            assert _accounted(ws) == {**{s: "document" for s in sources[1:]}, sources[0]: "corrupt_pdf"}
            assert sorted(_shards(ws)) == [f"dolma/{g}.jsonl.gz" for g in FIRST_GROUPS]
            docs = [d for data in _shards(ws).values() for d in read_gzip_jsonl(data)]
            pages = sum(len(d["attributes"]["pdf_page_numbers"]) for d in docs)
            assert pages == corpora.total_pages(corpus) == 125
            assert _no_overlap_in_gpu_pool(pg) and vlm.violations == []
            daemon_shards = _shards(ws)
            rows = pg.query("SELECT count(*) FROM event_logs WHERE run_id <> '' GROUP BY run_id ORDER BY 1").split()
            print(f"Postgres event-log rows per partition run: {rows}")

            # The same inputs through the CLI, in-process: byte-identical shards.
            cli = [sys.executable, "-m", "ocr_pipeline.cli", "run", "s3://ocr-ws/cli", "--pdfs", "s3://pdfs-in/corpus/",
                   "--server", vlm.url, "--pages_per_group", str(PAGES_PER_GROUP), "--quiet"]  # fmt: skip
            proc = subprocess.run(cli, capture_output=True, text=True, timeout=600, env={**os.environ, **env})
            assert proc.returncode == 0, proc.stdout + proc.stderr
            assert _shards(S3Workspace("s3://ocr-ws/cli", s3.client())) == daemon_shards

            # The server goes away; a new input arrives; the sensor's ticks scan it and run its group, which fails;
            # Dagster's run retries rerun it once (OCR_PIPELINE_SENSOR_MAX_RETRIES=1), and it fails again.
            vlm.stop()
            late = corpora.upload(s3.client(), "pdfs-in", "corpus/", late_pdf)

            def retried_and_final() -> list[dict[str, str]] | None:
                runs = _partition_runs(pg, LATE_GROUP)
                statuses = [r["status"] for r in runs]
                return runs if statuses == ["FAILURE", "FAILURE"] and "dagster/will_retry" in runs[1] else None

            first, retry = wait_for("the late group's run and its retry to fail", retried_and_final, 600, 3)
            assert first["dagster/max_retries"] == "1" and first["dagster/retry_strategy"] == "ALL_STEPS"
            assert retry["dagster/parent_run_id"] == first["run_id"] and retry["dagster/retry_number"] == "1"
            assert retry["dagster/will_retry"] == "false"  # retries spent: left for a person
            statuses = stack.partition_statuses("dolma_shards")
            failed_and_missing = sorted(set(statuses["failedPartitions"]) | set(statuses["unmaterializedPartitions"]))
            assert failed_and_missing == [LATE_GROUP] and not ws.exists(f"dolma/{LATE_GROUP}.jsonl.gz")

            # Back up on the same port: a "failed and missing" backfill through GraphQL completes the partition.
            vlm = VlmTestServer(port=port, text_for=answers).start()
            backfill = stack.launch_backfill(GROUP_ASSETS, failed_and_missing)

            def finished() -> str | None:
                status = stack.backfill_status(backfill)
                return None if status == "REQUESTED" else status

            done = wait_for("the backfill", finished, 300, 3)
            assert done in ("COMPLETED_SUCCESS", "COMPLETED"), (done, stack.log("daemon")[-3000:])
            assert _run_statuses(pg, LATE_GROUP) == ["FAILURE", "FAILURE", "SUCCESS"]
            assert _accounted(ws)[late[0]] == "document"
            statuses = stack.partition_statuses("dolma_shards")
            assert sorted(statuses["materializedPartitions"]) == [*FIRST_GROUPS, LATE_GROUP]
    finally:
        vlm.stop()
    print(f"deployment test: {time.monotonic() - started:.0f}s")
