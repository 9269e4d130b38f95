"""A page that falls back on the VLM path stores its full layout, byte for byte what a layout render stores.

The VLM path renders pages with pdfium's plain text only (running heads kept, stream order, no tables); a page
the model fails on every attempt gets its full layout afterwards. Real HTTP test server with faults, the real
sandbox child, the whole ocr_job: once with pages streamed while they render, once through the Pipes worker.
"""

from __future__ import annotations

import io
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from dagster import AssetSelection, DagsterInstance, materialize
from PIL import Image
from reportlab.pdfgen import canvas

from ocr_pipeline.defs.materialize import ASSETS_AND_CHECKS, run_group_outcome, run_inventory, run_resources
from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.records import TEXT_PLAIN
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.workspace.keys import ocr_key, pages_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import read_rows
from tests.support.builders import layout_pdfs, pdfgen
from tests.support.oracle import right_answers
from tests.support.shared_data import HISTORY
from tests.support.vlm_protocol import Fault, hist_key
from tests.support.vlm_server import VlmTestServer

RETRIES = 2
# A real page whose layout (an author table, a title without the arXiv stamp in the margin) is far from its plain text.
REAL_PAGE = HISTORY / "multi_columns" / "pdfs" / "0022f6bfbdb5040c91e5e85e3ab95b95ccf9_page_1_pg1.pdf"


def journal_pdf(pages: int) -> bytes:
    """Pages of prose that never repeats itself (a right answer must not read as a loop) under a running head,
    over a page number, in two columns."""
    words = " ".join(pdfgen.SENTENCES).replace(".", "").split()

    def page(n: int) -> Callable[[canvas.Canvas], None]:
        def draw(c: canvas.Canvas) -> None:
            c.setFont("Helvetica", 8)
            c.drawString(72, layout_pdfs.H - 36, "Journal of Rural Studies 12 (2026)")
            c.drawCentredString(layout_pdfs.W / 2, 28, str(40 + n))
            c.setFont("Helvetica", 10)
            pick = random.Random(n)
            for column, x in enumerate((72, 310)):
                for k in range(30):
                    line = " ".join(pick.choice(words) for _ in range(6))
                    c.drawString(x, layout_pdfs.H - 80 - 14 * k, f"{line} {column}{k}.")

        return draw

    return layout_pdfs.pdf_of_pages([page(n) for n in range(pages)])


def _corpus(folder: Path, real_page: bool) -> dict[tuple[str, int], str]:
    """The inputs, and (file, page) -> the text layer a layout render stores (what the release before stored)."""
    pdfgen.write(folder / "journal.pdf", journal_pdf(4))
    pdfgen.write(folder / "plain.pdf", pdfgen.text_pdf([pdfgen.SENTENCES[:3]]))
    if real_page:
        shutil.copy(REAL_PAGE, folder / "real.pdf")
    layouts = {}
    for pdf in sorted(folder.glob("*.pdf")):
        for row in document_pages("pdf", str(pdf), 1288):
            layouts[(pdf.name, row["page_num"])] = row["text_layer"]
    return layouts


@pytest.mark.parametrize(
    ("stream_pages", "real_page"),
    [
        pytest.param(True, False, id="streamed"),
        pytest.param(False, False, id="worker"),
        # A real page's layout is further from its plain text than any page the tests build.
        pytest.param(False, True, id="worker-real-page", marks=pytest.mark.shared_data),
    ],
)
def test_a_fallback_page_stores_its_full_layout(tmp_path: Path, stream_pages: bool, real_page: bool) -> None:
    corpus = tmp_path / "in"
    layouts = _corpus(corpus, real_page)
    answers = right_answers(corpus)
    with VlmTestServer(text_for=answers) as server:
        settings = PipelineSettings(
            workspace=str(tmp_path / "ws"), pdfs=[str(corpus)], server=server.url, max_page_retries=RETRIES
        )
        instance = DagsterInstance.ephemeral()
        [group] = run_inventory(settings, instance)
        # The pages' keys as the server computes them, from a render like the pipeline's (the PNG is the same
        # whichever text layer a row carries).
        keys = {}
        for pdf in sorted(corpus.glob("*.pdf")):
            for row in document_pages("pdf", str(pdf), 1288, text=TEXT_PLAIN):
                keys[(pdf.name, row["page_num"])] = hist_key(Image.open(io.BytesIO(row["png"])).convert("L"))
        failing = [("journal.pdf", 2), ("journal.pdf", 4)] + ([("real.pdf", 1)] if real_page else [])
        for name_page in failing:
            server.faults[keys[name_page]] = [Fault("garbage")] * RETRIES
        if not stream_pages:
            # Rendered first, so the Pipes worker, not the op, reads the pages and meets the fallbacks.
            res = materialize(ASSETS_AND_CHECKS, selection=AssetSelection.assets("filtered_pdfs", "page_images"),
                              partition_key=group, instance=instance, resources=run_resources(settings))  # fmt: skip
            assert res.success
        outcome = run_group_outcome(settings, group, instance, stream_pages=stream_pages)
        assert not server.violations

    ws = LocalWorkspace(settings.workspace)
    pages = {(Path(r["source"]).name, r["page_num"]): r for r in read_rows(ws, pages_key(group))}
    # The VLM path rendered every page with the plain text only, which differs from the layout on these pages.
    assert {r["text_layer_kind"] for r in pages.values()} == {TEXT_PLAIN}
    for name_page in failing:
        assert pages[name_page]["text_layer"] != layouts[name_page]
    stored = {(Path(r["source"]).name, r["page_num"]): r for r in read_rows(ws, ocr_key(group))}
    assert {k for k, r in stored.items() if r["is_fallback"]} == set(failing)
    for name_page in failing:
        row = stored[name_page]
        assert row["text"] == layouts[name_page], name_page  # byte for byte the layout render's text layer
        assert "layout_error" not in row["extra"]
    # Pages the model read keep its answers.
    assert stored[("journal.pdf", 1)]["text"] == answers[keys[("journal.pdf", 1)]]
    # Two of journal.pdf's four pages fell back: more than the gate allows, so it is a partial, not a document;
    # the run itself went through (every input ended as a document or a rejection).
    assert outcome.cause is None
