"""One bad input never sinks its group: an unreadable page rejects its own PDF, the rest of the group ships."""

from __future__ import annotations

from pathlib import Path

from ocr_pipeline.local_run import run_local
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.workspace.keys import dolma_key, rejected_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import read_gzip_jsonl, read_jsonl
from tests.support.builders import pdfgen


def half_broken_pdf() -> bytes:
    """Two pages in the page tree; the second points at an object that does not exist, so it never loads."""
    pdf = pdfgen.text_pdf([[pdfgen.SENTENCES[0]], [pdfgen.SENTENCES[1]]])
    return pdf.replace(b"/Kids [ 3 0 R 4 0 R ]", b"/Kids [ 3 0 R 99 0 R ]")


def test_a_pdf_with_an_unloadable_page_is_rejected_alone(tmp_path: Path) -> None:
    pdfgen.write(tmp_path / "in" / "half_broken.pdf", half_broken_pdf())
    pdfgen.write(tmp_path / "in" / "good.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[2]]]))
    settings = PipelineSettings(workspace=str(tmp_path / "ws"), pdfs=[str(tmp_path / "in")])
    summary = run_local(settings, show_progress=False)
    # The blocking page-error check counts engine failures only: the group is not stopped by the bad page.
    assert summary.ok and summary.failed_groups == [], summary
    ws = LocalWorkspace(settings.workspace)
    [doc] = read_gzip_jsonl(ws.read_bytes(dolma_key("g000001")))
    assert doc["metadata"]["Source-File"].endswith("good.pdf")
    [line] = read_jsonl(ws, rejected_key("g000001"))
    assert line["source"].endswith("half_broken.pdf") and line["reason"] == "too_many_fallback_pages"
