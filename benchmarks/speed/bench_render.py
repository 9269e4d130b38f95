"""Page rendering benchmark: pypdfium2 (what the pipeline uses) against pdf2image/poppler (olmOCR's pdftoppm).

Run: .venv/bin/python -m benchmarks.speed.bench_render [--pages 30] [--dim 1288]
Both renderers produce the same pages at the same longest side; the table gives ms/page and how far the
two images differ after resizing one onto the other's size.
"""

from __future__ import annotations

import argparse
import io
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
from PIL import Image

from ocr_pipeline.pdf.render import render_pdf_page
from tests.support.builders.pdfgen import SENTENCES, scan_pdf, text_pdf, two_column_pdf
from tests.support.shared_data import PARSE_BENCH


def generated_pdfs(folder: Path) -> list[Path]:
    """A few multi-page born-digital, two-column and scanned PDFs written into `folder`."""
    made = {
        "text-4p.pdf": text_pdf([SENTENCES, SENTENCES[::-1], SENTENCES[2:], SENTENCES[:5]]),
        "two-column.pdf": two_column_pdf(SENTENCES, SENTENCES[::-1]),
        "scan-3p.pdf": scan_pdf(text_pdf([SENTENCES, SENTENCES[3:], SENTENCES[:4]]), dpi=200),
        "rotated-2p.pdf": text_pdf([SENTENCES, SENTENCES[:3]], rotate=90),
    }
    paths = []
    for name, data in made.items():
        path = folder / name
        path.write_bytes(data)
        paths.append(path)
    return paths


def pick_pages(paths: list[Path], limit: int) -> list[tuple[Path, int]]:
    """Up to `limit` (path, page index) pairs, every page of each PDF in order."""
    pages: list[tuple[Path, int]] = []
    for path in paths:
        doc = pdfium.PdfDocument(path)
        try:
            count = len(doc)
        finally:
            doc.close()
        pages.extend((path, i) for i in range(count))
    return pages[:limit]


def time_pdfium(pages: list[tuple[Path, int]], dim: int) -> tuple[list[float], list[Image.Image]]:
    """ms per page (open, render, PNG encode, as the pipeline does it) and the decoded images."""
    times, images = [], []
    for path, index in pages:
        start = time.perf_counter()
        doc = pdfium.PdfDocument(path)
        try:
            page = render_pdf_page(doc, index, dim)
        finally:
            doc.close()
        times.append((time.perf_counter() - start) * 1000)
        images.append(Image.open(io.BytesIO(page.png)).convert("RGB"))
    return times, images


def time_pdfium_render_only(pages: list[tuple[Path, int]], dim: int) -> list[float]:
    """ms per page for the raw pdfium render to a PIL image, without PNG encoding (poppler's equivalent)."""
    times = []
    for path, index in pages:
        start = time.perf_counter()
        doc = pdfium.PdfDocument(path)
        try:
            page = doc[index]
            scale = dim / max(page.get_size())
            page.render(scale=scale, rev_byteorder=True).to_pil()
            page.close()
        finally:
            doc.close()
        times.append((time.perf_counter() - start) * 1000)
    return times


def render_pdf_page_pdf2image(path: Path, page_index: int, target_longest_dim: int) -> Image.Image:
    """Render one page (0-based) with poppler's pdftoppm via pdf2image, the way olmOCR does."""
    # Imported here, optional: pdf2image is a dev extra and poppler a system package only this comparison needs.
    from pdf2image import convert_from_path

    images = convert_from_path(str(path), first_page=page_index + 1, last_page=page_index + 1, size=target_longest_dim)
    return images[0].convert("RGB")


def time_poppler(pages: list[tuple[Path, int]], dim: int) -> tuple[list[float], list[Image.Image]]:
    """ms per page for pdftoppm via pdf2image (a subprocess per page, as olmOCR runs it)."""
    times, images = [], []
    for path, index in pages:
        start = time.perf_counter()
        img = render_pdf_page_pdf2image(path, index, dim)
        times.append((time.perf_counter() - start) * 1000)
        images.append(img)
    return times, images


