"""Pages of ../shared/data whose CropBox leaves text of their sheet out, and what the pipeline does with each.

    .venv/bin/python -m benchmarks.crop_box_survey [--data ../shared/data]

For every page whose CropBox differs from its MediaBox: the characters outside the CropBox but on the sheet, the
characters inside it, the share of the sheet the CropBox shows, and whether `pdf/crop_box.py` replaces it by the
MediaBox (the note it writes). Prints one table, pages with hidden text first.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pypdfium2 as pdfium

from ocr_pipeline.pdf.crop_box import repair_crop_box

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def _count(page: pdfium.PdfPage, rect: tuple[float, float, float, float]) -> int:
    textpage = page.get_textpage()
    try:
        return sum(not c.isspace() for c in textpage.get_text_bounded(*rect))
    finally:
        textpage.close()


def survey(data: Path, max_pages: int = 400) -> list[tuple[int, int, float, str, str]]:
    """(hidden, shown, shown share of the sheet, page, note) for each page with a CropBox unlike its MediaBox."""
    rows = []
    for path in sorted(data.rglob("*.pdf")):
        try:
            doc = pdfium.PdfDocument(str(path))
        except pdfium.PdfiumError:
            continue
        try:
            for index in range(min(len(doc), max_pages)):
                page = doc[index]
                crop, media = page.get_cropbox(), page.get_mediabox()
                if all(abs(a - b) < 1 for a, b in zip(crop, media, strict=True)):
                    continue
                shown = _count(page, crop)
                hidden = max(0, _count(page, media) - shown)
                area = (crop[2] - crop[0]) * (crop[3] - crop[1]) / max((media[2] - media[0]) * (media[3] - media[1]), 1)
                note = repair_crop_box(page, doc, index) or "kept"  # as the pipeline asks it
                rows.append((hidden, shown, area, f"{path.relative_to(data)} p{index + 1}", note))
        finally:
            doc.close()
    return sorted(rows, reverse=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    args = ap.parse_args(argv)
    print("| hidden chars | shown chars | CropBox share of sheet | page | pipeline |\n|---:|---:|---:|---|---|")
    for hidden, shown, area, where, note in survey(args.data):
        if hidden:
            print(f"| {hidden:,} | {shown:,} | {area:.2f} | {where[:80]} | {note[:60]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
