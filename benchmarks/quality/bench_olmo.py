"""The CPU engine on an olmOCR-Bench-format set of generated PDFs, beside pdftotext, scored per test type.

    .venv/bin/python -m benchmarks.quality.bench_olmo [--out DIR] [--olmocr-python PYTHON]

Writes BENCH/pdfs/*.pdf and BENCH/tests.jsonl (tests/support/builders/olmo_pdfs.py), then each candidate's Markdown as
BENCH/<candidate>/<pdf stem>_pg<page>_repeat1.md (olmOCR-Bench's layout), then scores the candidates with
benchmarks/common/olmo_score.py run by `--olmocr-python` (a venv with `olmocr[bench]`; default: OLMOCR_PYTHON, else
this interpreter, which falls back to the re-implemented test semantics when olmocr is missing).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import time
from pathlib import Path

from benchmarks.common.olmo_bench import SCORER
from benchmarks.common.tools import OLMOCR_PYTHON, scratch
from ocr_pipeline.engines.cpu import CpuEngine
from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.records import PageInput
from tests.support.builders.olmo_pdfs import build_cases


def write_set(bench: Path) -> list[Path]:
    """Generate the PDFs and the tests file; returns the PDFs."""
    (bench / "pdfs").mkdir(parents=True, exist_ok=True)
    pdfs, tests = [], []
    for case in build_cases():
        path = bench / "pdfs" / f"{case.name}.pdf"
        path.write_bytes(case.pdf)
        pdfs.append(path)
        tests.extend(case.tests)
    (bench / "tests.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tests))
    return pdfs


def run_cpu(pdfs: list[Path], out: Path) -> dict[str, float]:
    """The pipeline's own path: page rows (text layer, verdict, PNG) then the CPU engine, one .md per page."""
    engine = CpuEngine()
    out.mkdir(parents=True, exist_ok=True)
    seconds = {"text_layer": 0.0, "ocr": 0.0, "text_pages": 0, "ocr_pages": 0}
    for pdf in pdfs:
        start = time.perf_counter()
        for row in document_pages("pdf", str(pdf), 1288):
            page = PageInput.from_row(row, pdf.stem)
            result = engine.ocr_page(page)
            kind = "text" if result.extra.get("source") == "text_layer" else "ocr"
            seconds["text_layer" if kind == "text" else "ocr"] += time.perf_counter() - start
            seconds[f"{kind}_pages"] += 1
            (out / f"{pdf.stem}_pg{row['page_num']}_repeat1.md").write_text(result.text)
            start = time.perf_counter()
    return seconds


def run_pdftotext(pdfs: list[Path], out: Path) -> bool:
    """poppler's pdftotext, page by page; False when it is not installed."""
    if not shutil.which("pdftotext"):
        return False
    out.mkdir(parents=True, exist_ok=True)
    for pdf in pdfs:
        info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
        pages = int(next(x.split()[-1] for x in info.splitlines() if x.startswith("Pages:")))
        for n in range(1, pages + 1):
            text = subprocess.run(
                ["pdftotext", "-f", str(n), "-l", str(n), str(pdf), "-"], capture_output=True, text=True, check=True
            ).stdout
            (out / f"{pdf.stem}_pg{n}_repeat1.md").write_text(text)
    return True


def main(argv: list[str] | None = None) -> int:
    """Build the set, run the candidates, print a Markdown table of pass rates per test type."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=scratch("olmo-bench"))
    ap.add_argument("--olmocr-python", default=OLMOCR_PYTHON, help="an interpreter with olmocr[bench]")
    ap.add_argument("--candidate", default="cpu", help="folder name for this engine's Markdown")
    ap.add_argument("--failures", action="store_true", help="list the failing test ids")
    args = ap.parse_args(argv)
    pdfs = write_set(args.out)
    speed = run_cpu(pdfs, args.out / args.candidate)
    candidates = [args.candidate] + (["pdftotext"] if run_pdftotext(pdfs, args.out / "pdftotext") else [])
    results = {}
    for name in candidates:
        done = subprocess.run(
            [args.olmocr_python, str(SCORER), str(args.out), name], capture_output=True, text=True, check=True
        )
        results[name] = json.loads(done.stdout)
    types = sorted({t for r in results.values() for t in r["by_type"]})
    print(f"scorer: {results[args.candidate]['scorer']}; PDFs: {len(pdfs)}")
    print("| test type | " + " | ".join(candidates) + " |")
    print("|---|" + "---:|" * len(candidates))
    for t in types + ["all"]:
        cells = []
        for name in candidates:
            counts = results[name]["by_type"]
            p, n = (
                [sum(counts[k][i] for k in counts if "skipped" not in k) for i in (0, 1)]
                if t == "all"
                else counts.get(t, [0, 0])
            )
            cells.append(f"{p}/{n} ({100 * p / max(n, 1):.0f}%)")
        print(f"| {t} | " + " | ".join(cells) + " |")
    print(
        f"CPU engine: {speed['text_pages']} text-layer pages in {speed['text_layer']:.2f}s, "
        f"{speed['ocr_pages']} OCR pages in {speed['ocr']:.1f}s"
    )
    if args.failures:
        for name in candidates:
            print(name, "fails:", " ".join(results[name]["failures"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