def pixel_diff(a: Image.Image, b: Image.Image) -> tuple[float, float]:
    """Mean absolute grey-level difference (0-255) and share of pixels off by > 64, `b` resized to `a`."""
    if b.size != a.size:
        b = b.resize(a.size, Image.Resampling.BILINEAR)
    diff = np.abs(np.asarray(a.convert("L"), np.int16) - np.asarray(b.convert("L"), np.int16))
    return float(diff.mean()), float((diff > 64).mean())


def stats(times: list[float]) -> str:
    """mean / median / p95 columns."""
    p95 = float(np.percentile(times, 95))
    return f"{statistics.mean(times):9.1f} {statistics.median(times):9.1f} {p95:9.1f}"


def main() -> int:
    """Render the chosen pages with both engines and print the comparison table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=30, help="pages from the pdf-parse-bench PDFs")
    parser.add_argument("--dim", type=int, default=1288, help="longest side in pixels")
    args = parser.parse_args()

    bench_pdfs = sorted(PARSE_BENCH.glob("*/pdfs/*.pdf"))
    # Alternate the two bench sets (formulas, tables) so both kinds of page are in the sample.
    by_set: dict[str, list[Path]] = {}
    for p in bench_pdfs:
        by_set.setdefault(p.parent.parent.name, []).append(p)
    mixed = [p for group in zip(*by_set.values(), strict=False) for p in group]
    with tempfile.TemporaryDirectory() as tmp:
        pages = pick_pages(mixed, args.pages) + pick_pages(generated_pdfs(Path(tmp)), 100)
        n_bench = min(args.pages, len(pages))
        n_gen = len(pages) - n_bench
        print(f"{len(pages)} pages ({n_bench} from pdf-parse-bench + {n_gen} generated), {args.dim}px")
        # Warm-up: first calls pay for library loading, not rendering.
        time_pdfium(pages[:1], args.dim)
        pdfium_ms, pdfium_imgs = time_pdfium(pages, args.dim)
        print(f"{'renderer':<28}{'mean ms':>9} {'median':>9} {'p95':>9}")
        print(f"{'pypdfium2 (+PNG encode)':<28}{stats(pdfium_ms)}")
        print(f"{'pypdfium2 (render only)':<28}{stats(time_pdfium_render_only(pages, args.dim))}")
        if shutil.which("pdftoppm") is None:
            print("SKIP pdf2image/poppler: pdftoppm not found (apt-get install poppler-utils)")
            return 0
        time_poppler(pages[:1], args.dim)
        poppler_ms, poppler_imgs = time_poppler(pages, args.dim)
        print(f"{'pdf2image/pdftoppm':<28}{stats(poppler_ms)}")
        pairs = [pixel_diff(a, b) for a, b in zip(pdfium_imgs, poppler_imgs, strict=True)]
        diffs, far = [d for d, _ in pairs], [f for _, f in pairs]
        sizes_equal = sum(a.size == b.size for a, b in zip(pdfium_imgs, poppler_imgs, strict=True))
        worst = max(range(len(diffs)), key=diffs.__getitem__)
        speedup = statistics.median(poppler_ms) / statistics.median(pdfium_ms)
        print(f"speed-up pdfium (+PNG) vs poppler (median): {speedup:.1f}x")
        print(
            f"quality: mean |pixel diff| {statistics.mean(diffs):.2f}/255,"
            f" median {statistics.median(diffs):.2f},"
            f" max {diffs[worst]:.2f} ({pages[worst][0].name} p{pages[worst][1] + 1});"
            f" identical sizes {sizes_equal}/{len(pages)}; pixels off by >64: {statistics.mean(far):.2%}"
        )
        print("note: poppler includes its own subprocess start per page (as olmOCR runs pdftoppm);")
        print("      a low mean diff with few far-off pixels means the same layout, differing in anti-aliasing.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
