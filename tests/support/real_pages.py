"""Real page texts with no model loop in them: pdf-parse-bench ground truth and olmOCR-Bench old-scan answers.

Used to show the quality signals flag nothing on honest pages (the false-positive rate) and to time them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

# ../shared/data beside the checkout; TESTS_SHARED_DATA points elsewhere (a worktree outside the project folder).
SHARED_DATA = Path(
    os.environ.get("TESTS_SHARED_DATA") or Path(__file__).resolve().parents[2].parent / "shared" / "data"
)
BENCH = SHARED_DATA / "olmocr-bench-history"


def real_page_texts() -> list[tuple[str, str]]:
    """(name, text) of every ground-truth page found under ../shared/data; [] where the data is absent."""
    pages: list[tuple[str, str]] = []
    for path in sorted((SHARED_DATA / "pdf-parse-bench").glob("*/ground_truth/*.json")):
        pages.append((f"{path.parent.parent.name}/{path.stem}", _truth(path)))
    for path in sorted(BENCH.glob("*/*/*.md")):
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
    pairs = []
    for path in sorted((SHARED_DATA / "pdf-parse-bench").glob("*/ground_truth/*.json")):
        pdf = path.parent.parent / "pdfs" / f"{path.stem}.pdf"
        pairs.append((f"{path.parent.parent.name}/{path.stem}", _truth(path), text_layer(pdf)))
    for path in sorted((BENCH / "old_scans" / "olmocr_pipeline").glob("*.md")):
        human = BENCH / "old_scans" / "human" / path.name
        if human.exists():
            pairs.append((f"old_scans/{path.stem}", path.read_text(encoding="utf-8"), human.read_text("utf-8")))
    return pairs


def born_digital_layers() -> list[tuple[str, str]]:
    """(name, text layer) of olmOCR-Bench's born-digital pages (headers_footers, multi_columns): many languages."""
    pdfs = sorted(BENCH.glob("headers_footers/pdfs/*.pdf")) + sorted(BENCH.glob("multi_columns/pdfs/*.pdf"))
    return [(pdf.name, text_layer(pdf)) for pdf in pdfs]
