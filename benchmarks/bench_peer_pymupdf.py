"""Ours (the CPU engine), pymupdf4llm 2.0 with PyMuPDF Layout, and pdftotext on the same real pages, side by side.

    .venv/bin/python -m benchmarks.bench_peer_pymupdf --olmocr-python /tmp/olmocr-venv/bin/python \\
        --pymupdf-python /tmp/pymupdf-venv/bin/python [--sets ...] [--limit N] [--out DIR] [--rerun cpu ...]

A dev-only yardstick: PyMuPDF is AGPL, so the peer runs in a venv of its own, by subprocess
(benchmarks/peer_pymupdf_page.py says how to build it and how Layout is switched on and confirmed), and is never a
dependency of the project. The five sets of ../shared/data/olmocr-bench-history are read by each candidate: ours
through the pipeline's path (page rows, then `CpuEngine.ocr_page`, as benchmarks/bench_olmo_history.py does),
pymupdf4llm with its layout model (page headers and footers left out, RapidOCR on the pages it decides to OCR), and
poppler's pdftotext. olmocr 0.4.27's own test classes score them (benchmarks/olmo_score.py under `--olmocr-python`).

Printed per set and test type, for each candidate: the tuning part, the check part (benchmarks/olmo_parts.py),
the pages where ours and the peer both wrote text (both parts; the issue's comparison: a page one of them left
empty says nothing about how it reads), and the check part's pages where both wrote text. pdftotext is scored on the
same pages (it writes nothing on scans). Then seconds a page per candidate, born-digital and OCR'd pages apart, and
how many pages the peer's layout model ran on.

Markdown is kept per candidate in OUT/<set>/<candidate>/ with pages.json (seconds per page, and the key it was made
with: the git tree of ocr_pipeline/ and a hash of its uncommitted changes for ours, the package versions for the
peer, pdftotext's version). A run reads again only pages whose Markdown is missing or whose key changed (or every
page of the candidates named by `--rerun`), so scoring again is cheap when an --out folder is reused.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks.bench_olmo_history import DATA, SETS, prepare_set, run_cpu, run_pdftotext, score
from benchmarks.olmo_parts import PARTS, SPLITS, cell, counts, part_of, set_tests, with_all_types
from ocr_pipeline.engines.cpu import CpuEngine

ROOT = Path(__file__).resolve().parents[1]
WORKER = Path(__file__).with_name("peer_pymupdf_page.py")
CANDIDATES = ("cpu", "pymupdf4llm", "pdftotext")
BOTH = ("cpu", "pymupdf4llm")  # "both wrote": the pages where these two wrote text
LABELS = {"cpu": "ours (CPU engine)", "pymupdf4llm": "pymupdf4llm+layout", "pdftotext": "pdftotext"}
Pages = dict[str, list[list]]  # PDF file name -> [[page, "text_layer" or "ocr", seconds, ...]]


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True).stdout


def cache_key(candidate: str, pymupdf_python: str, no_ocr: bool) -> str:
    """What a candidate's Markdown depends on: a cache made under another key is read again."""
    if candidate == "cpu":
        changes = hashlib.sha256(_git("diff", "HEAD", "--", "ocr_pipeline").encode())
        for name in sorted(_git("ls-files", "--others", "--exclude-standard", "ocr_pipeline").split()):
            changes.update(name.encode() + (ROOT / name).read_bytes())
        # The tree of ocr_pipeline/, not the commit: a commit that touches only benchmarks/ keeps the cache.
        tree = _git("rev-parse", "HEAD:ocr_pipeline").strip()[:12]
        return f"cpu: ocr_pipeline tree {tree}, uncommitted changes {changes.hexdigest()[:12]}"
    if candidate == "pdftotext":
        done = subprocess.run(["pdftotext", "-v"], capture_output=True, text=True)
        return (done.stderr or done.stdout).splitlines()[0]
    done = subprocess.run([pymupdf_python, str(WORKER), "--versions"], capture_output=True, text=True, check=True)
    return f"{done.stdout.strip()} header=False footer=False{' use_ocr=False' if no_ocr else ''}"


def load_cache(folder: Path, key: str) -> Pages:
    """The pages a candidate read before under the same key, whose Markdown files are all still there."""
    try:
        saved = json.loads((folder / "pages.json").read_text())
    except (OSError, ValueError):
        return {}
    if saved.get("key") != key:
        return {}
    return {
        pdf: rows
        for pdf, rows in saved["pages"].items()
        if all((folder / f"{Path(pdf).stem}_pg{r[0]}_repeat1.md").exists() for r in rows)
    }


def save_cache(folder: Path, key: str, pages: Pages) -> None:
    """pages.json written whole and then moved into place, so a killed run never leaves half a file."""
    tmp = folder / "pages.json.tmp"
    tmp.write_text(json.dumps({"key": key, "pages": pages}))
    os.replace(tmp, folder / "pages.json")


def run_peer(python: str, pdfs: list[Path], folder: Path, key: str, pages: Pages, no_ocr: bool) -> None:
    """The peer worker on the PDFs, its pages added to the cache as each PDF is done."""
    cmd = [python, str(WORKER), *(["--no-ocr"] if no_ocr else []), str(folder), *map(str, pdfs)]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as worker:
        assert worker.stdout is not None
        for line in worker.stdout:
            if line.startswith('{"pdf"'):
                done = json.loads(line)
                pages[done["pdf"]] = done["pages"]
                save_cache(folder, key, pages)
    if worker.returncode:
        raise SystemExit(f"peer worker {WORKER.name} exited {worker.returncode}: is {python} the pymupdf venv?")


