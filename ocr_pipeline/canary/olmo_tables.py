"""Tables in an answer as grids of cell strings: HTML tables (colspan and rowspan expanded) and Markdown pipe tables.

olmOCR-Bench's table tests look for a cell and its neighbours in any table of either kind.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_PIPE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_RULE_ROW = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


class _Tables(HTMLParser):
    """HTML tables as grids of cell strings, colspan and rowspan expanded."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[tuple[str, int, int]]]] = []
        self.cell: list[str] | None = None
        self.span = (1, 1)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell, self.span = [], (int(a.get("colspan") or 1), int(a.get("rowspan") or 1))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None and self.tables and self.tables[-1]:
            self.tables[-1][-1].append((" ".join("".join(self.cell).split()), *self.span))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def html_grids(text: str) -> list[list[list[str]]]:
    """Every HTML table in `text` as a rectangular grid."""
    parser = _Tables()
    parser.feed(text)
    grids = []
    for rows in parser.tables:
        taken: dict[tuple[int, int], str] = {}
        for r, row in enumerate(rows):
            c = 0
            for value, colspan, rowspan in row:
                while (r, c) in taken:
                    c += 1
                for dr in range(rowspan):
                    for dc in range(colspan):
                        taken[(r + dr, c + dc)] = value
                c += colspan
        if taken:
            nr, nc = max(k[0] for k in taken) + 1, max(k[1] for k in taken) + 1
            grids.append([[taken.get((r, c), "") for c in range(nc)] for r in range(nr)])
    return grids


def markdown_grids(text: str) -> list[list[list[str]]]:
    """Every Markdown pipe table in `text` (runs of `| a | b |` lines; the `|---|` rule line dropped)."""
    grids: list[list[list[str]]] = []
    rows: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if _PIPE_ROW.match(line):
            if not _RULE_ROW.match(line):
                rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
            continue
        if rows:
            width = max(len(r) for r in rows)
            grids.append([r + [""] * (width - len(r)) for r in rows])
            rows = []
    return grids


def table_grids(text: str) -> list[list[list[str]]]:
    """Every table in an answer, Markdown ones first (olmOCR's order)."""
    return markdown_grids(text) + html_grids(text)
