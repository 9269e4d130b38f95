"""`ocr-pipeline run --server ... --route auto` end to end: the pages routed to their text layer never reach the
server, every page's route and reasons are recorded (manifest, Dolma attribute, metadata, summary), and the memo
keeps routed pages apart from the model's answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from dagster import AssetKey, DagsterInstance

from ocr_pipeline.defs.materialize import run_group, run_inventory
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.stages.dolma_documents import ROUTE_ATTRIBUTE
from ocr_pipeline.workspace.keys import dolma_key, done_key, ocr_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import read_gzip_jsonl, read_rows
from tests.support.builders import layout_pdfs, pdfgen, route_pdfs
from tests.support.oracle import right_answers
from tests.support.recorded_answers import page_keys
from tests.support.vlm_server import VlmTestServer

GROUP = "g000001"
# What must reach the model: each a one-page document (the file name says why).
TO_MODEL = {
    "shifted map.pdf": route_pdfs.shifted_map_pdf,
    "scrambled_map.pdf": route_pdfs.scrambled_map_pdf,
    "pasted_raster.pdf": route_pdfs.pasted_raster_pdf,
    "equations.pdf": route_pdfs.equations_pdf,
    "table.pdf": lambda: layout_pdfs.table_pdf("ruled"),
    "scan.pdf": lambda: pdfgen.scan_pdf(pdfgen.text_pdf([[pdfgen.SENTENCES[3]]], font_size=16)),
}
# What may be routed: plain prose, one and two columns, three pages each, with running heads.
ROUTABLE = {"report.pdf": 1, "newsletter (2 cols).pdf": 2}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mixed corpus: six pages for the model and six routable pages."""
    folder = tmp_path_factory.mktemp("route") / "in"
    for name, build in TO_MODEL.items():
        pdfgen.write(folder / name, build())
    for name, columns in ROUTABLE.items():
        pdfgen.write(folder / name, route_pdfs.prose_pdf(pages=3, columns=columns))
    return folder


def _run(corpus: Path, ws: Path, server: VlmTestServer, route: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "ocr_pipeline.cli", "run", str(ws), "--pdfs", str(corpus), "--server",
               server.url, "--model", "olmocr", "--route", route, "--quiet"]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=600, env=dict(os.environ))


def _keys(corpus: Path, names: list[str]) -> set[str]:
    """The server's page keys (histogram) of every page of the named PDFs."""
    return {hist for name in names for hist, _ in page_keys(corpus / name)}