def read_set(candidate: str, pdfs: list[Path], folder: Path, args: argparse.Namespace, engine: CpuEngine) -> Pages:
    """A candidate's pages of one set: from the cache where it holds them, else read now."""
    folder.mkdir(parents=True, exist_ok=True)
    key = cache_key(candidate, args.pymupdf_python, args.peer_no_ocr)
    pages = {} if candidate in args.rerun else load_cache(folder, key)
    todo = [p for p in pdfs if p.name not in pages]
    if todo and candidate == "pymupdf4llm":
        run_peer(args.pymupdf_python, todo, folder, key, pages, args.peer_no_ocr)
    elif todo:
        times = run_cpu(engine, todo, folder) if candidate == "cpu" else run_pdftotext(todo, folder) or []
        for pdf, page, kind, seconds in times:
            pages.setdefault(pdf, []).append([page, kind, seconds])
        save_cache(folder, key, pages)
    return {p.name: pages[p.name] for p in pdfs if p.name in pages}


def wrote_text(folder: Path, pdf: str, rows: list[list]) -> bool:
    """Whether every page of the PDF has Markdown that is more than whitespace."""
    return bool(rows) and all((folder / f"{Path(pdf).stem}_pg{r[0]}_repeat1.md").read_text().strip() for r in rows)


def seconds_cell(rows: list[list], kind: str | None) -> str:
    """Mean seconds a page over the pages read that way (None: every page), with the count."""
    values = [r[2] for r in rows if kind is None or r[1] == kind]
    return f"{statistics.fmean(values):.2f} (n={len(values)})" if values else "-"


def print_tables(results: list[tuple[str, list[Path], dict[str, Pages], dict[str, dict]]], out: Path) -> None:
    """The pass-rate table per set, test type and selection of pages, then the seconds table."""
    cands = [c for c in CANDIDATES if any(c in r[2] for r in results)]
    print("| set | test type | pages | PDFs | " + " | ".join(LABELS[c] for c in cands))
    print("|---|---|---|---:|" + "---:|" * len(cands))
    for name, pdfs, pages, scores in results:
        tests = set_tests(out / name)
        both = {p.name for p in pdfs if all(wrote_text(out / name / c, p.name, pages[c].get(p.name, [])) for c in BOTH)}
        selections = {part: {p.name for p in pdfs if part_of(p.name) == part} for part in PARTS}
        selections["both wrote"] = both
        selections["check, both wrote"] = both & selections["check"]
        by_cand = {
            c: {s: with_all_types(counts(scores[c]["results"], tests, chosen)) for s, chosen in selections.items()}
            for c in cands
            if c in scores
        }
        kinds = list(with_all_types(counts(scores[cands[0]]["results"], tests, {p.name for p in pdfs})))
        for kind in kinds:
            for sel, chosen in selections.items():
                cells = " | ".join(cell(by_cand[c][sel].get(kind)) if c in by_cand else "-" for c in cands)
                print(f"| {name} | {kind} | {sel} | {len(chosen)} | {cells}")
    print()
    print("| set | candidate | s/page text layer | s/page OCR | s/page all | pages with no text | layout model ran")
    print("|---|---|---:|---:|---:|---:|---")
    for name, _pdfs, pages, _scores in results:
        for c in cands:
            rows = [r for pdf_rows in pages[c].values() for r in pdf_rows]
            empty = sum(not wrote_text(out / name / c, pdf, r) for pdf, r in pages[c].items())
            ran = f"{sum(bool(r[3]) for r in rows)} of {len(rows)} pages" if c == "pymupdf4llm" else ""
            cells = " | ".join(seconds_cell(rows, k) for k in ("text_layer", "ocr", None))
            print(f"| {name} | {LABELS[c]} | {cells} | {empty} | {ran}")


def main(argv: list[str] | None = None) -> int:
    """Read every set with each candidate (or take it from the cache), score them, and print the tables."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--out", type=Path, default=Path("/tmp/olmo-peer"))
    ap.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    ap.add_argument("--limit", type=int, default=None, help="at most this many PDFs a set")
    ap.add_argument("--split", choices=SPLITS, default="all", help="read only these PDFs (default: every PDF)")
    ap.add_argument("--olmocr-python", default=sys.executable)
    ap.add_argument("--pymupdf-python", default="/tmp/pymupdf-venv/bin/python", help="the peer's own venv")
    ap.add_argument("--peer-no-ocr", action="store_true", help="the peer on text layers only (use_ocr=False)")
    ap.add_argument("--chromium", default=shutil.which("chromium"), help="for math tests (KaTeX)")
    ap.add_argument("--rerun", nargs="*", default=[], choices=CANDIDATES, help="read these again, cache or not")
    args = ap.parse_args(argv)
    cands = [c for c in CANDIDATES if c != "pdftotext" or shutil.which("pdftotext")]
    engine = CpuEngine()
    results = []
    for name in args.sets:
        pdfs = prepare_set(args.data, name, args.out, args.limit, args.split)
        pages = {c: read_set(c, pdfs, args.out / name / c, args, engine) for c in cands}
        scores = {c: score(args.out / name, c, args.olmocr_python, args.chromium) for c in cands}
        results.append((name, pdfs, pages, scores))
        print(f"{name}: {len(pdfs)} PDFs read and scored", file=sys.stderr, flush=True)
    print(f"scorer: {results[0][3]['cpu']['scorer'] if results else '-'}; split: {args.split}")
    for c in cands:
        print(f"{LABELS[c]}: {cache_key(c, args.pymupdf_python, args.peer_no_ocr)}")
    print()
    print_tables(results, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
