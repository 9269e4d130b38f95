"""Seconds and peak memory of reading PDFs whose text layer is costly, an earlier checkout beside this one, in one run.

    git -C /work/main archive a71e098 ocr_pipeline | tar -x -C /tmp/before    # or: git worktree add /tmp/before a71e098
    .venv/bin/python -m benchmarks.bench_heavy_pdfs --before /tmp/before [--files ...] [--cap-gb 6]

For each PDF (default: every file of ../shared/data/heavy-pdfs) each checkout reads every page in a fresh child
process of its own, as the PDF sandbox's child does (`document_pages`: text layer, furniture, reading order, the
render and its PNG), the two checkouts one after the other in alternating order, so machine load falls on both alike.
A row gives pages, seconds, the slowest page's text layer (its layout and its text, both passes), the child's peak
resident memory (ru_maxrss) and, after, the bounds that fired. Each child runs under RLIMIT_DATA of `--cap-gb` so
that an unbounded checkout cannot take the machine down: one that needs more reads the page as an error instead
(marked "capped").

Last, the family check: this checkout's real sandbox (one PdfSandbox child for all the files, as a work group is
rendered) reads every file, and the peak of the parent and of the child are printed; their sum bounds the family's.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ROOT.parent / "shared" / "data" / "heavy-pdfs"

# The child: one PDF path in, one JSON line out (the whole document's seconds; each page's text-layer seconds, its
# page_layout and layout_text calls timed where page_rows makes them; whether it failed for memory; its note; the
# peak RSS).
CHILD = r"""
import json, resource, sys, time
from ocr_pipeline.pdf import page_rows
calls = {"page_layout": [], "layout_text": []}
def timed(name):
    fn = getattr(page_rows, name)
    def call(*args, **kwargs):
        began = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            calls[name].append(time.perf_counter() - began)
    setattr(page_rows, name, call)
timed("page_layout")
timed("layout_text")
start = time.perf_counter()
rows = []
for row in page_rows.document_pages("pdf", sys.argv[1], 1288):
    error = row.get("render_error") or ""
    rows.append(["MemoryError" in error, row.get("render_note") or ""])
# The k-th layout of the document is its k-th page's (both passes go in page order; no document here is long
# enough to be laid out twice), and so is the k-th text.
text = [a + b for a, b in zip(calls["page_layout"], calls["layout_text"])]
pages = [[text[k] if k < len(text) else 0.0, *r] for k, r in enumerate(rows)]
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": time.perf_counter() - start, "pages": pages, "peak": peak}))
"""

# The family check: one sandbox child reads every file; the parent's peak and the child's (its VmHWM while alive).
FAMILY = r"""
import json, resource, sys
from pathlib import Path
from ocr_pipeline.pdf.sandbox.parent import PdfSandbox
pages, child = 0, 0
with PdfSandbox() as sandbox:
    for path in sys.argv[1:]:
        pages += len(list(sandbox.render("pdf", path, 1288, 3600)))
        status = Path(f"/proc/{sandbox._proc.pid}/status").read_text()
        child = max(child, int(next(l for l in status.splitlines() if l.startswith("VmHWM")).split()[1]) * 1024)
print(json.dumps({"pages": pages, "parent": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "child": child}))
"""


def _capped(limit: int) -> Any:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))

    return apply


def read(tree: Path, pdf: Path, cap_bytes: int) -> dict[str, Any]:
    """One checkout's child reads one PDF; its report."""
    env = {**os.environ, "PYTHONPATH": str(tree), "OPENBLAS_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(pdf)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        preexec_fn=_capped(cap_bytes),  # this benchmark starts no threads: preexec_fn is safe here
        check=False,
    )
    if out.returncode != 0:
        return {"failed": (out.stderr.strip().splitlines() or [f"exit code {out.returncode}"])[-1]}
    return dict(json.loads(out.stdout.splitlines()[-1]))


def _cell(report: dict[str, Any]) -> tuple[str, str, str, str]:
    """(seconds, slowest page, peak MB, capped pages) of one report."""
    if "failed" in report:
        return ("failed", "", "", report["failed"][:60])
    pages = report["pages"]
    capped = sum(1 for _, memory, _ in pages if memory)
    slowest = max((s for s, _, _ in pages), default=0.0)
    seconds, peak = f"{report['seconds']:.1f}", f"{report['peak'] / 1e6:.0f}"
    return (seconds, f"{slowest:.2f}", peak, f"{capped} capped" if capped else "")


def main() -> None:
    """Print the before/after table and the family check."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="root of the earlier checkout")
    parser.add_argument("--files", type=Path, nargs="+", default=sorted(HEAVY.glob("*.pdf")))
    parser.add_argument("--cap-gb", type=float, default=6.0, help="RLIMIT_DATA of each child (GB)")
    args = parser.parse_args()
    cap = int(args.cap_gb * 1e9)
    trees = {"before": args.before.resolve(), "after": ROOT}
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    print(
        "| file | pages | before s | after s | before slowest text layer s | after slowest text layer s "
        "| before peak MB | after peak MB | after / before s | bounds that fired (after) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for k, pdf in enumerate(args.files):
        order = ["before", "after"] if k % 2 == 0 else ["after", "before"]
        reports = {side: read(trees[side], pdf, cap) for side in order}
        before, after = _cell(reports["before"]), _cell(reports["after"])
        pages = len(reports["after"].get("pages", reports["before"].get("pages", [])))
        notes = sorted({_short(n) for _, _, note in reports["after"].get("pages", []) for n in note.split("; ") if n})
        ratio = ""
        if "seconds" in reports["before"] and "seconds" in reports["after"]:
            ratio = f"{reports['after']['seconds'] / reports['before']['seconds']:.2f}"
        capped = f" ({before[3]})" if before[3] else ""
        print(
            f"| {pdf.name} | {pages} | {before[0]}{capped} | {after[0]} | {before[1]} | {after[1]} | {before[2]} "
            f"| {after[2]} | {ratio} | {'; '.join(notes)} |"
        )
    started = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", FAMILY, *map(str, args.files)], env=env, capture_output=True, text=True, check=True
    )
    family = json.loads(out.stdout.splitlines()[-1])
    print(
        f"\nfamily (after, one sandbox child for all {family['pages']} pages, {time.perf_counter() - started:.0f} s): "
        f"parent {family['parent'] / 1e6:.0f} MB, child {family['child'] / 1e6:.0f} MB, "
        f"family at most {(family['parent'] + family['child']) / 1e6:.0f} MB"
    )
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


def _short(note: str) -> str:
    """A note without its counts, so one file's pages share it ("N characters outside the page left out")."""
    return " ".join("N" if word.isdigit() else word for word in note.split())


if __name__ == "__main__":
    main()
