"""A real run's step log shows progress while the step runs, and page_images is materialized before the OCR.

The schedule itself (2 s, every few seconds, bounded) is unit-tested with a fake clock (tests/unit/test_progress.py);
here the lines must travel from the stage, through the step's log (or the Pipes worker's), into the event log.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from dagster import DagsterEventType, DagsterInstance, EventLogEntry

from ocr_pipeline.defs import render_ocr
from ocr_pipeline.defs.jobs import ocr_job
from ocr_pipeline.defs.materialize import run_group_outcome, run_inventory
from ocr_pipeline.progress import LoggingProgress
from ocr_pipeline.settings import PipelineSettings
from tests.support.builders import pdfgen
from tests.support.oracle import right_answers
from tests.support.vlm_server import VlmTestServer


class EagerProgress(LoggingProgress):
    """The step's progress with no wait before the first line: a test corpus renders and reads in under 2 s."""

    def __init__(self, log: Callable[[str], None]) -> None:
        super().__init__(log, first_s=0.0, min_gap_s=0.0)


def _corpus(tmp_path: Path, pages: int) -> Path:
    """tmp_path/in holding one PDF of `pages` text pages (the same bytes each call)."""
    pdf = pdfgen.text_pdf([[pdfgen.SENTENCES[i % len(pdfgen.SENTENCES)]] for i in range(pages)])
    pdfgen.write(tmp_path / "in" / "a.pdf", pdf)
    return tmp_path / "in"


def _ocr_run_log(tmp_path: Path, pages: int, **settings: Any) -> list[EventLogEntry]:
    """Run ocr_job for a one-input group of `pages` text pages; the render_and_ocr step's entries, in order."""
    _corpus(tmp_path, pages)
    config = PipelineSettings(workspace=str(tmp_path / "ws"), pdfs=[str(tmp_path / "in")], **settings)
    with DagsterInstance.ephemeral() as instance:
        [group] = run_inventory(config, instance)
        outcome = run_group_outcome(config, group, instance, stream_pages=False)
        assert outcome.cause is None, outcome.trace
        [run] = [r for r in instance.get_runs() if r.job_name == ocr_job.name]
        return [e for e in instance.all_logs(run.run_id) if e.step_key == "render_and_ocr"]


def _kind(entry: EventLogEntry) -> str:
    """What an entry is, for ordering: the asset materialized, the step's success, or the log line itself."""
    event = entry.dagster_event
    if event is None:
        return entry.user_message
    if event.event_type == DagsterEventType.ASSET_MATERIALIZATION and event.asset_key is not None:
        return f"materialized {event.asset_key.to_user_string()}"
    return event.event_type.value


def test_the_cpu_engine_step_logs_progress_before_it_ends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render_ocr, "LoggingProgress", EagerProgress)
    story = [_kind(e) for e in _ocr_run_log(tmp_path, 3)]
    ends = story.index("STEP_SUCCESS")
    rendered, ocr_done = story.index("materialized page_images"), story.index("materialized vlm_ocr_outputs")
    ocr_lines = [i for i, line in enumerate(story) if line.startswith("ocr g000001: ")]
    # While the step runs: page_images is already materialized, the log names the asset now running, and the OCR
    # phase reports pages done, rate and ETA, then its closing line, all before vlm_ocr_outputs materializes.
    assert rendered < story.index("page_images materialized; vlm_ocr_outputs running for g000001") < ocr_lines[0]
    assert ocr_lines[-1] < ocr_done < ends
    assert "1/3 pages (33%)" in story[ocr_lines[0]] and "pages/s, ETA" in story[ocr_lines[0]]
    assert story[ocr_lines[-1]].startswith("ocr g000001: done, 3/3 pages in ")
    assert any(line.startswith("render g000001: ") and "pages/s" in line for line in story[:rendered])


def test_the_pipes_worker_reports_its_progress_into_the_step_log(tmp_path: Path) -> None:
    # One request at a time, 1.2 s each: the second page ends past the first line's 2 s (the first page too, on a
    # slow machine), the third closes the phase.
    # Right answers (tests.support.oracle): unrelated ones would stop the group at the agreement gate.
    answers = right_answers(_corpus(tmp_path, 3))
    with VlmTestServer(model="olmocr-test", capacity=1, service_time_s=1.2, text_for=answers) as server:
        story = [_kind(e) for e in _ocr_run_log(tmp_path, 3, server=server.url, model="olmocr-test")]
    ocr_lines = [line for line in story[: story.index("STEP_SUCCESS")] if line.startswith("ocr g000001: ")]
    assert re.fullmatch(r"ocr g000001: [12]/3 pages \(\d+%\), [\d.]+ pages/s, ETA \d+s", ocr_lines[0])
    assert ocr_lines[-1].startswith("ocr g000001: done, 3/3 pages in ")
