"""Score a candidate's Markdown against olmOCR-Bench-format tests; standalone, so any venv with olmocr can run it.

    python benchmarks/common/olmo_score.py BENCH_DIR CANDIDATE [--chromium /usr/bin/chromium]

With `olmocr[bench]` importable, olmocr's own test classes (`olmocr.bench.tests.load_single_test`) score every
test, one line at a time: a line olmocr refuses to load is counted under "<type> (not loadable)". Math tests render
LaTeX with KaTeX in a browser: with `--chromium` (Debian's build; Playwright's own download is unreachable here)
they are scored, else reported as skipped. Without olmocr, a re-implementation of the present / absent / order /
table / baseline semantics scores them, and the output says so. A candidate file of only whitespace is scored as
empty: olmocr 0.4.27's present test matches the shorter string inside the longer, so " " would pass every one.
Prints one JSON object: {"scorer": ..., "by_type": {type: [passed, total]}, "failures": [...], "results": {id: passed}}
("results" holds every scored test, so a caller can count any subset of pages, such as a set's tuning and check parts).
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

from olmo_semantics import own_run  # a sibling file: this script runs outside the package


def _use_chromium(executable: str) -> None:
    """Make olmocr's KaTeX renderer launch the given Chromium instead of Playwright's own download."""
    from playwright.sync_api import BrowserType

    launch = BrowserType.launch

    def launch_with_path(self, *args, **kwargs):  # type: ignore[no-untyped-def]  # Playwright's own
        kwargs.setdefault("executable_path", executable)
        kwargs.setdefault("args", ["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        return launch(self, *args, **kwargs)

    BrowserType.launch = launch_with_path  # type: ignore[method-assign]  # points olmocr's browser at Debian's chromium


def score(bench: Path, candidate: str, chromium: str | None = None) -> dict:
    """Pass counts per test type for one candidate folder."""
    lines = [json.loads(x) for x in (bench / "tests.jsonl").read_text().splitlines() if x.strip()]
    try:
        from olmocr.bench.tests import load_single_test

        scorer = "olmocr.bench.tests"
    except ImportError:
        load_single_test, scorer = None, "own re-implementation (olmocr[bench] not installed)"
    if chromium and load_single_test is not None:
        _use_chromium(chromium)
    by_type: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    failures = []
    results: dict[str, bool] = {}
    for raw in lines:
        kind = raw["type"]
        if kind == "math" and (load_single_test is None or not chromium):
            by_type["math (skipped)"][1] += 1
            continue
        test = raw
        if load_single_test is not None:
            try:
                test = load_single_test(raw)
            except Exception:  # noqa: BLE001 - olmocr refuses some lines (a max_diffs it rejects): count them
                by_type[f"{kind} (not loadable)"][1] += 1
                continue
        md_path = bench / candidate / f"{Path(raw['pdf']).stem}_pg{raw['page']}_repeat1.md"
        md = md_path.read_text() if md_path.exists() else ""
        if not md.strip():
            md = ""
        passed = test.run(md)[0] if load_single_test is not None else own_run(raw, md)
        by_type[kind][0] += bool(passed)
        by_type[kind][1] += 1
        results[raw["id"]] = bool(passed)
        if not passed:
            failures.append(raw["id"])
    return {"scorer": scorer, "by_type": dict(by_type), "failures": failures, "results": results}


if __name__ == "__main__":
    args = sys.argv[1:]
    browser = None
    if "--chromium" in args:
        k = args.index("--chromium")
        browser = args[k + 1]
        del args[k : k + 2]
    print(json.dumps(score(Path(args[0]), args[1], browser)))
