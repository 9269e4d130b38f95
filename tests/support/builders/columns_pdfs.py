"""Two-column PDFs whose gutter a title and a full-width caption cross: the reading order's built pages."""

from __future__ import annotations

from reportlab.lib.pagesizes import A4

from tests.support.builders.layout_pdfs import pdf_of_pages

W, H = A4
LEFT_X, RIGHT_X = 60.0, 310.0
TITLE = "A Title Set Across Both Columns Of The Page"
CAPTION_START = "Figure 1. A caption that runs across"


def column_lines(tag: str, n: int) -> list[str]:
    """Lines of one column, each naming its column and number (so an order can be read back)."""
    return [f"{tag} column sentence number {i:02d} goes on" for i in range(n)]


def crossed_gutter_pdf() -> bytes:
    """Title, two columns, a full-width figure caption across the gutter, two more columns. The right column's
    baselines sit half a line below the left's (as when its headings differ), so every line's glyph boxes overlap a
    line of the other column and no white band runs across the page between lines, nor above or below the caption
    (set one line under the left column's last line, half a line under the right's).
    """
    pitch = 12.0
    caption = [
        "Figure 1. A caption that runs across the whole width of the page, over the gutter between the",
        "two columns, and on to the right margin, as captions of full-width figures do in journals.",
    ]

    def columns(c, y: float, tag: str) -> float:  # type: ignore[no-untyped-def]  # `c`: reportlab's untyped Canvas
        c.setFont("Helvetica", 10)
        for k, (left, right) in enumerate(
            zip(column_lines(f"{tag} left", 12), column_lines(f"{tag} right", 12), strict=True)
        ):
            c.drawString(LEFT_X, y - k * pitch, left)
            c.drawString(RIGHT_X, y - k * pitch - pitch / 2, right)
        return y - 12 * pitch

    def draw(c) -> None:  # type: ignore[no-untyped-def]  # `c`: reportlab's untyped Canvas
        c.setFont("Helvetica-Bold", 16)
        c.drawString(LEFT_X, H - 70, TITLE)
        y = columns(c, H - 100, "upper")
        c.setFont("Helvetica-Oblique", 10)
        for k, line in enumerate(caption):
            c.drawString(LEFT_X, y - k * pitch, line)
        columns(c, y - len(caption) * pitch, "lower")

    return pdf_of_pages([draw])
