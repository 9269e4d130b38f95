"""Byte-identity of the CPU engine's page Markdown between two checkouts, over every real page we hold.

A refactor of the layout code must not change one byte of what the engine writes. This reads every page of
../shared/data (the olmOCR-Bench history sets and both pdf-parse-bench sets) and of the shipped canary set
through the pipeline's own page rows and `CpuEngine.ocr_page`, with the code of one checkout, and writes each
page's Markdown to OUT/<label>/<set>/<pdf stem>_pg<page>.md (plus a `digests.json`); `--compare` then lists the
pages whose Markdown differs between two labels.

    .venv/bin/python -m benchmarks.before_after.bench_layout_identity --label before --tree ../before
    .venv/bin/python -m benchmarks.before_after.bench_layout_identity --label after
    .venv/bin/python -m benchmarks.before_after.bench_layout_identity --compare before after

`--tree` runs another checkout's `ocr_pipeline` (its folder first on PYTHONPATH, this venv's packages); `--sets`
keeps to some sets; `--no-ocr` writes an untrusted page's text layer instead of OCR'ing it (minutes, not an hour);
`--text-layer` writes every page's stored text layer as the page rows carry it, no engine at all (with its
`render_note`, if any, in `notes.json`: where a layout bound fired).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common.tools import REPO, scratch
from tests.support.shared_data import HEAVY_PDFS, HISTORY, HISTORY_SETS, PARSE_BENCH, PARSE_SETS

SETS = {
    **{name: HISTORY / name / "pdfs" for name in HISTORY_SETS},
    **{name: PARSE_BENCH / folder / "pdfs" for name, folder in PARSE_SETS.items()},
    "heavy": HEAVY_PDFS,
    "canary": Path("ocr_pipeline") / "canary" / "pages" / "pdfs",  # relative to the checkout read
    "samples": Path("ocr_pipeline") / "samples",
}

# Run in the child, with the checkout under test first on sys.path: only names every version of the code has.
_DUMP = r"""
import hashlib, json, sys, time
from pathlib import Path

from benchmarks.common.tools import REPO, scratch
from tests.support.shared_data import HEAVY_PDFS, HISTORY, HISTORY_SETS, PARSE_BENCH, PARSE_SETS
from ocr_pipeline.engines.cpu import CpuEngine
from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.records import PageInput

out, ocr, layer = Path(sys.argv[1]), sys.argv[2] == "1", sys.argv[3] == "1"
jobs = json.loads(sys.stdin.read())
engine = CpuEngine()
digests, notes = {}, {}
for name, pdfs in jobs.items():
    (out / name).mkdir(parents=True, exist_ok=True)
    for pdf in pdfs:
        stem = Path(pdf).stem
        start = time.perf_counter()
        try:
            rows = list(document_pages("pdf", pdf, 1288))
        except Exception as exc:  # noqa: BLE001
            digests[f"{name}/{stem}"] = f"error: {type(exc).__name__}: {exc}"
            continue
        for row in rows:
            page = PageInput(stem, row["page_num"], row["png"], row["width"], row["height"],
                             row["text_layer"] or "", bool(row["text_layer_trusted"]),
                             image_covered=bool(row["image_covered"]))
            key = f"{name}/{stem}_pg{row['page_num']}"
            if row.get("render_note"):
                notes[key] = row["render_note"]
            if layer:
                text = row["text_layer"] or ""
            elif page.png is None:
                text = "render error: " + str(row["render_error"])
            elif ocr or page.text_layer_trusted:
                text = engine.ocr_page(page).text
            else:
                text = page.text_layer
            (out / f"{key}.md").write_text(text)
            digests[key] = hashlib.sha256(text.encode()).hexdigest()
        print(f"{name}/{stem}: {len(rows)} pages, {time.perf_counter() - start:.2f}s", file=sys.stderr, flush=True)
(out / "digests.json").write_text(json.dumps(digests, indent=0, sort_keys=True))
(out / "notes.json").write_text(json.dumps(notes, indent=0, sort_keys=True))
"""


def pdfs_of(tree: Path, sets: list[str]) -> dict[str, list[str]]:
    """Every PDF of the chosen sets, by set, in name order (canary and samples from the checkout read)."""
    jobs = {}
    for name in sets:
        folder = SETS[name] if SETS[name].is_absolute() else tree / SETS[name]
        jobs[name] = [str(p) for p in sorted(folder.glob("*.pdf"))]
    return jobs


def dump(tree: Path, out: Path, sets: list[str], ocr: bool, layer: bool = False) -> None:
    """Write every page's Markdown under OUT with `tree`'s code (in a child, so two checkouts never mix)."""
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", _DUMP, str(out), "1" if ocr else "0", "1" if layer else "0"],
        input=json.dumps(pdfs_of(tree, sets)),
        text=True,
        env=env,
        cwd=tree,
        check=True,
    )
    print(f"{out}: {time.perf_counter() - start:.0f}s")


def compare(a: Path, b: Path) -> int:
    """Print, per set, how many pages are byte-identical between two dumps and list the others; 1 if any differ."""
    da, db = (json.loads((p / "digests.json").read_text()) for p in (a, b))
    by_set: dict[str, list[int]] = {}
    differing = []
    for key in sorted(set(da) | set(db)):
        same = da.get(key) == db.get(key)
        counts = by_set.setdefault(key.split("/")[0], [0, 0])
        counts[0 if same else 1] += 1
        if not same:
            differing.append(key)
    print("| set | identical | different |\n|---|---:|---:|")
    for name, (same, diff) in sorted(by_set.items()):
        print(f"| {name} | {same} | {diff} |")
    total = sum(s for s, _ in by_set.values()), sum(d for _, d in by_set.values())
    print(f"| all | {total[0]} | {total[1]} |")
    for key in differing:
        why = f"missing in {b.name}" if key not in db else f"missing in {a.name}" if key not in da else "text"
        print(f"differs: {key} ({why})")
    return 1 if differing else 0


def main(argv: list[str] | None = None) -> int:
    """Dump one checkout's page Markdown, or compare two dumps."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=scratch("layout-identity"))
    parser.add_argument("--label", default="current")
    parser.add_argument("--tree", type=Path, default=REPO, help="the checkout whose ocr_pipeline is read")
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    parser.add_argument("--no-ocr", action="store_true", help="an untrusted page's text layer instead of OCR")
    parser.add_argument("--text-layer", action="store_true", help="each page's stored text layer, no engine")
    parser.add_argument("--compare", nargs=2, metavar=("LABEL_A", "LABEL_B"))
    args = parser.parse_args(argv)
    if args.compare:
        return compare(args.out / args.compare[0], args.out / args.compare[1])
    dump(args.tree.resolve(), args.out / args.label, args.sets, not args.no_ocr, args.text_layer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
