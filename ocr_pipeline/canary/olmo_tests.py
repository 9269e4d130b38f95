"""olmOCR-Bench's present / absent / order / table / baseline semantics, re-implemented (no olmocr dependency).

The canary and `ocr-pipeline eval` score with these; benchmarks/olmo_score.py falls back on them where
`olmocr[bench]` cannot be imported. They agree with olmocr 0.4.27's classes on every test of the generated bench.
Only the standard library and rapidfuzz: any interpreter can run this file. Math tests need a browser to render
KaTeX and are not scored here (SUPPORTED_TYPES).
"""

from __future__ import annotations

import re
import unicodedata
from html.parser import HTMLParser

from rapidfuzz import fuzz

_QUOTES = {"‘": "'", "’": "'", "‚": "'", "“": '"', "”": '"', "„": '"', "–": "-", "—": "-", "−": "-", "\u00b5": "\u03bc"}


def normalize(text: str) -> str:
    """olmocr's normalize_text: <br>, whitespace, bold/italic marks, NFC, fancy quotes and dashes."""
    text = re.sub(r"<br/?>", " ", text)
    text = re.sub(r"\s+", " ", text)
    for pat in (r"\*\*(.*?)\*\*", r"__(.*?)__", r"\*(.*?)\*", r"_(.*?)_"):
        text = re.sub(pat, r"\1", text)
    text = re.sub(r"</?[bi]>", "", text)
    text = unicodedata.normalize("NFC", text)
    for a, b in _QUOTES.items():
        text = text.replace(a, b)
    return text


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


SUPPORTED_TYPES = ("present", "absent", "order", "table", "baseline")
# olmOCR's baseline test: an answer that ends with one 1-5 character unit repeated more than this often is a loop.
MAX_END_REPEATS = 30
# Scripts olmOCR's baseline test refuses in an answer (CJK, kana, emoji): on its English-centred pages, a sign of
# a model that has lost the page.
_DISALLOWED = re.compile(
    "[\u4e00-\u9fff\u3040-\u30ff\U0001f600-\U0001f64f\U0001f300-\U0001f5ff\U0001f680-\U0001f6ff\U0001f1e0-\U0001f1ff]"
)


def end_repeats(text: str, longest: int = 5) -> int:
    """How often the text's last unit of 1..`longest` characters repeats back to back at its end (the most)."""
    text = re.sub(r"\s+", " ", text)
    best = 0
    for size in range(1, min(longest, len(text)) + 1):
        unit, count, pos = text[-size:], 0, len(text) - size
        while pos >= 0 and text[pos : pos + size] == unit:
            count, pos = count + 1, pos - size
        best = max(best, count)
    return best


def _baseline(test: dict, md: str) -> bool:
    """olmOCR's BaselineTest: some alphanumeric text, no loop at the end, no refused script; or, for a page
    expected blank (`max_length`), at most that many alphanumeric characters."""
    if test.get("max_length") is not None:
        body = re.sub(r"!\[.*?\]\(.*?\)", "", md) if test.get("max_length_skips_image_alt_tags") else md
        return sum(c.isalnum() for c in body) <= int(test["max_length"])
    if not any(c.isalnum() for c in md):
        return False
    if end_repeats(md) > int(test.get("max_repeats", MAX_END_REPEATS)):
        return False
    return not (test.get("check_disallowed_characters", True) and _DISALLOWED.search(md))


def run_test(test: dict, md: str) -> bool:
    """Whether the Markdown `md` passes one olmOCR-Bench test (a JSONL line as a dict); ValueError for math."""
    kind, diffs = test["type"], test.get("max_diffs", 0)
    content = normalize(md)
    if kind in ("present", "absent"):
        query = normalize(test["text"])
        ratio = fuzz.partial_ratio(query, content) / 100
        hit = ratio >= 1 - diffs / max(len(query), 1)
        return hit if kind == "present" else not hit
    if kind == "order":
        before, after = normalize(test["before"]), normalize(test["after"])
        b = fuzz.partial_ratio_alignment(before, content)
        a = fuzz.partial_ratio_alignment(after, content)
        need = 100 * (1 - diffs / max(min(len(before), len(after)), 1))
        if b is None or a is None:  # rapidfuzz finds no alignment for an empty string
            return False
        return b.score >= need and a.score >= need and b.dest_start < a.dest_start
    if kind == "table":

        def ok(want: str, got: str) -> bool:
            return fuzz.ratio(want, normalize(got)) / 100 >= max(0.5, 1 - diffs / max(len(want), 1))

        for grid in html_grids(md):
            for r, row in enumerate(grid):
                for c, value in enumerate(row):
                    if not ok(test["cell"], value):
                        continue
                    checks = [
                        not test.get("up") or r == 0 or ok(test["up"], grid[r - 1][c]),
                        not test.get("down") or r == len(grid) - 1 or ok(test["down"], grid[r + 1][c]),
                        not test.get("left") or c == 0 or ok(test["left"], grid[r][c - 1]),
                        not test.get("right") or c == len(row) - 1 or ok(test["right"], grid[r][c + 1]),
                        not test.get("top_heading") or ok(test["top_heading"], grid[0][c]),
                        not test.get("left_heading") or ok(test["left_heading"], grid[r][0]),
                    ]
                    if all(checks):
                        return True
        return False
    if kind == "baseline":
        return _baseline(test, md)
    raise ValueError(f"test type {kind!r} is not scored here (only {', '.join(SUPPORTED_TYPES)})")
