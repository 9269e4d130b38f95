"""Reading PDFs in a child process: pages come back as rendered, hangs time out, crashes stay in the child."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from ocr_pipeline.pdf.sandbox import PdfSandbox, SandboxAborted, time_limit
from tests.support import pdfgen

MISBEHAVING = [sys.executable, "-m", "tests.support.render_children"]


def test_pages_come_back_and_one_child_serves_many_inputs(tmp_path: Path) -> None:
    a = pdfgen.write(tmp_path / "a.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[0]], [pdfgen.SENTENCES[1]]]))
    garbage = pdfgen.write(tmp_path / "bad.pdf", b"%PDF-1.4 nothing else")
    with PdfSandbox() as worker:
        rows = list(worker.render("pdf", str(a), 500, timeout_s=60))
        assert [r["page_num"] for r in rows] == [1, 2]
        assert all(r["png"].startswith(b"\x89PNG") and max(r["width"], r["height"]) == 500 for r in rows)
        assert "quick brown fox" in rows[0]["text_layer"]
        child = worker._proc
        with pytest.raises(SandboxAborted) as info:
            list(worker.render("pdf", str(garbage), 500, timeout_s=60))
        assert info.value.reason == "render_failed"
        assert len(list(worker.render("pdf", str(a), 500, timeout_s=60))) == 2 and worker._proc is child


def test_a_hang_is_cut_off_and_the_next_input_gets_a_new_child(tmp_path: Path) -> None:
    with PdfSandbox(MISBEHAVING + ["hang"]) as worker:
        started = time.monotonic()
        with pytest.raises(SandboxAborted) as info:
            list(worker.render("pdf", "x.pdf", 500, timeout_s=1))
        assert info.value.reason == "render_timeout" and time.monotonic() - started < 30
        assert worker._proc is None


def test_a_crash_stays_in_the_child(tmp_path: Path) -> None:
    with PdfSandbox(MISBEHAVING + ["crash"]) as worker:
        with pytest.raises(SandboxAborted) as info:
            list(worker.render("pdf", "x.pdf", 500, timeout_s=60))
        assert info.value.reason == "render_crashed" and "exit code" in info.value.detail


def test_time_limit_grows_with_pages() -> None:
    assert time_limit(0) == time_limit(1) < time_limit(100)


def test_probe_and_filter_run_in_the_child(tmp_path: Path) -> None:
    pdf = pdfgen.write(tmp_path / "a.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[0]]] * 3))
    form = pdfgen.write(tmp_path / "form.pdf", pdfgen.form_pdf())
    with PdfSandbox() as sandbox:
        facts = sandbox.probe("pdf", str(pdf))
        assert facts["page_count"] == 3 and facts["reason"] is None and len(facts["sha256"]) == 64
        assert sandbox.filter(str(pdf))["keep"] is True
        assert sandbox.filter(str(form))["reason"] == "form_fields"


def test_a_crashing_probe_is_a_rejection_not_a_dead_scan(tmp_path: Path) -> None:
    from ocr_pipeline.pdf.input_facts import probe_location
    from ocr_pipeline.workspace.storage import LocalWorkspace

    pdf = pdfgen.write(tmp_path / "a.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[0]]]))
    with PdfSandbox(MISBEHAVING + ["crash"]) as sandbox:
        facts = probe_location("pdf", str(pdf), LocalWorkspace(tmp_path / "ws"), None, sandbox)
    assert facts.reason == "probe_crashed"
