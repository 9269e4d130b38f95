"""The CPU engine on real olmOCR-Bench pages (../shared/data/olmocr-bench-history), beside pdftotext, per set and type.

    .venv/bin/python -m benchmarks.bench_olmo_history --olmocr-python /tmp/olmocr-venv/bin/python \
        [--sets headers_footers multi_columns ...] [--limit N] [--failures] [--split all|tuning|check|dev|holdout]

Each set's PDFs go through the pipeline's own path (page rows in this process, then `CpuEngine.ocr_page`); each
page's Markdown is written as OUT/<set>/<candidate>/<stem>_pg<page>_repeat1.md, the layout olmOCR-Bench reads, and
scored by benchmarks/olmo_score.py under `--olmocr-python` (olmocr 0.4.27's own test classes; math tests render
with KaTeX in Debian's chromium). Seconds per page are reported apart for pages read from their text layer
(born-digital) and pages that went to OCR (scans).

Tuning and check parts (benchmarks/olmo_parts.py): a PDF is in the check part when the first byte of
`sha256("olmo-history-parts-v1:" + file name)` is odd, else in the tuning part. Every run prints both parts side by
side (passed/total and rate per set, candidate and test type: tuning, check, all): write rules from the tuning part,
judge them on the check part. `--split` runs only some PDFs: a part, or an old half (`dev`/`holdout`, by
`sha256(file name)`; holdout was looked at while debugging, so it is not a clean held-out set).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.olmo_parts import PARTS, SPLITS, cell, counts, in_split, part_of, set_tests, with_all_types
from ocr_pipeline.engines.cpu import CpuEngine
from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.records import PageInput

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "olmocr-bench-history"
SETS = ("headers_footers", "multi_columns", "long_tiny_text", "old_scans", "old_scans_math")
SCORER = Path(__file__).with_name("olmo_score.py")
__all__ = ["DATA", "PageTime", "in_split", "prepare_set", "run_cpu", "run_pdftotext", "score"]

# (PDF file name, page number, how it was read: "text_layer" or "ocr", seconds)
PageTime = tuple[str, int, str, float]


def prepare_set(data: Path, name: str, out: Path, limit: int | None, split: str) -> list[Path]:
    """The set's PDFs (in name order, the split and limit applied) and their tests, copied to OUT/<set>/tests.jsonl."""
    pdfs = sorted(p for p in (data / name / "pdfs").glob("*.pdf") if in_split(p.name, split))[:limit]
    keep = {p.name for p in pdfs}
    lines = [ln for ln in (data / name / f"{name}.jsonl").read_text().splitlines() if ln.strip()]
    tests = [ln for ln in lines if json.loads(ln)["pdf"] in keep]
    (out / name).mkdir(parents=True, exist_ok=True)
    (out / name / "tests.jsonl").write_text("".join(t + "\n" for t in tests))
    return pdfs


def run_cpu(engine: CpuEngine, pdfs: list[Path], out: Path, ocr: bool = True) -> list[PageTime]:
    """Every page through page rows and the CPU engine; seconds per page and how it was read.

    `ocr=False` writes an untrusted page's text layer instead of OCR'ing it (a fast loop for text-layer work).
    """
    out.mkdir(parents=True, exist_ok=True)
    seconds: list[PageTime] = []
    for pdf in pdfs:
        start = time.perf_counter()
        for row in document_pages("pdf", str(pdf), 1288):
            page = PageInput.from_row(row, pdf.stem)
            if ocr or page.text_layer_trusted:
                result = engine.ocr_page(page)
                kind = "text_layer" if result.extra.get("source") == "text_layer" else "ocr"
                text = result.text
            else:
                kind, text = "ocr", page.text_layer
            seconds.append((pdf.name, row["page_num"], kind, time.perf_counter() - start))
            (out / f"{pdf.stem}_pg{row['page_num']}_repeat1.md").write_text(text)
            start = time.perf_counter()
    return seconds


def run_pdftotext(pdfs: list[Path], out: Path) -> list[PageTime] | None:
    """poppler's pdftotext on page 1 of each PDF (the sets are single pages); None when it is not installed."""
    if not shutil.which("pdftotext"):
        return None
    out.mkdir(parents=True, exist_ok=True)
    seconds: list[PageTime] = []
    for pdf in pdfs:
        start = time.perf_counter()
        done = subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(pdf), "-"], capture_output=True, text=True)
        seconds.append((pdf.name, 1, "text_layer", time.perf_counter() - start))
        (out / f"{pdf.stem}_pg1_repeat1.md").write_text(done.stdout if done.returncode == 0 else "")
    return seconds


def score(bench: Path, candidate: str, olmocr_python: str, chromium: str | None) -> dict:
    """olmo_score.py's JSON for one candidate of one set."""
    cmd = [olmocr_python, str(SCORER), str(bench), candidate] + (["--chromium", chromium] if chromium else [])
    stdout = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    # olmocr's KaTeX renderer prints a line of its own at exit: the result is the line that holds the JSON.
    return json.loads(next(line for line in stdout.splitlines() if line.startswith("{")))


def _rate(counts: dict[str, list[int]]) -> tuple[int, int]:
    return sum(v[0] for k, v in counts.items() if "(" not in k), sum(v[1] for k, v in counts.items() if "(" not in k)


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
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--out", type=Path, default=Path("/tmp/olmo-history"))
    ap.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    ap.add_argument("--limit", type=int, default=None, help="at most this many PDFs a set")
    ap.add_argument("--split", choices=SPLITS, default="all", help="run only these PDFs (default: every PDF)")
    ap.add_argument("--olmocr-python", default=sys.executable)
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
    print(f"scorer: {rows[0][3]['scorer'] if rows else '-'}; split: {args.split}; parts: benchmarks/olmo_parts.py")
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
