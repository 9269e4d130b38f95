"""Every line the furniture scorer judges on the real pages we hold, labelled where a test or ground truth says.

    .venv/bin/python -m benchmarks.furniture_lines --out /tmp/furniture-lines.jsonl [--sets ...] [--no-ocr]

Each page goes through the pipeline's own path (page rows in this process, then `CpuEngine.ocr_page`); the boxes
that `layout.page_reader.read_page` hands to the furniture step are caught there, so a scan's OCR lines and a text
layer's runs are both seen as the pipeline sees them. One JSON line a page: set, PDF, page, part (benchmarks/
olmo_parts.py), kind (text layer or scan), the part of the page judged (width, height, left edge), the running-head
signatures seen across the document, and each row of boxes with its label:

- `1` (furniture): the row's text is an olmOCR-Bench `absent` test's text on that page, lies inside one, or is
  mostly made of such texts (a row holding some is left unlabelled);
- `0` (body): the row's text lies inside a `present` test's text, an `order` test's sentences or a pdf-parse-bench
  page's ground-truth text, or the page is a headers_footers page and no absent test names the row (its tests were
  written to name every running head, footer and page number);
- `null`: nothing says (old scans' rows no test names).

The labels feed benchmarks/train_furniture.py; rows are built by `layout.furniture.page_rows`, the grouping the
scorer itself uses.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from benchmarks.olmo_parts import part_of
from ocr_pipeline.engines.cpu import CpuEngine
from ocr_pipeline.layout import page_reader
from ocr_pipeline.layout.band_lines import row_text
from ocr_pipeline.layout.boxes import Box
from ocr_pipeline.layout.furniture import page_rows
from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.records import PageInput

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
HISTORY_SETS = ("headers_footers", "multi_columns", "long_tiny_text", "old_scans")
PARSE_SETS = {"formulas": "2026-q1-formulas-only", "tables": "2026-q1-tables-only"}
_NON_WORD = re.compile(r"[\W_]+")


def fold(text: str) -> str:
    """Lower-case letters and digits only: how a row and a test's text are compared."""
    return _NON_WORD.sub("", unicodedata.normalize("NFKC", text).lower())


def label_row(
    text: str, pieces: Sequence[str], absent: Sequence[str], body: Sequence[str], default: int | None
) -> int | None:
    """1 where absent tests name the row, 0 where body ground truth holds it, else `default`; `pieces` are the
    texts of the row's boxes."""
    row = fold(text)
    if not row:
        return None
    if any(row == t or (len(row) >= 3 and row in t) for t in absent):
        return 1
    # A row may hold several pieces an absent test each names ("29-01-2020   Dr. Name   6"): furniture when they
    # cover most of it, mixed (no label) when they cover some. A short text ("6") counts only as a whole box.
    boxes = {fold(p) for p in pieces}
    covered = sum(len(t) for t in absent if t and (t in boxes or (len(t) >= 4 and t in row)))
    if covered >= 0.6 * len(row):
        return 1
    if covered:
        return None
    for t in body:
        if len(row) >= 8 and row in t:
            return 0
    return default


def _tests(set_dir: Path, name: str) -> dict[str, dict[str, list[str]]]:
    """Per PDF file name: folded texts of its absent tests and of its body tests (present, order)."""
    out: dict[str, dict[str, list[str]]] = {}
    for line in (set_dir / f"{name}.jsonl").read_text().splitlines():
        if not line.strip():
            continue
        t = json.loads(line)
        slot = out.setdefault(t["pdf"], {"absent": [], "body": []})
        if t["type"] == "absent":
            slot["absent"].append(fold(t["text"]))
        elif t["type"] == "present":
            slot["body"].append(fold(t["text"]))
        elif t["type"] == "order":
            slot["body"] += [fold(t["before"]), fold(t["after"])]
    return out


def _parse_bench_truth(set_dir: Path) -> dict[str, dict[str, list[str]]]:
    """Per PDF file name: the folded text items of its ground truth, as body (no absent tests there)."""
    out = {}
    for truth in sorted((set_dir / "ground_truth").glob("*.json")):
        items = json.loads(truth.read_text())
        body = [fold(i["data"]) for i in items if i.get("type") == "text"]
        out[truth.stem + ".pdf"] = {"absent": [], "body": [" ".join(body).replace(" ", "")]}
    return out


