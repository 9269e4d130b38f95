"""What a deliberate layout change does to every set: the scores of two `bench_layout_identity` labels side by side.

`bench_layout_identity` writes every real page's Markdown for one checkout; when two labels differ on purpose, this
scores both on the same pages with each set's own scorer and prints one table:

- the olmOCR-Bench history sets with olmocr's test classes (`olmo_score.py`, via `--olmocr-python`), per test type
  and per part (benchmarks/common/olmo_parts.py: tuning, check);
- pdf-parse-bench's formula and table sets with `similarity.py` (page similarity, segment recall, text-segment recall);
- the shipped canary set with the canary's own tests (`ocr_pipeline.canary.olmo_tests`).

    .venv/bin/python -m benchmarks.before_after.bench_identity_scores --labels before after [--out DIR] \
        [--olmocr-python PYTHON] [--chromium /usr/bin/chromium]

It reads only the Markdown the identity runs wrote; it runs no engine.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
from pathlib import Path

from benchmarks.before_after.bench_layout_identity import SETS
from benchmarks.common.olmo_bench import prepare_set, score
from benchmarks.common.olmo_parts import PARTS, cell, counts, part_of, set_tests, with_all_types
from benchmarks.common.similarity import page_similarity, segment_recall
from benchmarks.common.tools import OLMOCR_PYTHON, scratch
from ocr_pipeline.canary.bench_set import load_bench_set, shipped_tests_file
from ocr_pipeline.canary.olmo_tests import run_test
from tests.support.shared_data import HISTORY as HISTORY_DATA

HISTORY = ("headers_footers", "multi_columns", "long_tiny_text", "old_scans", "old_scans_math")
PARSE_BENCH = ("formulas", "tables")


def _page_md(out: Path, label: str, name: str, stem: str, page: int = 1) -> str:
    """The Markdown a label wrote for one page ('' where it wrote none)."""
    path = out / label / name / f"{stem}_pg{page}.md"
    return path.read_text() if path.exists() else ""


def history_rows(out: Path, label: str, name: str, olmocr_python: str, chromium: str | None) -> dict[str, str]:
    """'passed/total = rate' per '<test type> <part>' for one label on one history set, scored by olmocr's classes."""
    pdfs = prepare_set(HISTORY_DATA, name, out / "scores", None, "all")
    bench = out / "scores" / name
    (bench / label).mkdir(parents=True, exist_ok=True)
    for pdf in pdfs:
        (bench / label / f"{pdf.stem}_pg1_repeat1.md").write_text(_page_md(out, label, name, pdf.stem))
    result = score(bench, label, olmocr_python, chromium)
    tests = set_tests(bench)
    cells: dict[str, str] = {}
    for part in (*PARTS, "all"):
        names = {p.name for p in pdfs if part == "all" or part_of(p.name) == part}
        for kind, passed_total in with_all_types(counts(result["results"], tests, names)).items():
            cells[f"{kind} {part}"] = cell(passed_total)
    return cells


def parse_bench_rows(out: Path, label: str, name: str) -> dict[str, str]:
    """Mean page similarity, segment recall and text-segment recall for one label on one pdf-parse-bench set."""
    sims, recalls, text_recalls = [], [], []
    for pdf in sorted(SETS[name].glob("*.pdf")):
        truth = json.loads((SETS[name].parent / "ground_truth" / f"{pdf.stem}.json").read_text())
        md = _page_md(out, label, name, pdf.stem)
        sims.append(page_similarity(md, [s["data"] for s in truth]))
        recalls.append(segment_recall(md, [s["data"] for s in truth]))
        text_recalls.append(segment_recall(md, [s["data"] for s in truth if s["type"] == "text"]))
    return {
        "similarity": f"{statistics.fmean(sims):.4f}",
        "segment recall": f"{statistics.fmean(recalls):.4f}",
        "text-segment recall": f"{statistics.fmean(text_recalls):.4f}",
    }


def canary_rows(out: Path, label: str) -> dict[str, str]:
    """Canary tests passed for one label, from the Markdown it wrote for each shipped page (math tests left out)."""
    passed = total = 0
    for test in load_bench_set(shipped_tests_file()).tests:
        md = _page_md(out, label, "canary", Path(test["pdf"]).stem, int(test.get("page", 1)))
        try:
            passed += run_test(test, md)
        except ValueError:  # a type the canary does not score here (math)
            continue
        total += 1
    return {"tests": f"{passed}/{total} = {passed / total:.3f}" if total else "-"}


def changed_pages(out: Path, labels: tuple[str, str], name: str) -> int:
    """How many of the set's pages the two labels wrote differently."""
    a, b = (json.loads((out / label / "digests.json").read_text()) for label in labels)
    return sum(1 for key in set(a) | set(b) if key.startswith(f"{name}/") and a.get(key) != b.get(key))


def main(argv: list[str] | None = None) -> int:
    """Score both labels on every set and print one Markdown table."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=scratch("layout-identity"), help="bench_layout_identity's --out")
    ap.add_argument("--labels", nargs=2, required=True, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--sets", nargs="+", default=[*HISTORY, *PARSE_BENCH, "canary"])
    ap.add_argument("--olmocr-python", default=OLMOCR_PYTHON, help="an interpreter with olmocr[bench]")
    ap.add_argument("--chromium", default=shutil.which("chromium"), help="for math tests (KaTeX)")
    args = ap.parse_args(argv)
    labels = tuple(args.labels)
    print(f"| set | pages changed | measure | {labels[0]} | {labels[1]} |")
    print("|---|---:|---|---:|---:|")
    for name in args.sets:
        if name in HISTORY:
            rows = [history_rows(args.out, label, name, args.olmocr_python, args.chromium) for label in labels]
        elif name in PARSE_BENCH:
            rows = [parse_bench_rows(args.out, label, name) for label in labels]
        else:
            rows = [canary_rows(args.out, label) for label in labels]
        changed = changed_pages(args.out, (labels[0], labels[1]), name)
        for key in rows[0]:
            if rows[0][key] != "-":
                print(f"| {name} | {changed} | {key} | {rows[0][key]} | {rows[1].get(key, '-')} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
