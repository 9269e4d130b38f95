"""The model canary through Dagster and the CLI: a right server passes it, an unrelated or looping one fails it, so
does one that writes a paragraph twice on every page or invents a page of text for every near-blank scan, the
work-group sensor launches no partition until it passed for the configured model and server, and
`ocr-pipeline eval` scores the canary or a user's own olmOCR-Bench folder."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from dagster import AssetCheckKey, DagsterInstance, RunRequest, SensorResult, build_sensor_context

from ocr_pipeline.canary.run_canary import fingerprint_for
from ocr_pipeline.canary.verdict import read_verdict
from ocr_pipeline.defs.canary import MODEL_CANARY, PASS_RATE_CHECK
from ocr_pipeline.defs.definitions import build_definitions
from ocr_pipeline.defs.materialize import run_inventory, run_resources
from ocr_pipeline.defs.sensors import work_group_sensor
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.workspace.storage import LocalWorkspace
from tests.support.builders import pdfgen
from tests.support.canary_oracle import canary_answers
from tests.support.vlm_protocol import Fault
from tests.support.vlm_server import VlmTestServer

UNRELATED = "The annual meeting of the horticultural society took place in the village hall on a wet evening. " * 4
LOOP = "Table of contents. " * 400
CHECK = AssetCheckKey(MODEL_CANARY, PASS_RATE_CHECK)
PAGES = 32  # the shipped canary: 21 born-digital pages, 7 scans, 4 near-blank scans (bleed-through, dust, a stamp)
STAMP = "RECEIVED\n\nMAR 12 1911"


def _settings(tmp_path: Path, server: VlmTestServer, **extra: Any) -> PipelineSettings:
    corpus = tmp_path / "in"
    if not corpus.exists():
        pdfgen.write(corpus / "report.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[0]], [pdfgen.SENTENCES[1]]]))
    return PipelineSettings(
        workspace=str(tmp_path / "ws"), pdfs=[str(corpus)], server=server.url, model="olmocr-test", **extra
    )


def _materialize_canary(settings: PipelineSettings, instance: DagsterInstance) -> tuple[bool, dict[str, Any]]:
    """Run model_canary_job; (check passed, the materialization's metadata)."""
    job = build_definitions(run_resources(settings), with_automation=False).resolve_job_def("model_canary_job")
    result = job.execute_in_process(instance=instance, raise_on_error=False)
    [evaluation] = result.get_asset_check_evaluations()
    [materialization] = result.asset_materializations_for_node("model_canary")
    return evaluation.passed, {k: v.value for k, v in materialization.metadata.items()}


def test_a_right_server_passes_and_an_unrelated_one_fails_the_canary_with_its_table(tmp_path: Path) -> None:
    instance = DagsterInstance.ephemeral()
    with VlmTestServer(model="olmocr-test") as server:
        settings = _settings(tmp_path, server)
        passed, meta = _materialize_canary(settings, instance)
        assert len({r.page_key for r in server.completed()}) == meta["pages"] == PAGES
    assert passed and meta["pass_rate"] >= 0.95 and meta["fallback_pages"] == meta["model_failure_pages"] == 0
    rows = {row.data["type"]: row.data for row in meta["by_type"].records}
    assert set(rows) == {"present", "absent", "order", "table", "baseline"}
    verdict = read_verdict(LocalWorkspace(settings.workspace), meta["fingerprint"])
    assert verdict is not None and verdict.passed and verdict.fingerprint == fingerprint_for(settings, 0.8)

    with VlmTestServer(model="olmocr-test", text_for=lambda key: UNRELATED) as server:
        settings = _settings(tmp_path, server)
        passed, meta = _materialize_canary(settings, instance)
    assert not passed and meta["pass_rate"] < 0.35
    rows = {row.data["type"]: row.data for row in meta["by_type"].records}
    assert rows["present"]["passed"] == rows["order"]["passed"] == rows["table"]["passed"] == 0
    record = instance.event_log_storage.get_asset_check_execution_history(CHECK, limit=1)[0]
    assert record.status.value == "FAILED"
    verdict = read_verdict(LocalWorkspace(settings.workspace), meta["fingerprint"])
    assert verdict is not None and not verdict.passed


def test_a_looping_server_falls_back_on_every_page_and_fallbacks_score_as_empty_answers(tmp_path: Path) -> None:
    with VlmTestServer(model="olmocr-test", text_for=lambda key: LOOP) as server:
        settings = _settings(tmp_path, server, max_page_retries=2)
        passed, meta = _materialize_canary(settings, DagsterInstance.ephemeral())
        per_page = {r.page_key: r.page_request + 1 for r in server.completed()}
    # The born-digital pages' text layers would pass most tests: scored as the engine's empty answers instead.
    assert not passed and meta["fallback_pages"] == PAGES and meta["pass_rate"] < 0.3
    assert sorted(set(per_page.values())) == [2]  # each page asked again before it fell back


def _near_blank(key: str) -> bool:
    """Whether the server key is one of the canary's near-blank scans (nothing on them but a stamp)."""
    return canary_answers().get(key, "x").strip() in ("", STAMP)


def _fails_and_launches_nothing(tmp_path: Path, server: VlmTestServer, **extra: Any) -> dict[str, Any]:
    """Materialize the canary against the server; it fails, and the sensor's next tick launches no partition."""
    instance = DagsterInstance.ephemeral()
    settings = _settings(tmp_path, server, **extra)
    run_inventory(settings, instance)
    first = _tick(settings, instance, None)
    assert _kinds(first.run_requests) == ["model_canary_job"]
    passed, meta = _materialize_canary(settings, instance)
    assert not passed and _tick(settings, instance, first.cursor).run_requests == []
    return meta


def test_a_server_writing_a_paragraph_twice_on_every_page_fails_the_canary(tmp_path: Path) -> None:
    with VlmTestServer(model="olmocr-test", schedule=lambda i, key, n: Fault("repeated_paragraph")) as server:
        meta = _fails_and_launches_nothing(tmp_path, server, max_page_retries=2)
    # Every page with a paragraph fell back after two such answers; the near-blank ones (nothing to repeat) did not.
    assert meta["model_failure_pages"] == PAGES - 4 and meta["pass_rate"] < 0.3
    assert "duplicated paragraph" in meta["model_failures"]


def test_a_server_inventing_text_for_every_near_blank_scan_fails_the_canary(tmp_path: Path) -> None:
    invent = lambda i, key, n: Fault("invented") if _near_blank(key) else None  # noqa: E731 - a one-line schedule
    with VlmTestServer(model="olmocr-test", schedule=invent) as server:
        meta = _fails_and_launches_nothing(tmp_path, server)
        asked = [r for r in server.completed() if r.fault == "invented"]
    # Every other page read right: the tests alone would pass (an empty answer passes a blank-page test) ...
    assert meta["pass_rate"] >= 0.95 and meta["fallback_pages"] == 0
    # ... but four pages kept no answer, their text invented twice each: a model that does it systematically.
    assert meta["model_failure_pages"] == 4 and len(asked) == 8 and "invented text" in meta["model_failures"]


def _tick(settings: PipelineSettings, instance: DagsterInstance, cursor: str | None) -> SensorResult:
    resources = run_resources(settings)
    with build_sensor_context(instance=instance, resources=resources, cursor=cursor) as context:
        result = work_group_sensor(context)
    assert isinstance(result, SensorResult)
    return result


def _kinds(requests: list[RunRequest]) -> list[str]:
    return [r.job_name for r in requests]


def test_the_sensor_launches_no_partition_before_the_canary_passed_for_this_model_and_server(tmp_path: Path) -> None:
    instance = DagsterInstance.ephemeral()
    answers: dict[str, str] = {}
    with VlmTestServer(model="olmocr-test", text_for=lambda key: answers.get(key, UNRELATED)) as server:
        settings = _settings(tmp_path, server)
        [group] = run_inventory(settings, instance)
        # Owed: the tick asks for the canary, not for the registered group.
        first = _tick(settings, instance, None)
        [canary] = first.run_requests
        assert canary.job_name == "model_canary_job" and canary.run_key == f"canary:{fingerprint_for(settings, 0.8)}"
        # The server answers unrelated text: the canary fails, and the next ticks launch nothing.
        assert not _materialize_canary(settings, instance)[0]
        assert _tick(settings, instance, first.cursor).run_requests == []
        # A person fixes the server (right answers) and materializes the canary again: the group runs.
        server.text_for = None
        assert _materialize_canary(settings, instance)[0]
        assert [r.partition_key for r in _tick(settings, instance, first.cursor).run_requests] == [group]
        # Another model behind the same server is another configuration: the canary is owed again.
        other = dataclasses.replace(settings, model="olmocr-next")
        assert _kinds(_tick(other, instance, first.cursor).run_requests) == ["model_canary_job"]


def _eval(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "ocr_pipeline.cli", "eval", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def test_eval_scores_the_canary_records_its_verdict_and_scores_a_users_own_folder(tmp_path: Path) -> None:
    with VlmTestServer(model="olmocr-test", text_for=lambda key: UNRELATED) as server:
        failed = _eval(str(tmp_path / "ws"), "--server", server.url, "--model", "olmocr-test")
    assert failed.returncode == 1, failed.stderr
    assert "model canary FAILED" in failed.stdout and "present" in failed.stdout and "Traceback" not in failed.stderr
    [marker] = (tmp_path / "ws" / "canary").glob("*.json")
    assert json.loads(marker.read_text())["passed"] is False

    # A user's folder, olmOCR-Bench layout, read by the embedded CPU engine (no --server).
    folder = tmp_path / "mine"
    pdfgen.write(folder / "pdfs" / "memo.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[2]], [pdfgen.SENTENCES[3]]]))
    tests = [
        {"pdf": "memo.pdf", "page": 1, "id": "p1", "type": "present", "text": pdfgen.SENTENCES[2]},
        {"pdf": "memo.pdf", "page": 2, "id": "p2", "type": "present", "text": pdfgen.SENTENCES[3]},
        {"pdf": "memo.pdf", "page": 2, "id": "a2", "type": "absent", "text": pdfgen.SENTENCES[2]},
        {"pdf": "memo.pdf", "page": 1, "id": "m1", "type": "math", "math": "x^2"},
    ]
    (folder / "tests.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tests))
    mine = _eval(str(tmp_path / "ws2"), "--tests", str(folder / "tests.jsonl"))
    assert mine.returncode == 0, mine.stdout + mine.stderr
    assert "100.0% of 3 tests" in mine.stdout and "math (skipped)" in mine.stdout
    assert not (tmp_path / "ws2" / "canary").exists()  # a user's set is not the canary: nothing the sensor reads
    [answers] = (tmp_path / "ws2" / "eval").glob("*/answers")
    assert sorted(p.name for p in answers.iterdir()) == ["memo_pg1.md", "memo_pg2.md"]

    (folder / "tests.jsonl").write_text('{"pdf": "../../secret.pdf", "page": 1, "id": "x", "type": "present"}\n')
    bad = _eval(str(tmp_path / "ws2"), "--tests", str(folder / "tests.jsonl"))
    assert bad.returncode == 2 and "lies outside" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
