"""End-to-end pages/s of the one-machine pipeline (CPU engine) on a fixed set, stage by stage.

    .venv/bin/python -m benchmarks.speed.bench_pipeline [--bench-pages 40] [--scans 6]

The set: the bundled samples, the first N pages of pdf-parse-bench (formulas and tables alternating) and a few
generated image-only scans, so both paths of the CPU engine (text layer, OCR) are in the number.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from benchmarks.common.tools import REPO
from ocr_pipeline.local_run import run_local
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import read_rows
from tests.support.builders import pdfgen
from tests.support.shared_data import PARSE_BENCH, PARSE_SETS


def build_set(folder: Path, bench_pages: int, scans: int) -> None:
    """Copy the fixed inputs into `folder`."""
    for sample in (REPO / "ocr_pipeline" / "samples").glob("*.pdf"):
        (folder / sample.name).write_bytes(sample.read_bytes())
    sets = [sorted((PARSE_BENCH / name / "pdfs").glob("*.pdf")) for name in PARSE_SETS.values()]
    for i in range(bench_pages):
        src = sets[i % 2][i // 2]
        (folder / f"bench_{i % 2}_{src.name}").write_bytes(src.read_bytes())
    for i in range(scans):
        text = pdfgen.text_pdf([pdfgen.SENTENCES[i % 8 :] + pdfgen.SENTENCES[: i % 8]], font_size=12)
        (folder / f"scan_{i}.pdf").write_bytes(pdfgen.scan_pdf(text, dpi=150))


def main() -> None:
    """Run the set once and print the table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--bench-pages", type=int, default=40)
    parser.add_argument("--scans", type=int, default=6)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        inputs, ws = Path(tmp) / "in", Path(tmp) / "ws"
        inputs.mkdir()
        build_set(inputs, args.bench_pages, args.scans)
        started = time.monotonic()
        summary = run_local(PipelineSettings(workspace=str(ws), pdfs=[str(inputs)]), show_progress=False)
        seconds = time.monotonic() - started
        workspace = LocalWorkspace(ws)
        pages = [r for k in workspace.list("manifests/ocr/") for r in read_rows(workspace, k)]
        ocr = [p for p in pages if '"source": "ocr"' in (p["extra"] or "")]
        ocr_s = sum(p["elapsed_s"] for p in ocr)
        layer_s = sum(p["elapsed_s"] for p in pages if p not in ocr)
    print("| inputs | pages | OCR'd pages | text-layer pages | total s | pages/s | OCR s/page | text-layer ms/page |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    n_layer = len(pages) - len(ocr)
    print(
        f"| {summary.documents + sum(summary.rejected.values())} | {summary.pages} | {len(ocr)} | {n_layer} "
        f"| {seconds:.1f} | {summary.pages / seconds:.2f} | {ocr_s / max(len(ocr), 1):.2f} "
        f"| {1000 * layer_s / max(n_layer, 1):.1f} |"
    )


if __name__ == "__main__":
    main()
