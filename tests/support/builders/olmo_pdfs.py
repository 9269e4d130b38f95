"""Builds the olmOCR-Bench-format test set: PDFs with tables, furniture, columns, drop caps, scans, and their tests.

Each builder draws one PDF with reportlab and returns the bench tests for it (olmocr's JSONL fields). Text is drawn
from a seeded word list, so the set is identical on every run and no body sentence contains a digit (page numbers
in `absent` tests cannot match body text by accident).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from tests.support.builders.layout_pdfs import drawn_page, pdf_of_pages
from tests.support.builders.olmo_blocks import (
    NOTES_HEAD,
    draw_formulas,
    draw_tables,
    footnote_page,
    make_scan,
    rasterise,
)
from tests.support.builders.olmo_pages import Page, words_text

W, H = A4


@dataclass
class Case:
    """One bench PDF and its tests."""

    name: str
    pdf: bytes = b""
    tests: list[dict[str, Any]] = field(default_factory=list)

    def add(self, kind: str, page: int = 1, **fields: Any) -> None:
        """Append one test (olmocr's field names)."""
        self.tests.append(
            {
                "pdf": f"{self.name}.pdf",
                "page": page,
                "id": f"{self.name}_{len(self.tests):02d}",
                "type": kind,
                "max_diffs": fields.pop("max_diffs", 0),
                **fields,
            }
        )


def cell_test(grid: list[list[str]], r: int, col: int, down: bool = True) -> dict[str, str]:
    """A `table` test's fields for cell (`r`, `col`) of `grid` (row 0 the headings): the cell, its headings, its right
    neighbour and (with `down`) the cell below, where there is one."""
    test = {"cell": grid[r][col], "top_heading": grid[0][col], "left_heading": grid[r][0]}
    if col + 1 < len(grid[0]):
        test["right"] = grid[r][col + 1]
    if down and r + 1 < len(grid):
        test["down"] = grid[r + 1][col]
    return test


def paper(name: str, seed: int, columns: int, pages: int, head: str, footer: str | None = None) -> Case:
    """A multi-column paper with a running head, page numbers and (optionally) a footer notice."""
    rng = random.Random(seed)
    drawn: list[Page] = []

    def page_fn(n: int) -> Callable[[canvas.Canvas], None]:
        def draw(c: canvas.Canvas) -> None:
            p = Page(c, rng, columns=columns)
            p.furniture(head if n % 2 else head.upper(), str(100 + seed * 7 + n), footer)
            if n == 1:
                p.title(words_text(rng, 6).title())
            p.fill(paragraphs=12)
            drawn.append(p)

        return draw

    case = Case(name, pdf_of_pages([page_fn(n) for n in range(1, pages + 1)]))
    for n, p in enumerate(drawn, 1):
        case.add("absent", n, text=str(100 + seed * 7 + n))
        case.add("absent", n, text=head)
        if footer:
            case.add("absent", n, text=footer)
        first, last = p.paragraphs[0], p.paragraphs[-1]
        case.add("present", n, text=first[:80])
        case.add("present", n, text=last[-80:])
        for col in range(columns - 1):
            case.add("order", n, before=p.column_last[col][-50:], after=p.column_first[col + 1][:50])
    case.add("baseline", 1)
    return case


def tables(name: str, seed: int, style: str, count: int = 1, wide: bool = False, scanned: bool = False) -> Case:
    """A page of paragraphs around `count` tables in `style`: grid, booktabs or plain (no rules); or a scan of it."""
    rng = random.Random(seed)
    pdf, (p, grids) = drawn_page(lambda c: draw_tables(c, rng, style, count, wide))
    case = Case(name, rasterise(pdf) if scanned else pdf)
    for grid in grids:
        rows = len(grid)
        for _ in range(3):
            case.add("table", **cell_test(grid, rng.randrange(1, rows), rng.randrange(1, len(grid[0]))))
    case.add("present", text=p.paragraphs[0][:80])
    case.add("present", text=p.paragraphs[-1][-80:])
    case.add("absent", text=p.page_number)
    return case


def drop_cap(name: str, seed: int) -> Case:
    """Paragraphs, the first opening with a three-line drop capital."""
    rng = random.Random(seed)

    def draw(c: canvas.Canvas) -> Page:
        p = Page(c, rng)
        p.furniture(None, p.page_number, None)
        p.drop_cap_paragraph()
        p.fill(paragraphs=6)
        return p

    pdf, p = drawn_page(draw)
    case = Case(name, pdf)
    case.add("present", text=p.paragraphs[0][:60])
    case.add("order", before=p.paragraphs[0][:40], after=p.paragraphs[0][-40:])
    case.add("order", before=p.paragraphs[0][-40:], after=p.paragraphs[1][:40])
    case.add("absent", text=p.page_number)
    return case


# Accents Helvetica's WinAnsi encoding can draw on their own (no caron or ring).
ACCENTED = ["Mináros", "Bartók", "Núñez", "Brontë", "Müller", "Ibáñez", "Gödel", "Pérez", "Câmara", "Érdi"]


def accents(name: str, seed: int) -> Case:
    """Accented names drawn as a base letter plus a separately placed spacing accent (pdfLaTeX's OT1 way)."""
    rng = random.Random(seed)
    sentences: list[str] = []

    def draw(c: canvas.Canvas) -> None:
        p = Page(c, rng)
        for person in ACCENTED:
            sentences.append(p.accent_sentence(person))
        p.fill(paragraphs=3)

    case = Case(name, pdf_of_pages([draw]))
    for s in sentences[:6]:
        case.add("present", text=s)
    return case


def display(name: str, seed: int) -> Case:
    """Large display headings drawn word by word without space characters, and ‘‘quoted’’ body text."""
    rng = random.Random(seed)
    heads = ["THE POWER OF STORYTELLING", "Annual Report on Rural Water", "A HISTORY OF BRITISH HUSBANDRY"]
    quotes: list[str] = []

    def draw(c: canvas.Canvas) -> None:
        p = Page(c, rng)
        for head in heads:
            p.display_words(head, size=30)
            quotes.append(p.quoted_paragraph())

    case = Case(name, pdf_of_pages([draw]))
    for head in heads:
        case.add("present", text=head)
    for q in quotes:
        case.add("present", text=q)
    return case


def margins(name: str, seed: int) -> Case:
    """A vertical download stamp in the margin, a download-date footer, and body text close to both margins."""
    rng = random.Random(seed)
    stamp = "Downloaded from https://journals.example.org/article by guest on 28 December 2018"
    notice = "Download date: 28 Dec 2018"

    def draw(c: canvas.Canvas) -> Page:
        p = Page(c, rng, top=40, bottom=46)
        p.vertical_stamp(stamp)
        p.furniture(None, p.page_number, notice)
        p.fill(paragraphs=14)
        return p

    pdf, p = drawn_page(draw)
    case = Case(name, pdf)
    case.add("absent", text="Downloaded from https://journals.example.org")
    case.add("absent", text=notice)
    case.add("absent", text=p.page_number)
    case.add("present", text=p.lines[0])
    case.add("present", text=p.lines[-1])
    case.add("order", before=p.lines[-3], after=p.lines[-1])
    return case


def footnotes(name: str, seed: int) -> Case:
    """Body text, then small footnotes above a page number: the footnotes are content and stay."""
    pdf, p = footnote_page(random.Random(seed))
    case = Case(name, pdf)
    for note in p.notes:
        case.add("present", text=note[:60])
    case.add("order", before=p.paragraphs[-1][-40:], after=p.notes[0][:40])
    case.add("absent", text=p.page_number)
    case.add("absent", text=NOTES_HEAD)
    return case


def scan(name: str, seed: int, hidden: str | None) -> Case:
    """A scanned page (image only), optionally with an invisible OCR layer: 'good', 'poor' or 'wrong'."""
    rng = random.Random(seed)
    pdf, lines = make_scan(rng, hidden)
    case = Case(name, pdf)
    for line in lines[1:12:2]:
        case.add("present", text=line, max_diffs=2)
    case.add("order", before=lines[1][:30], after=lines[-1][:30], max_diffs=2)
    return case


def equations(name: str, seed: int) -> Case:
    """Inline formulas with superscripts and subscripts beside prose."""
    rng = random.Random(seed)

    def draw(c: canvas.Canvas) -> Page:
        p = Page(c, rng)
        draw_formulas(p)
        p.fill(paragraphs=3)
        return p

    pdf, p = drawn_page(draw)
    case = Case(name, pdf)
    for text in p.formula_texts:
        case.add("present", text=text)
    return case


def build_cases() -> list[Case]:
    """Every bench case, in a fixed order."""
    cases = [
        tables("table_grid_a", 1, "grid"),
        tables("table_grid_b", 2, "grid", count=2),
        tables("table_grid_wide", 3, "grid", wide=True),
        tables("table_booktabs_a", 4, "booktabs"),
        tables("table_booktabs_b", 5, "booktabs", count=2),
        tables("table_plain_a", 6, "plain"),
        tables("table_plain_wide", 7, "plain", wide=True),
        paper("paper_2col_a", 8, 2, 3, "Journal of Applied Husbandry"),
        paper("paper_2col_b", 9, 2, 2, "Rural Economics Review", "Revision: 2.4 P/N 119-036 10 June 2019"),
        paper("paper_3col", 10, 3, 2, "The Village Newsletter"),
        paper("paper_1col", 11, 1, 3, "British Husbandry. Chapter Nine"),
        drop_cap("drop_cap_a", 12),
        drop_cap("drop_cap_b", 13),
        accents("accents", 14),
        display("display_quotes", 15),
        margins("margins", 16),
        footnotes("footnotes", 17),
        scan("scan_plain", 18, None),
        scan("scan_hidden_good", 19, "good"),
        scan("scan_hidden_poor", 20, "poor"),
        scan("scan_hidden_wrong", 22, "wrong"),
        tables("scan_table_grid", 23, "grid", scanned=True),
        tables("scan_table_booktabs", 24, "booktabs", scanned=True),
        equations("equations", 21),
    ]
    return cases
