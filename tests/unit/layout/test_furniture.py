"""Page furniture is dropped (running heads, page numbers, margin stamps); body text near a margin is kept."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pypdfium2 as pdfium
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from ocr_pipeline.layout.band_lines import signature
from ocr_pipeline.layout.furniture import furniture_rows
from ocr_pipeline.layout.model_regions import in_furniture_regions
from ocr_pipeline.layout.page_reader import TEXT_LAYER_PAGE, read_page
from ocr_pipeline.layout.reading_order import Box
from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.textlayer.reader import extract_page_text
from tests.support.builders import layout_pdfs, pdfgen

S = pdfgen.SENTENCES
W, H = A4


def test_running_head_and_page_numbers_dropped_on_every_page(tmp_path: Path) -> None:
    path = pdfgen.write(tmp_path / "doc.pdf", layout_pdfs.furniture_pdf(pages=3))
    for n, row in enumerate(document_pages("pdf", str(path), 300)):
        text = row["text_layer"]
        assert "Journal of Rural Studies" not in text
        assert str(40 + n) not in text.split()


def test_body_text_running_into_the_bottom_band_is_kept(tmp_path: Path) -> None:
    # 48 body lines: the last ones sit in the bottom tenth of the page, next to the page number, and the
    # same sentences recur near the margins of the other pages. They are body text all the same.
    path = pdfgen.write(tmp_path / "doc.pdf", layout_pdfs.furniture_pdf(pages=3))
    for n, row in enumerate(document_pages("pdf", str(path), 300)):
        lines = row["text_layer"].splitlines()
        assert lines[0] == S[n % 8]
        assert lines[-1] == S[(n + 47) % 8]
        assert len(lines) == 48


def test_vertical_download_stamp_in_the_margin_dropped() -> None:
    doc = pdfium.PdfDocument(layout_pdfs.stamp_pdf())
    try:
        text = extract_page_text(doc[0])
    finally:
        doc.close()
    assert "Downloaded" not in text and "example.org" not in text
    assert text.splitlines() == S


def test_short_body_line_at_the_top_is_kept_but_a_notice_is_not() -> None:
    page_h, body = 842.0, [Box(72, 300 + 14 * k, 500, 311 + 14 * k, S[k % 8]) for k in range(10)]
    title = Box(72, 60, 200, 71, "Ibanez")
    notice = Box(72, 810, 300, 818, "Download date: 28 Dec 2018")
    number = Box(290, 790, 300, 798, "17")
    drop = furniture_rows([title, notice, number, *body], 595.0, page_h)
    assert drop == {id(notice), id(number)}


# One-page PDFs: no repetition across pages to lean on, only position, isolation, size and the text's shape.
def _page(body_top: float, extra: Callable[[canvas.Canvas], None], lines: int = 30) -> str:
    """Text of an A4 page with `lines` body lines (11 pt on 13 pt) from `body_top` down, plus `extra` drawn on it."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    c.setFont("Helvetica", 11)
    for k in range(lines):
        c.drawString(72, body_top - 13 * k, S[k % 8])
    extra(c)
    c.showPage()
    c.save()
    doc = pdfium.PdfDocument(buf.getvalue())
    try:
        return extract_page_text(doc[0])
    finally:
        doc.close()


def _text_at(x: float, y: float, text: str, size: float = 11, align: str = "left") -> Callable[[canvas.Canvas], None]:
    def draw(c: canvas.Canvas) -> None:
        c.setFont("Helvetica", size)
        {"left": c.drawString, "right": c.drawRightString, "centre": c.drawCentredString}[align](x, y, text)

    return draw


def test_running_head_with_page_number_at_the_outer_edge_dropped() -> None:
    # Body-sized, a blank line above the body: close enough that the old "1.6 line heights apart" rule kept it.
    def head(c: canvas.Canvas) -> None:
        _text_at(72, 800, "Annals of Field Botany")(c)
        _text_at(523, 800, "217", align="right")(c)

    text = _page(785, head)
    assert "Annals" not in text and "217" not in text
    assert text.splitlines()[0] == S[0] and len(text.splitlines()) == 30