class _Catcher:
    """Wraps page_reader.furniture_rows to keep what each call judged."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self.inner = page_reader.furniture_rows

    def __call__(
        self, boxes: Sequence[Box], width: float, height: float, repeated: Any = (), left: float = 0.0, *rest: Any
    ) -> Any:
        drop = self.inner(boxes, width, height, repeated, left, *rest)  # `rest`: the layout's parameters
        self.calls.append({"boxes": list(boxes), "left": left, "width": width, "height": height,
                           "repeated": sorted(repeated), "drop": set(drop)})  # fmt: skip
        return drop


def page_records(pdf: Path, engine: CpuEngine, ocr: bool) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(page number, kind, one caught furniture call) for every page of one PDF, read as the pipeline reads it."""
    catcher = _Catcher()
    page_reader.furniture_rows = catcher  # type: ignore[assignment]  # a measurement hook, put back below
    try:
        for row in document_pages("pdf", str(pdf), 1288):
            page = PageInput.from_row(row, pdf.stem)
            layer_calls = list(catcher.calls)  # made while the row was read (the text layer's layout)
            catcher.calls.clear()
            kind = "text_layer"
            if ocr or page.text_layer_trusted:
                result = engine.ocr_page(page)
                kind = "text_layer" if result.extra.get("source") == "text_layer" else "scan"
            # A page read from its layer is judged as its layer was laid out; a scan as its OCR lines were.
            calls = layer_calls if kind == "text_layer" else list(catcher.calls)
            catcher.calls.clear()
            for call in calls:
                yield row["page_num"], kind, call
    finally:
        page_reader.furniture_rows = catcher.inner  # type: ignore[assignment]


def _record(call: dict[str, Any], labels: dict[str, list[str]], default: int | None) -> dict[str, Any]:
    rows = page_rows(call["boxes"], call["left"], call["width"])
    out_rows = []
    for row in rows:
        text = row_text(row)
        out_rows.append({
            "text": text,
            "label": label_row(text, [b.text for b in row], labels["absent"], labels["body"], default),
            # What the furniture rules decided (the layout model aside): the share of the row's boxes they dropped.
            "dropped": sum(id(b) in call["drop"] for b in row) / len(row),
            "boxes": [[b.x0, b.y0, b.x1, b.y1, b.text] for b in row],
        })  # fmt: skip
    return {"left": call["left"], "width": call["width"], "height": call["height"],
            "repeated": call["repeated"], "rows": out_rows}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Write one JSON line a judged page part, every set's pages in turn."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--sets", nargs="+", default=[*HISTORY_SETS, *PARSE_SETS])
    ap.add_argument("--no-ocr", action="store_true", help="untrusted pages are not OCR'd (their rows are not seen)")
    args = ap.parse_args(argv)
    engine = CpuEngine()
    n_pages = 0
    with args.out.open("w") as out:
        for name in args.sets:
            if name in HISTORY_SETS:
                set_dir = DATA / "olmocr-bench-history" / name
                tests = _tests(set_dir, name)
                pdfs = sorted((set_dir / "pdfs").glob("*.pdf"))
                default = 0 if name == "headers_footers" else None
            else:
                set_dir = DATA / "pdf-parse-bench" / PARSE_SETS[name]
                tests, default = _parse_bench_truth(set_dir), None
                pdfs = sorted((set_dir / "pdfs").glob("*.pdf"))
            for pdf in pdfs:
                labels = tests.get(pdf.name, {"absent": [], "body": []})
                for page, kind, call in page_records(pdf, engine, not args.no_ocr):
                    rec = {"set": name, "pdf": pdf.name, "page": page, "part": part_of(pdf.name), "kind": kind,
                           **_record(call, labels, default)}  # fmt: skip
                    out.write(json.dumps(rec) + "\n")
                    n_pages += 1
            print(f"{name}: {len(pdfs)} PDFs", file=sys.stderr)
    print(f"{n_pages} page parts written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
