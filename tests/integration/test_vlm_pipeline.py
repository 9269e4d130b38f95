"""The VLM path end to end: assets → Pipes worker subprocess → real HTTP test server on 127.0.0.1 → Dolma."""

from __future__ import annotations

import io
from pathlib import Path

from dagster import AssetKey, AssetSelection, DagsterInstance, materialize
from PIL import Image

from ocr_pipeline.defs.materialize import ASSETS_AND_CHECKS, run_group, run_inventory, run_resources
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.worker import worker_invocation
from ocr_pipeline.workspace.keys import dolma_key, pages_key, partial_key, rejected_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import read_gzip_jsonl, read_jsonl, read_rows
from tests.support.builders import pdfgen
from tests.support.oracle import right_answers
from tests.support.vlm_protocol import Fault, hist_key
from tests.support.vlm_server import VlmTestServer


def _render_only(settings: PipelineSettings, instance: DagsterInstance) -> str:
    [group] = run_inventory(settings, instance)
    res = materialize(
        ASSETS_AND_CHECKS,
        selection=AssetSelection.assets("filtered_pdfs", "page_images"),
        partition_key=group,
        instance=instance,
        resources=run_resources(settings),
    )
    assert res.success
    return group


def test_vlm_worker_reads_pages_and_flags_fallbacks(tmp_path: Path) -> None:
    corpus = tmp_path / "in"
    pdfgen.write(corpus / "good.pdf", pdfgen.text_pdf([pdfgen.SENTENCES[:2], pdfgen.SENTENCES[2:4]]))
    pdfgen.write(corpus / "bad.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[5]]]))
    # Right answers, rendered before the run (tests.support.oracle): unrelated words would stop the rerun at the
    # text-layer agreement gate once bad.pdf's page reads too.
    answers = right_answers(corpus)
    with VlmTestServer(api_key="sekret", expect_guided=True, model="olmocr-test", text_for=answers) as server:
        settings = PipelineSettings(
            workspace=str(tmp_path / "ws"),
            pdfs=[str(corpus)],
            server=server.url,
            model="olmocr-test",
            api_key="sekret",
            guided_decoding=True,
            max_page_retries=3,
            hourly_cost_usd=2.5,  # OCR_PIPELINE_HOURLY_COST_USD in a code location
        )
        instance = DagsterInstance.ephemeral()
        group = _render_only(settings, instance)
        ws = LocalWorkspace(settings.workspace)
        keys = {}
        for row in read_rows(ws, pages_key(group), ["source", "page_num", "png"]):
            keys[(Path(row["source"]).name, row["page_num"])] = hist_key(
                Image.open(io.BytesIO(row["png"])).convert("L")
            )
        assert set(keys.values()) == set(answers)  # the oracle renders each page as the pipeline sends it
        # bad.pdf's only page always answers garbage: three failed attempts, then the text-layer fallback.
        server.faults[keys[("bad.pdf", 1)]] = [Fault("garbage")] * 10
        assert run_group(settings, group, instance)
        assert not server.violations
        assert all(r.authorization == "Bearer sekret" and r.guided_regex for r in server.requests)
        # The worker's report (through Pipes) is the materialization, with tokens, speed and cost.
        event = instance.get_latest_materialization_event(AssetKey("vlm_ocr_outputs"))
        meta = event.asset_materialization.metadata
        assert meta["pages"].value == 3 and meta["input_tokens"].value > 0
        # The price is text beside the cost, not a number of its own (the same on every run, nothing to plot).
        assert meta["usd_per_million_pages"].value > 0 and "$2.50/hour" in meta["cost_basis"].value
        assert len(server.requests) == 2 + 3

        [doc] = read_gzip_jsonl(ws.read_bytes(dolma_key(group)))
        assert doc["metadata"]["Source-File"].endswith("good.pdf")
        assert doc["text"].startswith(answers[keys[("good.pdf", 1)]])
        assert answers[keys[("good.pdf", 2)]] in doc["text"] and pdfgen.SENTENCES[3] in doc["text"]
        assert doc["metadata"]["total-input-tokens"] > 0 and doc["metadata"]["total-output-tokens"] > 0
        assert doc["metadata"]["engine"] == "vlm" and doc["metadata"]["model"] == "olmocr-test"
        [line] = read_jsonl(ws, rejected_key(group))
        assert line["source"].endswith("bad.pdf") and line["reason"] == "too_many_fallback_pages"
        [partial] = read_gzip_jsonl(ws.read_bytes(partial_key(group)))
        assert pdfgen.SENTENCES[5] in partial["text"] and partial["metadata"]["total-fallback-pages"] == 1

        # A rerun re-requests only the page without a good result.
        server.faults.clear()
        before = len(server.requests)
        assert run_group(settings, group, instance)
        assert len(server.requests) - before == 1
        docs = read_gzip_jsonl(ws.read_bytes(dolma_key(group)))
        assert len(docs) == 2 and read_jsonl(ws, rejected_key(group)) == []
        assert not ws.exists(partial_key(group))


def test_worker_fails_the_step_when_the_server_never_answers(tmp_path: Path) -> None:
    pdfgen.write(tmp_path / "in" / "a.pdf", pdfgen.text_pdf([["Hello there, reader of pages."]]))
    settings = PipelineSettings(
        workspace=str(tmp_path / "ws"), pdfs=[str(tmp_path / "in")], server="http://127.0.0.1:9", server_ready_timeout=1
    )
    instance = DagsterInstance.ephemeral()
    group = _render_only(settings, instance)
    assert not run_group(settings, group, instance)
    assert not LocalWorkspace(settings.workspace).exists(dolma_key(group))


def test_worker_invocation_keeps_the_key_out_of_arguments() -> None:
    settings = PipelineSettings(workspace="/ws", server="http://x:8000", api_key="top-secret")
    args, env = worker_invocation(settings, "g000007")
    assert args == ["-m", "ocr_pipeline.worker", "--group", "g000007"]
    assert "top-secret" not in " ".join(args) and "top-secret" not in env["OCR_PIPELINE_SETTINGS"]
    assert env["OCR_PIPELINE_API_KEY"] == "top-secret"
