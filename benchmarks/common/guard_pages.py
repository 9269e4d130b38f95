"""Every real page of the benchmark data and the canary, with an honest answer and the page's own text layer.

The guards against a bad model (loops, duplicated paragraphs, invented text) are judged on these: an honest answer
must never be flagged. The answer is the truth where a set has one (pdf-parse-bench's ground truth, the human
transcriptions of the old scans, the canary's references), else what an honest reader gives: the page's text layer
on born-digital pages (what the CPU engine answers), the CPU engine's OCR on scans without one. olmOCR's own
answers to the old scans are kept apart: a model's answers, two of which hold a paragraph written twice.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium

from ocr_pipeline.canary.bench_set import shipped_tests_file
from ocr_pipeline.pdf.render import render_pdf_page
from tests.support.shared_data import HEAVY_PDFS, HISTORY, PARSE_BENCH, PARSE_SETS, require_shared_data

CANARY = shipped_tests_file().parent
BORN_DIGITAL = ("headers_footers", "multi_columns", "long_tiny_text")


@dataclass(frozen=True)
class RealPage:
    """One real page: where it is, an honest answer, its text layer ("" for a scan), how the answer was made."""

    group: str  # the set, e.g. "pdf-parse-bench/formulas" or "old_scans (olmOCR's answers)"
    name: str
    pdf: Path
    index: int  # 0-based page
    answer: str  # "" where it must be read by OCR (`needs_ocr`)
    layer: str
    source: str  # "ground truth", "human", "text layer", "reference", "olmOCR", "CPU OCR"

    @property
    def half(self) -> str:
        """A fixed split by name: "tune" or "check"."""
        return "tune" if hashlib.sha1(self.name.encode()).digest()[0] % 2 == 0 else "check"

    @property
    def needs_ocr(self) -> bool:
        """A scan without a transcription: its honest answer is the CPU engine's OCR."""
        return self.source == "CPU OCR"


def layers(pdf: Path) -> list[str]:
    """Each page's text layer as pdfium extracts it."""
    doc = pdfium.PdfDocument(str(pdf))
    try:
        return [str(doc[i].get_textpage().get_text_range()) for i in range(len(doc))]
    finally:
        doc.close()


def render_png(pdf: Path, index: int) -> bytes:
    """The page rendered as the pipeline renders it (1288 px on the long side)."""
    doc = pdfium.PdfDocument(str(pdf))
    try:
        return render_pdf_page(doc, index).png
    finally:
        doc.close()


def _truth(path: Path) -> str:
    blocks = json.loads(path.read_text(encoding="utf-8"))
    return "\n\n".join(str(b.get("data", "")) for b in blocks if isinstance(b, dict))


def _layered(group: str, pdf: Path, name: str) -> Iterator[RealPage]:
    """Each page of a PDF answered by its layer, or by OCR where it has none."""
    for i, layer in enumerate(layers(pdf)):
        source = "text layer" if layer.strip() else "CPU OCR"
        yield RealPage(group, f"{name}#{i + 1}", pdf, i, layer, layer, source)


def real_pages(heavy: bool = False) -> Iterator[RealPage]:
    """Every real page of the shared data (tests.support.shared_data) and the canary's pages.

    The heavy PDFs only when asked (`heavy`): read in this process, one of them took it past 18 GB once; run them
    alone under a memory cap (`prlimit --as`).
    """
    require_shared_data()
    for sub, folder_name in PARSE_SETS.items():
        folder = PARSE_BENCH / folder_name
        for truth in sorted((folder / "ground_truth").glob("*.json")):
            pdf = folder / "pdfs" / f"{truth.stem}.pdf"
            yield RealPage(f"pdf-parse-bench/{sub}", f"{sub}/{truth.stem}", pdf, 0, _truth(truth),
                           layers(pdf)[0], "ground truth")  # fmt: skip
    for sub in BORN_DIGITAL:
        for pdf in sorted((HISTORY / sub / "pdfs").glob("*.pdf")):
            yield from _layered(sub, pdf, f"{sub}/{pdf.stem}")
    scans = HISTORY / "old_scans"
    for human in sorted((scans / "human").glob("*.md")):
        pdf = scans / "pdfs" / f"{human.name.split('_pg')[0]}.pdf"
        if pdf.exists():
            yield RealPage("old_scans", f"old_scans/{pdf.stem}", pdf, 0, human.read_text("utf-8"), "", "human")
            answer = scans / "olmocr_pipeline" / human.name
            if answer.exists():
                yield RealPage("old_scans (olmOCR's answers)", f"old_scans/{pdf.stem}/olmocr", pdf, 0,
                               answer.read_text("utf-8"), "", "olmOCR")  # fmt: skip
    for pdf in sorted((HISTORY / "old_scans_math" / "pdfs").glob("*.pdf")):
        yield RealPage("old_scans_math", f"old_scans_math/{pdf.stem}", pdf, 0, "", "", "CPU OCR")
    for pdf in sorted(HEAVY_PDFS.glob("*.pdf")) if heavy else []:
        yield from _layered("heavy-pdfs", pdf, f"heavy/{pdf.stem}")
    for reference in sorted((CANARY / "reference").glob("*.md")):
        pdf = CANARY / "pdfs" / f"{reference.stem}.pdf"
        layer = "" if reference.stem.startswith(("scan_", "blank_")) else layers(pdf)[0]
        yield RealPage("canary", f"canary/{reference.stem}", pdf, 0, reference.read_text("utf-8"), layer,
                       "reference")  # fmt: skip