def test_routed_pages_never_reach_the_server_and_every_route_is_recorded(corpus: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with VlmTestServer(model="olmocr", text_for=right_answers(corpus)) as server:
        proc = _run(corpus, ws, server, "auto")
        asked = {r.page_key for r in server.completed()}
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert asked == _keys(corpus, list(TO_MODEL))  # the model read exactly those, and none of the prose
    assert "pages:          12 (0 fallback, 6 read from their text layer, 6 by the engine)" in proc.stdout

    rows = {(Path(r["source"]).name, r["page_num"]): r for r in read_rows(LocalWorkspace(str(ws)), ocr_key(GROUP))}
    for (name, _), row in rows.items():
        if name in ROUTABLE:
            assert (row["route"], json.loads(row["route_reasons"]), row["engine"]) == ("text_layer", [], "text_layer")
        else:
            assert row["route"] == "model" and json.loads(row["route_reasons"]), name
    assert "lines of raster text" in rows[("pasted_raster.pdf", 1)]["route_reasons"]

    docs = {Path(d["metadata"]["Source-File"]).name: d for d in read_gzip_jsonl((ws / dolma_key(GROUP)).read_bytes())}
    assert [s[2] for s in docs["newsletter (2 cols).pdf"]["attributes"][ROUTE_ATTRIBUTE]] == [1, 1, 1]
    assert docs["newsletter (2 cols).pdf"]["metadata"]["total-routed-pages"] == 3
    assert [s[2] for s in docs["equations.pdf"]["attributes"][ROUTE_ATTRIBUTE]] == [0]
    # The routed text is the reader's layout of the page: the running head and page numbers left out.
    assert "Proceedings of the Parish Council" not in docs["report.pdf"]["text"]
    assert docs["report.pdf"]["text"].startswith(route_pdfs.prose_paragraphs(4, 11)[0][:40])


def test_dagster_route_config_shows_pages_routed_and_the_gpu_cost_saved(corpus: Path, tmp_path: Path) -> None:
    """The same group through Dagster (the worker in its own process, its report back through Pipes), with `route`
    set in the run's settings as a code location sets it: the UI's metadata counts both routes and prices the saving."""
    with VlmTestServer(model="olmocr", text_for=right_answers(corpus)) as server:
        settings = PipelineSettings(workspace=str(tmp_path / "ws"), pdfs=[str(corpus)], server=server.url,
                                    model="olmocr", route="auto", hourly_cost_usd=3.6)  # fmt: skip
        instance = DagsterInstance.ephemeral()
        [group] = run_inventory(settings, instance)
        assert run_group(settings, group, instance)
        asked = {r.page_key for r in server.completed()}
    assert asked == _keys(corpus, list(TO_MODEL))
    meta = instance.get_latest_materialization_event(AssetKey("vlm_ocr_outputs")).asset_materialization.metadata
    assert (meta["pages"].value, meta["pages_to_model"].value, meta["pages_routed"].value) == (12, 6, 6)
    # Six routed pages priced at the group's own seconds a page the model read, at $3.60 an hour ($0.001 a second).
    per_page_s = meta["seconds"].value / 6
    assert meta["gpu_seconds_saved"].value == pytest.approx(6 * per_page_s, abs=0.1)
    assert meta["gpu_usd_saved"].value == pytest.approx(meta["gpu_seconds_saved"].value / 1000, abs=1e-3)


def _again(corpus: Path, ws: Path, server: VlmTestServer, route: str) -> subprocess.CompletedProcess[str]:
    """The group run once more, as a partition rerun runs it: its done marker gone, its pages read again."""
    (ws / done_key(GROUP)).unlink()
    return _run(corpus, ws, server, route)


def test_the_memo_keeps_routed_pages_apart_from_the_models_answers(corpus: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    answers = right_answers(corpus)
    with VlmTestServer(model="olmocr", text_for=answers) as server:
        assert _run(corpus, ws, server, "auto").returncode == 0
    # A routed rerun reuses the memo: the model's answers and the router's readings alike.
    with VlmTestServer(model="olmocr", text_for=answers) as server:
        proc = _again(corpus, ws, server, "auto")
        assert server.completed() == []
    assert proc.returncode == 0 and "6 read from their text layer" in proc.stdout, proc.stdout + proc.stderr
    # A rerun that sends every page to the model sends the routed ones too: the router's reading is never served as
    # a model's answer; the pages the model read before come from the memo.
    with VlmTestServer(model="olmocr", text_for=answers) as server:
        proc = _again(corpus, ws, server, "model")
        asked = {r.page_key for r in server.completed()}
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert asked == _keys(corpus, list(ROUTABLE)) and "read from their text layer" not in proc.stdout
    rows = read_rows(LocalWorkspace(str(ws)), ocr_key(GROUP))
    assert {r["route"] for r in rows} == {None} and {r["engine"] for r in rows} == {"vlm"}


def test_eval_scores_the_routed_pipeline_and_records_no_verdict_for_the_sensor(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with VlmTestServer(model="olmocr") as server:  # the canary's pages answered right, as a right model does
        command = [sys.executable, "-m", "ocr_pipeline.cli", "eval", str(ws), "--server", server.url, "--model",
                   "olmocr", "--route", "auto"]  # fmt: skip
        proc = subprocess.run(command, capture_output=True, text=True, timeout=600, env=dict(os.environ))
        asked = len(server.completed())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert 0 < asked < 32  # some of the canary's 32 pages were read from their layer, the scans by the model
    assert "no verdict recorded for the sensor" in proc.stdout and not (ws / "canary").exists()
