"""Benchmark the CPU engine on pdf-parse-bench: text layer only, OCR only, and the combined default.

Usage: .venv/bin/python -m benchmarks.quality.bench_cpu_engine [--data DIR] [--ocr-pages 20] [--pages 200]
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

import pypdfium2 as pdfium

from benchmarks.common.similarity import page_similarity, segment_recall
from ocr_pipeline.engines.cpu import CpuEngine
from ocr_pipeline.records import PageInput
from ocr_pipeline.textlayer.reader import assess_text_layer, layout_text, page_layout, write_scripts
from tests.support.shared_data import PARSE_BENCH

LONGEST_PX = 1288


@dataclass
class Score:
    """Accumulated scores of one mode."""

    sims: list[float] = field(default_factory=list)
    recalls: list[float] = field(default_factory=list)
    text_recalls: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, text: str, truth: list[dict], seconds: float) -> None:
        """Score one page."""
        segs = [s["data"] for s in truth]
        self.sims.append(page_similarity(text, segs))
        self.recalls.append(segment_recall(text, segs))
        self.text_recalls.append(segment_recall(text, [s["data"] for s in truth if s["type"] == "text"]))
        self.seconds += seconds

    def row(self, name: str) -> str:
        """One table row."""
        n = len(self.sims)
        if not n:
            return f"| {name:<22} | {0:>5} | {'-':>10} | {'-':>14} | {'-':>12} | {'-':>7} |"
        pps = n / self.seconds if self.seconds else float("inf")
        return (
            f"| {name:<22} | {n:>5} | {statistics.fmean(self.sims):>10.4f} | "
            f"{statistics.fmean(self.recalls):>14.4f} | {statistics.fmean(self.text_recalls):>12.4f} | "
            f"{pps:>7.2f} |"
        )


def render_png(page: pdfium.PdfPage) -> bytes:
    """The page as PNG bytes, longest side LONGEST_PX (as the pipeline renders it)."""
    w, h = page.get_size()
    img = page.render(scale=LONGEST_PX / max(w, h)).to_pil()
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def pages(data: Path, limit: int) -> list[tuple[Path, Path]]:
    """(pdf, truth) pairs, alternating between the benchmark's sets so any prefix mixes both."""
    sets = [sorted((d / "pdfs").glob("*.pdf")) for d in sorted(data.glob("2026-*")) if (d / "pdfs").is_dir()]
    mixed = [p for group in zip(*sets, strict=False) for p in group]
    return [(p, p.parent.parent / "ground_truth" / f"{p.stem}.json") for p in mixed[:limit]]


def main(argv: list[str] | None = None) -> int:
    """Run the three modes and print a Markdown table."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=PARSE_BENCH)
    ap.add_argument("--pages", type=int, default=200, help="pages for text-layer and combined modes")
    ap.add_argument("--ocr-pages", type=int, default=20, help="pages for the OCR-only mode (slow)")
    ap.add_argument("--dump", type=Path, default=None, help="write per-page texts and scores (JSONL)")
    args = ap.parse_args(argv)

    engine = CpuEngine()
    text_only, ocr_only, combined = Score(), Score(), Score()
    items = pages(args.data, args.pages)
    ocr_every = max(1, len(items) // max(args.ocr_pages, 1)) if args.ocr_pages else 0
    dump = args.dump.open("w") if args.dump else None
    untrusted = 0
    for i, (pdf, truth_path) in enumerate(items):
        truth = json.loads(truth_path.read_text())
        doc = pdfium.PdfDocument(pdf)
        try:
            page = doc[0]
            t0 = time.perf_counter()
            marked = layout_text(page_layout(page), marked=True)  # as page rows do: trust judged with scripts marked
            layer = write_scripts(marked)
            t1 = time.perf_counter()
            text_only.add(layer, truth, t1 - t0)
            w, h = page.get_size()
            quality = assess_text_layer(marked, w * h)
            t2 = time.perf_counter()
            png = None if quality.trusted else render_png(page)
            result = engine.ocr_page(PageInput(pdf.stem, 1, png, 0, 0, layer, quality.trusted))
            combined.add(result.text, truth, (t1 - t0) + time.perf_counter() - t2)
            untrusted += not quality.trusted
            ocr_text = None
            if ocr_every and i % ocr_every == 0 and len(ocr_only.sims) < args.ocr_pages:
                t3 = time.perf_counter()
                ocr = engine.ocr_page(PageInput(pdf.stem, 1, render_png(page)))
                ocr_only.add(ocr.text, truth, time.perf_counter() - t3)
                ocr_text = ocr.text
        finally:
            doc.close()
        if dump:
            row = {
                "pdf": str(pdf),
                "sim_text": text_only.sims[-1],
                "trusted": quality.trusted,
                "reason": quality.reason,
                "text": layer,
                "ocr": ocr_text,
            }
            dump.write(json.dumps(row) + "\n")
    if dump:
        dump.close()
    print("| mode                   | pages | similarity | segment recall | text recall  | pages/s |")
    print("|------------------------|-------|------------|----------------|--------------|---------|")
    print(text_only.row("text layer only"))
    print(ocr_only.row("OCR only (rapidocr)"))
    print(combined.row("combined (default)"))
    print(f"untrusted text layers (OCR'd in combined mode): {untrusted}/{len(items)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
