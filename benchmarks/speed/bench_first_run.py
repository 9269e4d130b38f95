"""A new user's first hour, measured: the README's sample run, the CPU engine on scanned pages, the test suite.

Usage: .venv/bin/python -m benchmarks.speed.bench_first_run [--runs 3] [--ocr-rounds 3] [--suite]

Prints each figure as a range (min-max over the repeats) with the machine's core count and load, because a shared
machine's numbers move with what else runs on it. `--suite` also times `python -m pytest -q` once (minutes).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pypdfium2 as pdfium

from benchmarks.common.tools import REPO
from benchmarks.quality.bench_cpu_engine import render_png
from ocr_pipeline.engines.cpu import CpuEngine
from ocr_pipeline.records import PageInput
from ocr_pipeline.settings import samples_dir

# The image-only samples: every page goes through RapidOCR (the others are read from their text layer).
SCANS = ("scanned_letter.pdf", "rotated_scan.pdf")


def machine() -> str:
    """Cores and load average, to read the figures against."""
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{os.cpu_count()} cores, load average {load}"


def time_sample_runs(runs: int) -> list[float]:
    """Seconds of the README's first command on the bundled samples, each into a fresh workspace."""
    exe = Path(sys.executable).with_name("ocr-pipeline")
    seconds = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [str(exe), "run", f"{tmp}/ocr-workspace", "--pdfs", str(samples_dir()), "--markdown", "--quiet"]
            start = time.monotonic()
            subprocess.run(cmd, check=True, capture_output=True)
            seconds.append(time.monotonic() - start)
    return seconds


def time_scanned_pages(rounds: int) -> tuple[float, list[float]]:
    """Seconds to load the CPU engine's models, and seconds per scanned page for each page read."""
    pages = []
    for name in SCANS:
        pdf = pdfium.PdfDocument(str(samples_dir() / name))
        pages += [PageInput(name, i + 1, render_png(pdf[i])) for i in range(len(pdf))]
    engine = CpuEngine()
    start = time.monotonic()
    engine.ocr_page(pages[0])  # the first page also loads the ONNX models
    load = time.monotonic() - start
    per_page = []
    for _ in range(rounds):
        for page in pages:
            start = time.monotonic()
            engine.ocr_page(page)
            per_page.append(time.monotonic() - start)
    return load, per_page


def time_suite() -> float:
    """Seconds of the README's test command."""
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=REPO, capture_output=True)
    return time.monotonic() - start


def main() -> None:
    """Measure and print the README's figures."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.speed.bench_first_run")
    parser.add_argument("--runs", type=int, default=3, help="sample runs to time")
    parser.add_argument("--ocr-rounds", type=int, default=3, help="passes over the scanned sample pages")
    parser.add_argument("--suite", action="store_true", help="also time the whole test suite once")
    args = parser.parse_args()
    print(f"machine:           {machine()}")
    runs = time_sample_runs(args.runs)
    print(f"sample run:        {min(runs):.1f}-{max(runs):.1f} s over {len(runs)} runs (5 PDFs, 6 pages)")
    load, per_page = time_scanned_pages(args.ocr_rounds)
    print(f"CPU engine, scans: {min(per_page):.1f}-{max(per_page):.1f} s a page over {len(per_page)} pages "
          f"(model load {load:.1f} s)")  # fmt: skip
    if args.suite:
        print(f"test suite:        {time_suite() / 60:.1f} min")
    print(f"machine after:     {machine()}")


if __name__ == "__main__":
    main()
