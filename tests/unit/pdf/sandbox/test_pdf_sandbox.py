"""Reading PDFs in a child process: pages come back as rendered, hangs time out, crashes stay in the child."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.pdf.sandbox.parent import ROWS_PER_BATCH, PdfSandbox, SandboxAborted, time_limit
from tests.support.builders import pdfgen

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


BATCHING = [sys.executable, "-m", "tests.support.batch_children"]


def _long_pdf(tmp_path: Path, pages: int = 40, name: str = "long.pdf") -> Path:
    """A born-digital PDF of `pages` pages (five batches for 40), each with text of its own."""
    text = [[f"Page {i + 1}.", pdfgen.SENTENCES[i % 8], pdfgen.SENTENCES[(i + 3) % 8]] for i in range(pages)]
    return pdfgen.write(tmp_path / name, pdfgen.text_pdf(text))


def _batch_files(worker: PdfSandbox) -> list[str]:
    return sorted(p.name for p in Path(worker._tmp.name).iterdir())


def test_a_long_pdf_streams_the_same_rows_as_rendering_in_process(tmp_path: Path) -> None:
    pdf = _long_pdf(tmp_path)
    expected = list(document_pages("pdf", str(pdf), 500))
    got = []
    with PdfSandbox() as worker:
        for row in worker.render("pdf", str(pdf), 500, timeout_s=60):
            got.append(row)
            # The batch this row came from is gone before its first row is handed out.
            assert f"render-1-{(len(got) - 1) // ROWS_PER_BATCH:06d}.parquet" not in _batch_files(worker)
        assert _batch_files(worker) == [] and worker._rendering is None
    assert [r["page_num"] for r in got] == list(range(1, 41))
    assert got == expected


def test_the_first_rows_leave_before_the_document_is_done(tmp_path: Path) -> None:
    pdf, gate = _long_pdf(tmp_path), tmp_path / "gate"
    # The child stops before it announces its second batch until the gate opens: whatever arrives before
    # that was sent while the rest of the document was still to come.
    with PdfSandbox(BATCHING + ["gated", str(gate)]) as worker:
        rows = worker.render("pdf", str(pdf), 500, timeout_s=60)
        first = [next(rows) for _ in range(ROWS_PER_BATCH)]
        assert [r["page_num"] for r in first] == list(range(1, 9))
        assert worker._proc is not None and worker._proc.poll() is None and worker._rendering is worker._proc
        gate.touch()
        got = first + list(rows)
        assert _batch_files(worker) == []
    assert got == list(document_pages("pdf", str(pdf), 500))


def test_a_child_that_dies_mid_document_aborts_after_its_first_batch(tmp_path: Path) -> None:
    pdf, short = _long_pdf(tmp_path), _long_pdf(tmp_path, 3, "short.pdf")
    got = []
    with PdfSandbox(BATCHING + ["crash"]) as worker:
        with pytest.raises(SandboxAborted) as info:
            got.extend(worker.render("pdf", str(pdf), 500, timeout_s=60))
        assert info.value.reason == "render_crashed" and "exit code" in info.value.detail
        # The second batch was written, never announced: it goes too.
        assert worker._proc is None and _batch_files(worker) == []
        again = list(worker.render("pdf", str(short), 500, timeout_s=60))
    assert got == list(document_pages("pdf", str(pdf), 500))[:ROWS_PER_BATCH]
    assert again == list(document_pages("pdf", str(short), 500))


def test_a_child_that_hangs_mid_document_times_out_at_the_documents_deadline(tmp_path: Path) -> None:
    pdf = _long_pdf(tmp_path)
    got = []
    with PdfSandbox(BATCHING + ["hang"]) as worker:
        worker.probe("pdf", str(pdf))  # the child is up: its start-up is not part of the render's time
        started = time.monotonic()
        with pytest.raises(SandboxAborted) as info:
            got.extend(worker.render("pdf", str(pdf), 500, timeout_s=3))
        elapsed = time.monotonic() - started
        assert info.value.reason == "render_timeout" and 3 <= elapsed < 15
        assert worker._proc is None and _batch_files(worker) == []
    assert [r["page_num"] for r in got] == list(range(1, 9))


@pytest.mark.parametrize("mode", ["long-line", "stray-path"])
def test_a_reply_outside_the_protocol_fails_the_render_and_the_child(tmp_path: Path, mode: str) -> None:
    pdf, short = _long_pdf(tmp_path), _long_pdf(tmp_path, 3, "short.pdf")
    precious = pdfgen.write(tmp_path / "precious.parquet", b"not the child's to name")
    with PdfSandbox(BATCHING + [mode, str(precious)]) as worker:
        with pytest.raises(SandboxAborted) as info:
            list(worker.render("pdf", str(pdf), 500, timeout_s=60))
        assert info.value.reason == "render_failed" and "protocol" in info.value.detail
        assert worker._proc is None and _batch_files(worker) == []
        assert len(list(worker.render("pdf", str(short), 500, timeout_s=60))) == 3
    assert precious.read_bytes() == b"not the child's to name"  # never read, never deleted


def test_an_abandoned_render_leaves_nothing_for_the_next_request(tmp_path: Path) -> None:
    pdf, other = _long_pdf(tmp_path), _long_pdf(tmp_path, 12, "other.pdf")
    expected = list(document_pages("pdf", str(other), 500))
    with PdfSandbox() as worker:
        rows = worker.render("pdf", str(pdf), 500, timeout_s=60)
        assert next(rows)["page_num"] == 1
        rows.close()  # the consumer stopped: the child, mid-document, is discarded with its files
        assert worker._proc is None and _batch_files(worker) == []
        assert list(worker.render("pdf", str(other), 500, timeout_s=60)) == expected
        # Left suspended, not closed: the next request still gets a child of its own.
        stale = worker.render("pdf", str(pdf), 500, timeout_s=60)
        next(stale)
        assert worker.probe("pdf", str(other))["page_count"] == 12
        assert list(worker.render("pdf", str(other), 500, timeout_s=60)) == expected
        with pytest.raises(SandboxAborted) as info:
            list(stale)
        assert info.value.reason == "render_failed"
        assert worker.probe("pdf", str(pdf))["page_count"] == 40


def test_a_document_whose_child_dies_mid_stream_is_a_rejection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ocr_pipeline.stages import page_images
    from ocr_pipeline.stages.filtered_pdfs import filter_group
    from ocr_pipeline.stages.pdf_inventory import scan_inputs
    from ocr_pipeline.workspace.ledger import read_stage_rejections
    from ocr_pipeline.workspace.storage import LocalWorkspace

    _long_pdf(tmp_path / "in", 20, "long.pdf")
    _long_pdf(tmp_path / "in", 2, "short.pdf")
    ws = LocalWorkspace(tmp_path / "ws")
    [group] = scan_inputs([str(tmp_path / "in")], ws, pages_per_group=1000).new_groups
    filter_group(ws, group, apply_filter=True)
    monkeypatch.setattr(page_images, "PdfSandbox", lambda **_: PdfSandbox(BATCHING + ["crash"]))
    streamed: list[str] = []
    result = page_images.render_group(ws, group, 500, on_page=lambda row: streamed.append(row["source"]))
    [rejection] = read_stage_rejections(ws, "render", group)
    assert rejection.source.endswith("long.pdf") and rejection.reason == "render_crashed"
    assert result.documents == 1 and result.pages == 2 and result.rejected == {"render_crashed": 1}
    # Its first batch went out before the child died; only the ledger says the document is not one.
    assert sum(s.endswith("long.pdf") for s in streamed) == ROWS_PER_BATCH
