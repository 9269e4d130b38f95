"""Routing measured: how many pages `route auto` reads from their text layer, and how good those pages are.

    .venv/bin/python -m benchmarks.quality.bench_route [--out DIR]

1. The three born-digital olmOCR-Bench history sets (headers_footers, multi_columns, long_tiny_text) and
   pdf-parse-bench: each page is read as a routed run reads it (page rows with the full layout and the route
   evidence, `document_pages(text=ROUTE)`), decided with the shipped RouteParams, and the routed pages' layout text
   is written as the candidate `routed/<stem>_pg1_repeat1.md`, scored with olmocr's test classes
   (benchmarks/common/olmo_score.py) on the routed pages' tests only, per part (benchmarks/common/olmo_parts.py:
   rules chosen on the tuning part, judged on the check part), with a 95 % Wilson interval (a part routes a few dozen
   pages), beside olmOCR 2's published rates for the sets; every failed test of a routed page is listed.
   pdf-parse-bench's routed pages are compared with their ground truth (benchmarks/common/similarity.py's
   page_similarity).
2. What deciding costs: CPU seconds a page of reading the rows as `route auto` does (layout and evidence) against as
   `route model` does (pdfium's plain text), both in this process, same pages.
3. Every page's route and reasons, counted by reason: what keeps pages from the router.
4. `--mixed`: GPU-seconds saved on a mixed corpus (the three sets' PDFs and the old scans, one folder), each side a
   whole `ocr-pipeline run --server` against the test server holding each request `--service-time` seconds (0.222:
   an H100 serving olmOCR 2 at 4.5 pages/s), `--route model` then `--route auto`, fresh workspaces: the server's
   busy slot-seconds and requests per side, and the command's wall and CPU seconds.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from benchmarks.common.olmo_bench import score
from benchmarks.common.olmo_parts import PARTS, part_of
from benchmarks.common.similarity import page_similarity
from benchmarks.common.tools import OLMOCR_PYTHON, scratch
from ocr_pipeline.pdf.page_rows import PLAIN, ROUTE, document_pages
from ocr_pipeline.routing import RouteEvidence, decide
from tests.support.oracle import right_answers
from tests.support.shared_data import HISTORY, PARSE_BENCH, shared_data_present, where
from tests.support.vlm_server import VlmTestServer

SETS = ("headers_footers", "multi_columns", "long_tiny_text")
# olmOCR 2's published olmOCR-Bench rates for these sets (its model card, allenai/olmOCR-2-7B-1025).
OLMOCR2 = {"headers_footers": 0.961, "multi_columns": 0.837, "long_tiny_text": 0.819}


def read(pdf: Path, text: str) -> tuple[dict, float]:
    """The page row of a one-page PDF read with `text`, and the CPU seconds it took."""
    started = time.process_time()
    (row,) = document_pages("pdf", str(pdf), 1288, text=text)
    return row, time.process_time() - started


def route_set(pdfs: list[Path], out: Path, costs: dict[str, list[float]]) -> dict[str, dict]:
    """Each PDF's route and reasons; routed pages' text written as the candidate `routed` in `out`."""
    (out / "routed").mkdir(parents=True, exist_ok=True)
    pages = {}
    for pdf in pdfs:
        row, seconds = read(pdf, ROUTE)
        _, plain_seconds = read(pdf, PLAIN)
        costs["route"].append(seconds)
        costs["plain"].append(plain_seconds)
        decision = decide(RouteEvidence.from_json(row["route_evidence"]))
        pages[pdf.name] = {"routed": decision.routed, "reasons": decision.reasons, "text": row["text_layer"] or ""}
        if decision.routed:
            (out / "routed" / f"{pdf.stem}_pg1_repeat1.md").write_text(row["text_layer"] or "", encoding="utf-8")
    return pages


def _kind(reason: str) -> str:
    """A reason without its numbers and quotes ("17 lines of raster text ..." -> "N lines of raster text ...")."""
    return re.sub(r"\d+(\.\d+)?%?", "N", reason.split(": '")[0].split(" (")[0])


def wilson(passed: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson interval of a pass rate: how far a rate over a few routed pages can be from the set's own."""
    if not total:
        return float("nan"), float("nan")
    rate = passed / total
    centre = (rate + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(rate * (1 - rate) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return centre - half, centre + half


def olmo_rows(
    args: argparse.Namespace, costs: dict[str, list[float]], reasons: Counter[str], failed: list[str]
) -> list[str]:
    """The table rows of the olmOCR-Bench sets: routed share and pass rate per part, beside olmOCR 2's; each routed
    page's failed test is added to `failed` (set, part, test id and its text) for reading."""
    rows = []
    for name in SETS:
        bench = args.out / name
        shutil.rmtree(bench, ignore_errors=True)
        bench.mkdir(parents=True)
        pdfs = sorted((HISTORY / name / "pdfs").glob("*.pdf"))
        shutil.copy(HISTORY / name / f"{name}.jsonl", bench / "tests.jsonl")
        pages = route_set(pdfs, bench, costs)
        reasons.update(_kind(r) for p in pages.values() for r in p["reasons"])
        results = score(bench, "routed", args.olmocr_python, None)["results"] if any(
            p["routed"] for p in pages.values()) else {}  # fmt: skip
        tests = [json.loads(line) for line in (bench / "tests.jsonl").read_text().splitlines() if line.strip()]
        for part in PARTS:
            names = {p.name for p in pdfs if part_of(p.name) == part}
            routed = {n for n in names if pages[n]["routed"]}
            scored = [t for t in tests if t["pdf"] in routed and t["id"] in results]
            verdicts = [results[t["id"]] for t in scored]
            rate = sum(verdicts) / len(verdicts) if verdicts else float("nan")
            low, high = wilson(sum(verdicts), len(verdicts))
            rows.append(f"| {name} | {part} | {len(routed)}/{len(names)} = {len(routed) / max(len(names), 1):.0%} "
                        f"| {sum(verdicts)}/{len(verdicts)} = {rate:.3f} ({low:.2f}-{high:.2f}) "
                        f"| {OLMOCR2[name]:.3f} |")  # fmt: skip
            failed += [f"{name} {part} {t['id']} ({t['type']}): {str(t.get('text') or t.get('before'))[:70]!r}"
                       for t in scored if not results[t["id"]]]  # fmt: skip
    return rows


def parse_bench_rows(args: argparse.Namespace, costs: dict[str, list[float]], reasons: Counter[str]) -> list[str]:
    """pdf-parse-bench: routed share and the routed pages' similarity to their ground truth, per set."""
    rows = []
    for folder in sorted(PARSE_BENCH.glob("2026-q1-*")):
        pdfs = sorted((folder / "pdfs").glob("*.pdf"))
        pages = route_set(pdfs, args.out / folder.name, costs)
        reasons.update(_kind(r) for p in pages.values() for r in p["reasons"])
        sims = []
        for pdf in pdfs:
            if pages[pdf.name]["routed"]:
                truth = json.loads((folder / "ground_truth" / f"{pdf.stem}.json").read_text(encoding="utf-8"))
                sims.append(page_similarity(pages[pdf.name]["text"], [str(b["data"]) for b in truth]))
        mean = statistics.fmean(sims) if sims else float("nan")
        rows.append(f"| {folder.name} | {len(sims)}/{len(pdfs)} | {mean:.3f} |")
    return rows


def mixed_corpus(out: Path) -> Path:
    """The three born-digital sets' PDFs and the old scans in one folder (names kept apart by their set)."""
    folder = out / "mixed"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name in (*SETS, "old_scans"):
        for pdf in sorted((HISTORY / name / "pdfs").glob("*.pdf")):
            shutil.copy(pdf, folder / f"{name}-{pdf.name}")
    return folder


def gpu_saving(args: argparse.Namespace) -> list[str]:
    """Both routes over the mixed corpus against a test server of fixed service time: what reached the GPU."""
    corpus = mixed_corpus(args.out)
    answers = right_answers(corpus)
    rows = []
    for route in ("model", "auto"):
        ws = args.out / f"ws-{route}"
        shutil.rmtree(ws, ignore_errors=True)
        # Pages without an answer (scans) get the server's default words at once: the canary's pages are not rendered.
        with VlmTestServer(model="olmocr", text_for=answers, capacity=16, service_time_s=args.service_time,
                           canary_right=False) as server:  # fmt: skip
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.monotonic()
            command = [sys.executable, "-m", "ocr_pipeline.cli", "run", str(ws), "--pdfs", str(corpus), "--server",
                       server.url, "--model", "olmocr", "--route", route, "--quiet"]  # fmt: skip
            done = subprocess.run(command, capture_output=True, text=True)
            wall = time.monotonic() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            stats = server.stats()
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        pages = next((line for line in done.stdout.splitlines() if line.startswith("pages:")), "?")
        gpu = stats["requests"] * args.service_time
        rows.append(f"| {route} | {stats['requests']} | {gpu:.1f} | {stats['busy_slot_s']:.1f} | {wall:.1f} | "
                    f"{cpu:.1f} | {pages.removeprefix('pages:').strip()} |")  # fmt: skip
    return rows


def main() -> int:
    """Route every page of the sets, score the routed pages, print the tables, the cost and the reasons."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--olmocr-python", default=OLMOCR_PYTHON, help="an interpreter with olmocr[bench]")
    parser.add_argument("--out", type=Path, default=scratch("route-bench"))
    parser.add_argument("--mixed", action="store_true", help="only the GPU-seconds saved on the mixed corpus")
    parser.add_argument("--service-time", type=float, default=0.222, help="seconds the test server holds a request")
    args = parser.parse_args()
    if not shared_data_present():
        print(f"no benchmark data at {where()}", file=sys.stderr)
        return 2
    if args.mixed:
        print("| route | requests | GPU-s (requests x service time) | server slot-s | wall s | CPU s | pages |"
              "\n|---|---:|---:|---:|---:|---:|---|")  # fmt: skip
        print("\n".join(gpu_saving(args)))
        return 0
    costs: dict[str, list[float]] = {"route": [], "plain": []}
    reasons: Counter[str] = Counter()
    failed: list[str] = []
    print("| set | part | pages routed | routed pages' tests passed (95 % interval) | olmOCR 2 on the set |"
          "\n|---|---|---:|---:|---:|")  # fmt: skip
    print("\n".join(olmo_rows(args, costs, reasons, failed)))
    print("\nthe routed pages' failed tests:\n" + "\n".join(f"  {line}" for line in failed))
    print("\n| pdf-parse-bench set | pages routed | similarity of routed pages to truth |\n|---|---:|---:|")
    print("\n".join(parse_bench_rows(args, costs, reasons)))
    route_ms, plain_ms = (1000 * statistics.median(costs[k]) for k in ("route", "plain"))
    print(f"\nCPU a page, median over {len(costs['route'])} pages: route auto's rows {route_ms:.0f} ms, route model's "
          f"{plain_ms:.0f} ms: deciding costs {route_ms - plain_ms:.0f} ms a page")  # fmt: skip
    print("\nwhy pages went to the model (a page may have several reasons):")
    for reason, count in reasons.most_common():
        print(f"  {count:4d}  {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
