"""Does the package's olmOCR-Bench scorer agree with olmocr's own test classes? Test by test, on real pages.

    .venv/bin/python -m benchmarks.bench_scorer_agreement [--olmocr-python /tmp/olmocr-venv/bin/python]

The candidate is each page's text layer as the pipeline extracts it (no model needed, and it fails plenty of
tests, so both verdicts are exercised). Each real set of ../shared/data/olmocr-bench-history is scored twice: by
ocr_pipeline/canary/olmo_tests.py here, and by olmocr 0.4.27's classes through benchmarks/olmo_score.py in the
interpreter that has olmocr. The table counts the tests whose verdicts differ (lines olmocr refuses to load are
refused by both and left out).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from pathlib import Path

from ocr_pipeline.canary.bench_set import load_bench_set
from ocr_pipeline.canary.olmo_tests import SUPPORTED_TYPES, run_test
from ocr_pipeline.pdf.page_rows import document_pages

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "olmocr-bench-history"
SCORER = Path(__file__).with_name("olmo_score.py")
SETS = ("headers_footers", "multi_columns", "long_tiny_text", "old_scans")


def compare(name: str, olmocr_python: str, scratch: Path) -> tuple[int, int, int, list[str]]:
    """(tests scored by both, failed here, failed by olmocr, ids that differ) for one set."""
    bench = load_bench_set(DATA / name / f"{name}.jsonl")
    out = scratch / name
    (out / "layer").mkdir(parents=True)
    (out / "tests.jsonl").write_text(bench.tests_file.read_text())
    answers = {}
    for page in bench.pages:
        rows = document_pages("pdf", str(page.path), 1288)
        answers[page.name] = next((r["text_layer"] or "" for r in rows if r["page_num"] == page.page), "")
        (out / "layer" / f"{page.name}_repeat1.md").write_text(answers[page.name])
    ours, scored = set(), set()
    for test in bench.tests:
        if test["type"] not in SUPPORTED_TYPES:
            continue
        answer = answers[f"{Path(test['pdf']).stem}_pg{test['page']}"]
        try:
            passed = run_test(test, answer if answer.strip() else "")
        except ValueError:  # refused, as olmocr refuses it
            continue
        scored.add(test["id"])
        if not passed:
            ours.add(test["id"])
    cmd = [olmocr_python, str(SCORER), str(out), "layer"]
    theirs = set(json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)["failures"])
    return len(scored), len(ours), len(theirs & scored), sorted((ours ^ theirs) & scored)


def main() -> None:
    """Print the agreement table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--olmocr-python", default="/tmp/olmocr-venv/bin/python")
    args = parser.parse_args()
    print(f"{'set':<16} {'tests':>6} {'failed here':>12} {'failed olmocr':>14} {'differ':>7}")
    with tempfile.TemporaryDirectory() as scratch:
        for name in SETS:
            tests, ours, theirs, differ = compare(name, args.olmocr_python, Path(scratch))
            print(f"{name:<16} {tests:>6} {ours:>12} {theirs:>14} {len(differ):>7}  {' '.join(differ[:5])}")


if __name__ == "__main__":
    main()
