"""A blocking check stops its partition before dolma_shards, the others go on, and a rerun after the fix is green."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from dagster import AssetKey, DagsterInstance

from ocr_pipeline.cli import print_summary
from ocr_pipeline.defs.materialize import run_group, run_inventory
from ocr_pipeline.local_run import run_local
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.stages.pdf_inventory import read_group
from ocr_pipeline.workspace.keys import dolma_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from tests.support.builders import pdfgen
from tests.support.oracle import right_answers
from tests.support.partition_runs import keyed_pages, latest_evaluation, ocr_check, render_pages
from tests.support.vlm_answers import UNRELATED
from tests.support.vlm_protocol import Fault
from tests.support.vlm_server import VlmTestServer

ERROR_RATE = ocr_check("page_error_rate")


def test_blocking_check_stops_only_its_partition(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "in"
    # An image-only scan of four pages (no text layer to fall back to) and a born-digital page, one work group each.
    letters = [[pdfgen.SENTENCES[(6 + i) % 8], f"Page {i + 1}."] for i in range(4)]
    pdfgen.write(corpus / "a_scan.pdf", pdfgen.scan_pdf(pdfgen.text_pdf(letters, font_size=16)))
    pdfgen.write(corpus / "b_good.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[1]]]))
    with VlmTestServer(model="olmocr-test") as server:
        settings = PipelineSettings(
            workspace=str(tmp_path / "ws"), pdfs=[str(corpus)], server=server.url, model="olmocr-test",
            pages_per_group=1, max_page_retries=2,
        )  # fmt: skip
        ws = LocalWorkspace(settings.workspace)
        instance = DagsterInstance.ephemeral()
        groups = {Path(read_group(ws, g)[0]["source"]).name: g for g in run_inventory(settings, instance)}
        scan, good = groups["a_scan.pdf"], groups["b_good.pdf"]
        # The server answers garbage for every page of the scan: every attempt fails and no text is left. One such
        # page would cost its document only (test_one_bad_page); four of four is a broken server, not bad luck.
        render_pages(settings, instance, scan)
        for scan_key, _ in keyed_pages(settings, scan):
            server.faults[scan_key] = [Fault("garbage")] * 50

        # The command line: the scan's group fails on its blocking check, the other group is done.
        summary = run_local(settings, show_progress=False)
        assert summary.failed_groups == [scan] and not summary.ok
        assert ws.exists(dolma_key(good)) and not ws.exists(dolma_key(scan))
        print_summary(summary)
        out = capsys.readouterr().out
        assert f"1 failed: {scan}" in out and f"{scan}: stopped by vlm_ocr_outputs page_error_rate: 4 of 4" in out
        assert "a_scan.pdf page 1 (front_matter: reply does not start with a '---' front matter block)" in out

        # In Dagster: the check is red with what failed, and dolma_shards never ran for that partition.
        assert not run_group(settings, scan, instance)
        assert run_group(settings, good, instance)
        status, metadata = latest_evaluation(instance, ERROR_RATE, scan)
        assert latest_evaluation(instance, ERROR_RATE, good)[0] == "SUCCEEDED"
        assert status == "FAILED"
        assert metadata["error_pages"] == 4 and metadata["pages"] == 4 and metadata["rate"] == 1.0
        assert metadata["allowed_pages"] == 2 and metadata["false_alarm"] == 0.001
        assert metadata["sample"][0]["source"].endswith("a_scan.pdf")
        assert "4 of 4 pages failed with no text" in metadata["summary"]
        assert "dbt_like_checks/vlm_ocr_outputs.yml:" in metadata["declared_in"]
        assert instance.get_materialized_partitions(AssetKey("dolma_shards")) == {good}

        # The fix (the server answers again) and a rerun of the partition turn it green.
        server.faults.clear()
        assert run_group(settings, scan, instance)
        assert latest_evaluation(instance, ERROR_RATE, scan)[0] == "SUCCEEDED"
        assert instance.get_materialized_partitions(AssetKey("dolma_shards")) == {good, scan}
        assert ws.exists(dolma_key(scan))


AGREEMENT = ocr_check("text_layer_agreement")


def test_a_server_answering_unrelated_text_is_blocked_before_dolma_shards(tmp_path: Path) -> None:
    corpus = tmp_path / "in"
    pages = [[pdfgen.SENTENCES[i], pdfgen.SENTENCES[(i + 3) % 8]] for i in range(4)]
    pdfgen.write(corpus / "born_digital.pdf", pdfgen.text_pdf(pages))
    answers: dict[str, str] = {}
    with VlmTestServer(model="olmocr-test", text_for=lambda key: answers.get(key, UNRELATED)) as server:
        settings = PipelineSettings(
            workspace=str(tmp_path / "ws"), pdfs=[str(corpus)], server=server.url, model="olmocr-test"
        )
        instance = DagsterInstance.ephemeral()
        [group] = run_inventory(settings, instance)

        # A wrong model: every page answered with the same unrelated paragraph; the blocking gate stops the group.
        assert not run_group(settings, group, instance)
        status, metadata = latest_evaluation(instance, AGREEMENT, group)
        assert status == "FAILED"
        assert metadata["trusted_pages"] == 4 and float(str(metadata["median"])) < 0.6
        assert "median text-layer agreement" in str(metadata["summary"])
        assert "dbt_like_checks/vlm_ocr_outputs.yml:" in str(metadata["declared_in"])  # the shipped gate
        assert instance.get_materialized_partitions(AssetKey("dolma_shards")) == set()
        assert not LocalWorkspace(settings.workspace).exists(dolma_key(group))

        # The right model (each page answered with its own words) passes the gate and the shard is written.
        answers.update(right_answers(corpus))
        assert len(answers) == 4
        server.text_for = answers  # no fallback to the unrelated paragraph now
        settings = dataclasses.replace(settings, workspace=str(tmp_path / "ws2"))
        instance = DagsterInstance.ephemeral()
        [group] = run_inventory(settings, instance)
        assert run_group(settings, group, instance)
        status, metadata = latest_evaluation(instance, AGREEMENT, group)
        assert status == "SUCCEEDED" and float(str(metadata["median"])) > 0.9
        assert instance.get_materialized_partitions(AssetKey("dolma_shards")) == {group}
