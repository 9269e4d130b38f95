"""Score a candidate's Markdown against olmOCR-Bench-format tests; standalone, so any venv with olmocr can run it.

    python benchmarks/olmo_score.py BENCH_DIR CANDIDATE [--failures]

With `olmocr[bench]` importable, olmocr's own test classes (`olmocr.bench.tests.load_tests`) score every test
(math tests need Chromium and are reported as skipped when it is missing). Without olmocr, a re-implementation
of the present / absent / order / table / baseline semantics scores them, and the output says so.
Prints one JSON object: {"scorer": ..., "by_type": {type: [passed, total]}, "failures": [...]}.
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path

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


def _own_run(test: dict, md: str) -> bool:
    from rapidfuzz import fuzz

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
        return bool(md.strip()) and not re.search(r"[\ufffd\u0000-\u0008]", md)
    raise ValueError(f"unsupported test type {kind}")


def score(bench: Path, candidate: str) -> dict:
    """Pass counts per test type for one candidate folder."""
    lines = [json.loads(x) for x in (bench / "tests.jsonl").read_text().splitlines() if x.strip()]
    try:
        from olmocr.bench.tests import load_tests

        by_id = {t.id: t for t in load_tests(str(bench / "tests.jsonl"))}  # it does not keep the file's order
        tests = [by_id[raw["id"]] for raw in lines]
        scorer = "olmocr.bench.tests"
    except ImportError:
        tests, scorer = lines, "own re-implementation (olmocr[bench] not installed)"
    by_type: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    failures = []
    for raw, test in zip(lines, tests, strict=True):
        md_path = bench / candidate / f"{Path(raw['pdf']).stem}_pg{raw['page']}_repeat1.md"
        md = md_path.read_text() if md_path.exists() else ""
        if raw["type"] == "math":
            by_type["math (skipped)"][1] += 1
            continue
        passed = test.run(md)[0] if scorer.startswith("olmocr") else _own_run(test, md)
        by_type[raw["type"]][0] += bool(passed)
        by_type[raw["type"]][1] += 1
        if not passed:
            failures.append(raw["id"])
    return {"scorer": scorer, "by_type": dict(by_type), "failures": failures}


if __name__ == "__main__":
    print(json.dumps(score(Path(sys.argv[1]), sys.argv[2])))
