"""Real page texts with no model loop in them: pdf-parse-bench ground truth and olmOCR-Bench old-scan answers.

Used to show the quality signals flag nothing on honest pages (the false-positive rate) and to time them. Each
function raises where the data is absent, so a test that reads them without the `shared_data` marker (which skips it
there and counts it in the summary) fails instead of passing on nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.shared_data import HISTORY, PARSE_BENCH, SHARED_DATA, shared_data_present, where


def _require() -> None:
    if not shared_data_present():
        raise FileNotFoundError(f"no real documents at {where()}: mark the test `shared_data`")


def real_page_texts() -> list[tuple[str, str]]:
    """(name, text) of every ground-truth page of the real documents (tests.support.shared_data)."""
    _require()
    pages: list[tuple[str, str]] = []
    for path in sorted(PARSE_BENCH.glob("*/ground_truth/*.json")):
        pages.append((f"{path.parent.parent.name}/{path.stem}", _truth(path)))
    for path in sorted(HISTORY.glob("*/*/*.md")):
        pages.append((str(path.relative_to(SHARED_DATA)), path.read_text(encoding="utf-8")))
    return pages


def _truth(path: Path) -> str:
    blocks = json.loads(path.read_text(encoding="utf-8"))
    return "\n\n".join(str(b.get("data", "")) for b in blocks if isinstance(b, dict))


def text_layer(pdf: Path) -> str:
    """The first page's text layer as pdfium extracts it (what the probe reads from a born-digital page)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    try:
        return str(doc[0].get_textpage().get_text_range())
    finally:
        doc.close()


def answer_and_reference_pairs() -> list[tuple[str, str, str]]:
    """(name, right answer, the page's own words) for real pages: two independent readings of each page.

    pdf-parse-bench: its ground truth (LaTeX formulas included) against the PDF's text layer; olmOCR-Bench old
    scans: olmOCR's own answer against the human transcription.
    """
    _require()
    pairs = []
    for path in sorted(PARSE_BENCH.glob("*/ground_truth/*.json")):
        pdf = path.parent.parent / "pdfs" / f"{path.stem}.pdf"
        pairs.append((f"{path.parent.parent.name}/{path.stem}", _truth(path), text_layer(pdf)))
    for path in sorted((HISTORY / "old_scans" / "olmocr_pipeline").glob("*.md")):
        human = HISTORY / "old_scans" / "human" / path.name
        if human.exists():
            pairs.append((f"old_scans/{path.stem}", path.read_text(encoding="utf-8"), human.read_text("utf-8")))
    return pairs


def born_digital_layers() -> list[tuple[str, str]]:
    """(name, text layer) of olmOCR-Bench's born-digital pages (headers_footers, multi_columns): many languages."""
    _require()
    pdfs = sorted(HISTORY.glob("headers_footers/pdfs/*.pdf")) + sorted(HISTORY.glob("multi_columns/pdfs/*.pdf"))
    return [(pdf.name, text_layer(pdf)) for pdf in pdfs]