def test_centred_dashed_page_number_above_a_wide_bottom_margin_dropped() -> None:
    # "- 3 -" sits 12% up from the bottom (a wide margin): outside the bottom tenth, but alone under the body.
    text = _page(760, _text_at(W / 2, 100, "- 3 -", align="centre"), lines=40)
    assert "3" not in text.split() and "- 3 -" not in text
    assert text.splitlines()[-1] == S[39 % 8]


def test_download_and_terms_of_use_footer_dropped() -> None:
    def footer(c: canvas.Canvas) -> None:
        _text_at(72, 61, "Downloaded from https://journals.example.org on 12 March 2020")(c)
        _text_at(72, 48, "Terms of Use: https://journals.example.org/terms")(c)

    # Body-sized and a blank line below the body (the old rule wanted 1.6 line heights, or small print).
    text = _page(780, footer, lines=54)
    assert "Downloaded" not in text and "Terms of Use" not in text
    assert text.splitlines()[-1] == S[53 % 8] and len(text.splitlines()) == 54


def test_issn_and_doi_line_at_the_top_dropped() -> None:
    text = _page(785, _text_at(72, 815, "ISSN 1234-5678 | doi:10.1000/abc.2020.17"))
    assert "ISSN" not in text and "doi" not in text
    assert text.splitlines()[0] == S[0]


def test_body_near_the_margins_kept_numbered_heading_and_last_line() -> None:
    # A numbered heading set apart at the top and a paragraph's short last line at the foot are body text; the
    # old rule took "3. Results" for a running head opening with its page number.
    def extra(c: canvas.Canvas) -> None:
        _text_at(72, 770, "3. Results")(c)
        _text_at(72, 735 - 13 * 50, "and so the season ended.")(c)

    text = _page(735, extra, lines=50)
    lines = text.splitlines()
    assert lines[0] == "3. Results" and lines[-1] == "and so the season ended."
    assert len(lines) == 52


def _masthead(lines: list[tuple[str, float]]) -> tuple[set[int], list[Box], list[Box]]:
    """A first page: a block of `lines` (text, height) at the top, a title well below, then ten body lines."""
    top = [Box(40, 8 + 8 * k, 40 + 5 * len(t), 8 + 8 * k + size, t) for k, (t, size) in enumerate(lines)]
    title = Box(40, 95, 480, 112, "A Role in Allosteric Modulation of Ligand Binding")
    body = [Box(40, 160 + 12 * k, 540, 169 + 12 * k, S[k % 8]) for k in range(10)]
    return furniture_rows([*top, title, *body], 585.0, 783.0), top, [title, *body]


def test_journal_masthead_of_six_lines_dropped() -> None:
    # More lines than a running head, body-sized in part; most of them carry a journal's marks (a URL, the volume,
    # a copyright line, "Printed in"), and the block stands off the title: a masthead, all of it furniture.
    drop, top, rest = _masthead(
        [
            ("Supplemental material to this article can be found at:", 9.5),
            ("http://journal.example.org/content/suppl/2011/03/17/1.DC1", 9.5),
            ("0026-895X/11/7906-1044-1052$25.00", 6.0),
            ("JOURNAL OF EXAMPLES Vol. 79, No. 6", 6.0),
            ("Copyright © 2011 The Society of Examples", 6.0),
            ("J Ex 79:1044-1052, 2011 Printed in U.S.A.", 6.0),
        ]
    )
    assert {id(b) for b in top} <= drop
    assert not drop & {id(b) for b in rest}


def test_top_block_of_prose_with_one_marked_line_kept() -> None:
    # Four body-sized lines at the top, one of which happens to hold a date: a paragraph, not a masthead.
    drop, top, rest = _masthead([(S[k], 9.0) for k in range(3)] + [("signed on June 17, 2016 by both parties", 9.0)])
    assert not drop & {id(b) for b in top + rest}


# A layout model's header and footer regions (regions/detector.py) join the rules; layout only sees their boxes.
def _body(top: float, n: int = 30) -> list[Box]:
    return [Box(72, top + 14 * k, 500, top + 11 + 14 * k, S[k % 8]) for k in range(n)]


