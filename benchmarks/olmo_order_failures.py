"""Why a candidate's failing order tests fail: its text's order, or words that are not where it looks for them.

    /tmp/olmocr-venv/bin/python benchmarks/olmo_order_failures.py OUT/multi_columns cpu [check|tuning|all] [--list]

Standalone like olmo_score.py (it runs in a venv with olmocr and fuzzysearch, on a set folder that
bench_olmo_history wrote). For each failing order test the missing side (the test's own message says which) is
looked for again with spaces and hyphens ignored, in the candidate's Markdown and in `pdftotext -raw` of the PDF:
`split_in_ours` (our words, spaced or hyphenated otherwise), `in_layer_not_ours` (the layer holds it, we left it
out or broke it up: furniture, an inset between columns), `not_in_layer` (the layer holds other words), or
`no_layer` (a scan). Both sides found but in the wrong order is `order`. Prints each class's count (and its tests).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from fuzzysearch import find_near_matches
from olmo_parts import part_of  # a sibling file: this script runs outside the package
from olmocr.bench.tests import load_single_test, normalize_text

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "olmocr-bench-history"


def _bare(text: str) -> str:
    return re.sub(r"[\s\-\u00ad]+", "", normalize_text(text))


def _found(needle: str, text: str, diffs: int) -> bool:
    return bool(find_near_matches(_bare(needle), _bare(text), max_l_dist=diffs))


def classify(bench: Path, candidate: str, part: str) -> dict[str, list[tuple[str, str, str]]]:
    """Failing order tests of `part`, by class: (test id, before, after)."""
    classes: dict[str, list[tuple[str, str, str]]] = {}
    for raw in map(json.loads, (bench / "tests.jsonl").read_text().splitlines()):
        if raw["type"] != "order" or part not in ("all", part_of(raw["pdf"])):
            continue
        test = load_single_test(raw)
        md = bench / candidate / f"{Path(raw['pdf']).stem}_pg{raw['page']}_repeat1.md"
        ours = md.read_text() if md.exists() else ""
        passed, message = test.run(ours)
        if passed:
            continue
        kind = "order"
        if message.startswith(("'before'", "'after'")):
            side = "before" if message.startswith("'before'") else "after"
            missing = test.before if side == "before" else test.after
            pdf = DATA / bench.name / "pdfs" / raw["pdf"]
            layer = subprocess.run(["pdftotext", "-raw", str(pdf), "-"], capture_output=True, text=True).stdout
            if _found(missing, ours, test.max_diffs):
                kind = "split_in_ours"
            elif not layer.strip():
                kind = "no_layer"
            else:
                kind = "in_layer_not_ours" if _found(missing, layer, test.max_diffs) else "not_in_layer"
            kind += f" ({side})"
        classes.setdefault(kind, []).append((raw["id"], test.before[:60], test.after[:60]))
    return classes


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--list"]
    found = classify(Path(args[0]), args[1], args[2] if len(args) > 2 else "check")
    for kind, tests in sorted(found.items()):
        print(f"{kind}: {len(tests)}")
        if "--list" in sys.argv:
            for test_id, before, after in tests:
                print(f"    {test_id}  {before!r} < {after!r}")
