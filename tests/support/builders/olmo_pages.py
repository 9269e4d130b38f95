"""Drawing helpers for the olmOCR-format bench PDFs: flowing columns, furniture, tables, drop caps, scans."""

from __future__ import annotations

import random

from reportlab.lib.pagesizes import A4
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

W, H = A4
VOCAB = [
    "river",
    "field",
    "harvest",
    "village",
    "market",
    "farmer",
    "water",
    "barley",
    "wheat",
    "cattle",
    "meadow",
    "season",
    "winter",
    "summer",
    "autumn",
    "spring",
    "council",
    "report",
    "budget",
    "measure",
    "record",
    "survey",
    "method",
    "result",
    "sample",
    "control",
    "network",
    "signal",
    "model",
    "engine",
    "bridge",
    "stone",
    "timber",
    "garden",
    "orchard",
    "cottage",
    "county",
    "parish",
    "market",
    "letter",
    "history",
    "account",
    "journal",
    "ancient",
    "modern",
    "careful",
    "quiet",
    "bright",
    "heavy",
    "narrow",
    "broad",
    "early",
    "late",
    "common",
    "rare",
    "local",
    "annual",
    "northern",
    "southern",
    "eastern",
    "western",
    "small",
    "large",
    "young",
    "old",
    "fresh",
    "dry",
    "wet",
    "warm",
    "cold",
    "green",
    "golden",
    "silver",
    "distant",
    "study",
    "shows",
    "that",
    "the",
    "of",
    "and",
    "in",
    "on",
    "with",
    "for",
    "from",
    "by",
    "under",
    "over",
    "between",
    "across",
    "during",
    "after",
    "before",
    "while",
    "because",
    "although",
    "several",
    "many",
    "few",
    "every",
    "each",
    "most",
    "some",
    "their",
    "these",
    "those",
    "which",
    "where",
    "when",
    "how",
]
BODY, LEADING = 10.0, 12.5


def words_text(rng: random.Random, n: int) -> str:
    """`n` seeded vocabulary words."""
    return " ".join(rng.choice(VOCAB) for _ in range(n))


def sentence(rng: random.Random) -> str:
    """One capitalised sentence of 8-16 words."""
    s = words_text(rng, rng.randint(8, 16))
    return s[0].upper() + s[1:] + "."


def wrap(text: str, width: float, size: float = BODY, font: str = "Helvetica") -> list[str]:
    """Greedy word wrap to `width` points."""
    lines, line = [], ""
    for w in text.split():
        trial = f"{line} {w}".strip()
        if line and stringWidth(trial, font, size) > width:
            lines.append(line)
            line = w
        else:
            line = trial
    return lines + ([line] if line else [])