def test_boxes_in_a_header_region_are_furniture_however_close_to_the_body() -> None:
    # A line set like the body, one leading above it: the rules alone keep it.
    head = Box(72, 62, 300, 73, "Comparative studies of resin materials")
    body = _body(76)
    assert id(head) not in furniture_rows([head, *body], 595.0, 842.0)
    region = Box(60, 58, 320, 76, "header")
    page = read_page([head, *body], [], 595.0, 842.0, TEXT_LAYER_PAGE, furniture=[region])
    assert page.text.splitlines() == [b.text for b in body]
    assert in_furniture_regions([head, *body], [region], None, 842.0) == {id(head)}


def test_a_region_in_the_middle_of_the_page_is_no_header_whatever_the_model_says() -> None:
    body = _body(76, 50)
    middle = Box(60, 400, 520, 440, "footer")
    assert in_furniture_regions(body, [middle], None, 842.0) == set()
    page = read_page(body, [], 595.0, 842.0, TEXT_LAYER_PAGE, furniture=[middle])
    assert len(page.text.splitlines()) == 50


def test_in_a_long_document_the_models_header_must_recur_or_carry_a_mark() -> None:
    # A chapter's title at the top of its first page looks like a running head to the model; across the document's
    # pages it recurs nowhere, so it stays. A head that recurs, or a bare page number, goes.
    title = Box(72, 60, 320, 72, "2. OVERVIEW OF THE ASSESSMENT")
    number = Box(290, 800, 300, 810, "17")
    body = _body(90, 40)
    regions = [Box(60, 55, 330, 76, "header"), Box(280, 795, 310, 815, "footer")]
    boxes = [title, *body, number]
    assert in_furniture_regions(boxes, regions, None, 842.0) == {id(title), id(number)}  # one page: the model's word
    assert in_furniture_regions(boxes, regions, frozenset(), 842.0) == {id(number)}
    recurs = frozenset({"t:" + signature(title.text)})
    assert in_furniture_regions(boxes, regions, recurs, 842.0) == {id(title), id(number)}


def test_the_model_is_asked_only_when_a_line_the_rules_left_could_go_by_it() -> None:
    # Its run is most of a born-digital page's time: a page of prose, or one whose only candidate the rules already
    # dropped, never needs it; the regions it gives decide as a list would.
    asked: list[int] = []

    def regions() -> list[Box]:
        asked.append(1)
        return [Box(280, 795, 310, 815, "footer")]

    body = _body(90, 40)
    number = Box(290, 800, 300, 810, "17")
    assert in_furniture_regions(body, regions, None, 842.0) == set()
    assert asked == []  # prose only
    assert in_furniture_regions([*body, number], regions, None, 842.0, {id(number)}) == set()
    assert asked == []  # the rules took the page number already
    assert in_furniture_regions([*body, number], regions, None, 842.0) == {id(number)}
    assert asked == [1]


# Whole documents: repetition across pages finds what a page alone does not show.
def test_a_books_running_heads_go_on_every_page_and_its_body_stays(tmp_path: Path) -> None:
    # Verso and recto heads alternate (each on half the pages), set like the body one leading above it, with the
    # page number at the outer edge; a journal footer on recto pages; a chapter opening with its number at the foot.
    path = pdfgen.write(tmp_path / "book.pdf", layout_pdfs.book_pdf(pages=6))
    rows = list(document_pages("pdf", str(path), 300))
    assert len(rows) == 6
    for n, row in enumerate(rows):
        body = layout_pdfs.book_body(n)[: 44 if n else 35]
        assert row["text_layer"].splitlines() == (["Settlement and Trade"] if n == 0 else []) + body, n


def test_a_body_line_that_recurs_near_the_margin_elsewhere_is_no_running_head(tmp_path: Path) -> None:
    # Each page's first line is a sentence other pages also have near their top, half a line higher or lower: a
    # running head stands in the same place on every page, a recurring body line does not.
    pages = [[S[(k + n) % 8] for k in range(40)] for n in range(4)]

    def page(n: int) -> Callable[[canvas.Canvas], None]:
        def draw(c: canvas.Canvas) -> None:
            c.setFont("Helvetica", 11)
            for k, line in enumerate(pages[n]):
                c.drawString(72, H - 60 - 7 * n - 14 * k, line)

        return draw

    path = pdfgen.write(tmp_path / "doc.pdf", layout_pdfs.pdf_of_pages([page(n) for n in range(4)]))
    for n, row in enumerate(document_pages("pdf", str(path), 300)):
        assert row["text_layer"].splitlines() == pages[n], n
