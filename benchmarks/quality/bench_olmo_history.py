"""The CPU engine on real olmOCR-Bench pages (../shared/data/olmocr-bench-history), beside pdftotext, per set and type.

    .venv/bin/python -m benchmarks.quality.bench_olmo_history \
        [--sets headers_footers multi_columns ...] [--limit N] [--failures] [--split all|tuning|check|dev|holdout]

Each set's PDFs go through the pipeline's own path (page rows in this process, then `CpuEngine.ocr_page`); each
page's Markdown is written as OUT/<set>/<candidate>/<stem>_pg<page>_repeat1.md, the layout olmOCR-Bench reads, and
scored by benchmarks/common/olmo_score.py under `--olmocr-python` (olmocr 0.4.27's own test classes; math tests render
with KaTeX in Debian's chromium). Seconds per page are reported apart for pages read from their text layer
(born-digital) and pages that went to OCR (scans).

Tuning and check parts (benchmarks/common/olmo_parts.py): a PDF is in the check part when the first byte of
`sha256("olmo-history-parts-v1:" + file name)` is odd, else in the tuning part. Every run prints both parts side by
side (passed/total and rate per set, candidate and test type: tuning, check, all): write rules from the tuning part,
judge them on the check part. `--split` runs only some PDFs: a part, or an old half (`dev`/`holdout`, by
`sha256(file name)`; holdout was looked at while debugging, so it is not a clean held-out set).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
from pathlib import Path

from benchmarks.common.olmo_bench import prepare_set, run_cpu, run_pdftotext, score
from benchmarks.common.olmo_parts import PARTS, SPLITS, cell, counts, part_of, set_tests, with_all_types
from benchmarks.common.tools import OLMOCR_PYTHON, scratch
from ocr_pipeline.engines.cpu import CpuEngine
from tests.support.shared_data import HISTORY, HISTORY_SETS


def _time_cell(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.fmean(values):.2f} (max {max(values):.1f}, n={len(values)})"


def part_rows(bench: Path, result: dict, pdfs: list[Path]) -> list[tuple[str, list[str]]]:
    """(test type, [tuning, check, all] cells) for one candidate's scores on one set, an 'all' type row last."""
    tests = set_tests(bench)
    parts = {part: {p.name for p in pdfs if part_of(p.name) == part} for part in PARTS}
    by_part = [with_all_types(counts(result["results"], tests, parts[part])) for part in PARTS]
    every = with_all_types(counts(result["results"], tests, {p.name for p in pdfs}))
    return [(kind, [cell(c.get(kind)) for c in (*by_part, every)]) for kind in every]


def main(argv: list[str] | None = None) -> int:
    """Run the candidates on each set and print pass rates per set, test type and part, and seconds per page."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=HISTORY)
    ap.add_argument("--out", type=Path, default=scratch("olmo-history"))
    ap.add_argument("--sets", nargs="+", default=list(HISTORY_SETS), choices=HISTORY_SETS)
    ap.add_argument("--limit", type=int, default=None, help="at most this many PDFs a set")
    ap.add_argument("--split", choices=SPLITS, default="all", help="run only these PDFs (default: every PDF)")
    ap.add_argument("--olmocr-python", default=OLMOCR_PYTHON, help="an interpreter with olmocr[bench]")
    ap.add_argument("--chromium", default=shutil.which("chromium"), help="for math tests (KaTeX)")
    ap.add_argument("--candidate", default="cpu", help="folder name for this engine's Markdown")
    ap.add_argument("--no-pdftotext", action="store_true")
    ap.add_argument("--text-layer-only", action="store_true", help="no OCR: untrusted pages keep their text layer")
    ap.add_argument("--failures", action="store_true", help="list the failing test ids")
    args = ap.parse_args(argv)
    engine = CpuEngine()
    rows = []
    for name in args.sets:
        pdfs = prepare_set(args.data, name, args.out, args.limit, args.split)
        timing = {args.candidate: run_cpu(engine, pdfs, args.out / name / args.candidate, not args.text_layer_only)}
        if not args.no_pdftotext and (t := run_pdftotext(pdfs, args.out / name / "pdftotext")) is not None:
            timing["pdftotext"] = t
        for cand, secs in timing.items():
            result = score(args.out / name, cand, args.olmocr_python, args.chromium)
            rows.append((name, pdfs, cand, result, secs))
            if args.failures:
                print(f"{name} {cand} fails: {' '.join(result['failures'])}", file=sys.stderr)
    scorer = rows[0][3]["scorer"] if rows else "-"
    print(f"scorer: {scorer}; split: {args.split}; parts: benchmarks/common/olmo_parts.py")
    print("| set | PDFs tuning / check | candidate | test type | tuning | check | all | s/page text layer | s/page OCR")
    print("|---|---:|---|---|---:|---:|---:|---|---")
    for name, pdfs, cand, result, secs in rows:
        n_parts = " / ".join(str(sum(part_of(p.name) == part for p in pdfs)) for part in PARTS)
        skipped = [f"{k} {v[1]}" for k, v in sorted(result["by_type"].items()) if "(" in k]
        for i, (kind, cells) in enumerate(part_rows(args.out / name, result, pdfs)):
            timing = "|"
            if i == 0:
                timing = " | ".join(_time_cell([t[3] for t in secs if t[2] == k]) for k in ("text_layer", "ocr"))
            print(f"| {name} | {n_parts} | {cand} | {kind} | {' | '.join(cells)} | {timing}")
        if skipped:
            print(f"| {name} | | {cand} | not scored: {', '.join(skipped)} | | | | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