class Page:
    """A page being drawn: columns filled top to bottom, with what was drawn recorded for the tests."""

    def __init__(self, c: canvas.Canvas, rng: random.Random, columns: int = 1, top: float = 72, bottom: float = 72):
        self.c, self.rng, self.columns = c, rng, columns
        self.margin, self.gap, self.top, self.bottom = 62.0, 18.0, H - top, bottom
        self.col_w = (W - 2 * self.margin - (columns - 1) * self.gap) / columns
        self.col, self.y = 0, self.top
        self.page_number = str(rng.randrange(150, 999))
        self.paragraphs: list[str] = []
        self.lines: list[str] = []
        self.column_first: list[str] = []
        self.column_last: list[str] = []
        self.notes: list[str] = []
        self.formula_texts: list[str] = []

    def x(self) -> float:
        """Left edge of the current column."""
        return self.margin + self.col * (self.col_w + self.gap)

    def furniture(self, head: str | None, number: str | None, footer: str | None) -> None:
        """Running head (top, small), page number (bottom centre), footer notice (bottom left)."""
        c = self.c
        c.setFont("Helvetica", 8)
        if head:
            c.drawString(self.margin, H - 40, head)
            c.line(self.margin, H - 44, W - self.margin, H - 44)
        if number:
            self.page_number = number
            c.drawCentredString(W / 2, 30, number)
        if footer:
            c.drawString(self.margin, 18, footer)

    def title(self, text: str) -> None:
        """A full-width bold title above the columns."""
        self.c.setFont("Helvetica-Bold", 16)
        self.c.drawString(self.margin, self.y - 16, text)
        self.y -= 34
        self.top = self.y

    def _line(self, text: str, x: float | None = None) -> None:
        if self.y == self.top:
            self.column_first.append(text)
        self.c.setFont("Helvetica", BODY)
        self.c.drawString(self.x() if x is None else x, self.y - BODY, text)
        self.lines.append(text)
        self.y -= LEADING

    def room(self) -> int:
        """Lines left on the page across the remaining columns."""
        per_col = int((self.top - self.bottom) // LEADING)
        return int((self.y - self.bottom) // LEADING) + per_col * (self.columns - 1 - self.col)

    def paragraph(self, text: str) -> bool:
        """Flow one paragraph; False (nothing drawn) when it does not fit."""
        lines = wrap(text, self.col_w)
        if len(lines) > self.room():
            return False
        for line in lines:
            if self.y - LEADING < self.bottom:
                self.column_last.append(self.lines[-1])
                self.col, self.y = self.col + 1, self.top
            self._line(line)
        self.y -= LEADING * 0.5
        self.paragraphs.append(text)
        return True

    def fill(self, paragraphs: int) -> None:
        """Up to `paragraphs` paragraphs of 3-5 sentences, until the page is full."""
        for _ in range(paragraphs):
            if not self.paragraph(" ".join(sentence(self.rng) for _ in range(self.rng.randint(3, 5)))):
                break
        if self.lines and (not self.column_last or self.column_last[-1] != self.lines[-1]):
            self.column_last.append(self.lines[-1])

    def drop_cap_paragraph(self) -> None:
        """A paragraph whose first letter is a three-line capital, the first lines indented beside it."""
        text = " ".join(sentence(self.rng) for _ in range(5))
        cap, rest = text[0], text[1:]
        self.c.setFont("Times-Bold", 3 * LEADING * 1.15)
        self.c.drawString(self.margin, self.y - 3 * LEADING + 3, cap)
        indent = stringWidth(cap, "Times-Bold", 3 * LEADING * 1.15) + 4
        lines = wrap(rest, self.col_w - indent)[:3]
        consumed = " ".join(lines)
        for line in lines:
            self._line(line, self.margin + indent)
        for line in wrap(rest[len(consumed) :].strip(), self.col_w):
            self._line(line)
        self.y -= LEADING * 0.5
        self.paragraphs.append(text)

    def accent_sentence(self, name: str) -> str:
        """A line naming `name`, each accented letter drawn as base letter plus a separate spacing accent."""
        marks = {
            "\u0301": "\u00b4",
            "\u0302": "\u02c6",
            "\u030c": "\u02c7",
            "\u0308": "\u00a8",
            "\u0303": "\u02dc",
            "\u030a": "\u02da",
        }
        import unicodedata

        text = f"The letters of {name} were read aloud"
        x, base_y = self.margin, self.y - BODY
        self.c.setFont("Helvetica", BODY)
        for ch in text:
            parts = unicodedata.normalize("NFD", ch)
            self.c.drawString(x, base_y, parts[0])
            width = stringWidth(parts[0], "Helvetica", BODY)
            for mark in parts[1:]:
                spacing = marks.get(mark, "\u00b4")
                mw = stringWidth(spacing, "Helvetica", BODY)
                self.c.drawString(x + (width - mw) / 2, base_y + (2.5 if parts[0].isupper() else 0), spacing)
            x += width
        self.y -= LEADING * 1.5
        self.lines.append(text)
        return text

    def display_words(self, text: str, size: float) -> None:
        """A large heading drawn one word at a time, with no space characters between the words."""
        x = self.margin
        self.c.setFont("Helvetica-Bold", size)
        for word in text.split():
            self.c.drawString(x, self.y - size, word)
            x += stringWidth(word, "Helvetica-Bold", size) + size * 0.28
        self.y -= size * 1.6

    def quoted_paragraph(self) -> str:
        """A paragraph with a quotation typed as ‘‘ and ’’ (LaTeX's way); returns the quotation as it should read."""
        quote = sentence(self.rng)
        self.paragraph(f"{sentence(self.rng)} He said \u2018\u2018{quote}\u2019\u2019 and left.")
        return f"He said \u201c{quote[:40]}"

    def vertical_stamp(self, text: str) -> None:
        """A small stamp running up the left margin."""
        self.c.saveState()
        self.c.setFont("Helvetica", 7)
        self.c.translate(24, 160)
        self.c.rotate(90)
        self.c.drawString(0, 0, text)
        self.c.restoreState()
