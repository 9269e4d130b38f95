"""Regenerate the bundled sample inputs in ocr_pipeline/samples/ (born-digital, two-column, scans)."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support.builders import pdfgen

ROOT = Path(__file__).resolve().parent.parent

OUT = ROOT / "ocr_pipeline" / "samples"
BENCH = ROOT.parent / "shared" / "data" / "pdf-parse-bench" / "2026-q1-formulas-only" / "pdfs" / "000.pdf"

REPORT = [
    [
        "Annual report of the river valley cooperative for the year past.",
        "Farmers harvested wheat and barley during the warm autumn weeks, and the new mill opened in spring.",
        "The committee approved the annual budget after a long debate about the bridge repairs.",
    ],
    [
        "Engineers tested the new bridge with heavy trucks and sensors before it reopened in June.",
        "Membership grew by twelve percent, mostly young families moving into the valley.",
    ],
]
LETTER = [
    "Dear members, thank you for a remarkable year of hard work.",
    "The harvest festival raised enough money to repair the school roof.",
    "We look forward to seeing all of you at the spring assembly.",
]


def main() -> None:
    """Write every sample file."""
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "born_digital_report.pdf").write_bytes(pdfgen.text_pdf(REPORT))
    left = [
        "Rivers shape the land over thousands of years by carrying sand and stone downstream.",
        "Floods deposit rich soil on the plains, which is why early farms settled there.",
    ]
    right = [
        "Modern dams control the water but also trap the sediment that once fed the deltas.",
        "Engineers now release controlled floods to restore part of that natural cycle.",
    ]
    (OUT / "two_column_article.pdf").write_bytes(pdfgen.two_column_pdf(left, right))
    (OUT / "scanned_letter.pdf").write_bytes(pdfgen.scan_pdf(pdfgen.text_pdf([LETTER], font_size=16), dpi=110))
    rotated = pdfgen.scan_pdf(pdfgen.text_pdf([LETTER[::-1]], font_size=16), rotate_content=90, dpi=110)
    (OUT / "rotated_scan.pdf").write_bytes(rotated)
    if BENCH.is_file():
        shutil.copyfile(BENCH, OUT / "formula_page.pdf")
    for path in sorted(OUT.iterdir()):
        print(f"{path.name}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
