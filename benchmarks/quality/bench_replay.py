"""olmOCR's own answers replayed through the pipeline, scored with olmOCR-Bench's classes beside the answers as
recorded: what the VLM path delivers of a real model's text, test by test.

    .venv/bin/python -m benchmarks.quality.bench_replay [--out DIR]

The old scans of ../shared/data/olmocr-bench-history that have olmOCR's Markdown (`old_scans/olmocr_pipeline/`) run
through `ocr-pipeline run --server` against the test server answering each page image with its recorded answer
(tests/support/recorded_answers.py). Each document the pipeline publishes is written as the candidate
`replayed/<stem>_pg1_repeat1.md`; the recorded answers are the candidate `recorded/`. Both are scored by
benchmarks/common/olmo_score.py (olmocr 0.4.27's test classes) on the set's tests of those pages. A test whose verdict
differs is listed with its page: the only page the pipeline may deliver differently is one whose answer it judged
degenerate on every attempt (it costs its document and is recorded in the ledger).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections import Counter
from pathlib import Path

from benchmarks.common.olmo_bench import score
from benchmarks.common.tools import OLMOCR_PYTHON, scratch
from ocr_pipeline.local_run import run_local
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.workspace.keys import dolma_key, rejected_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import read_gzip_jsonl, read_jsonl
from tests.support.recorded_answers import recorded_answers, recorded_pages
from tests.support.shared_data import HISTORY
from tests.support.vlm_server import VlmTestServer

SET = HISTORY / "old_scans"


def prepare(out: Path) -> Path:
    """OUT/old_scans with the PDFs that have a recorded answer, their tests, and the `recorded` candidate."""
    bench = out / "old_scans"
    for sub in ("pdfs", "recorded", "replayed"):
        shutil.rmtree(bench / sub, ignore_errors=True)
        (bench / sub).mkdir(parents=True)
    stems = set()
    for answer in sorted((SET / "olmocr_pipeline").glob("*_pg1_repeat1.md")):
        stem = answer.name.removesuffix("_pg1_repeat1.md")
        stems.add(f"{stem}.pdf")
        shutil.copy(SET / "pdfs" / f"{stem}.pdf", bench / "pdfs")
        shutil.copy(answer, bench / "recorded")
    lines = (SET / "old_scans.jsonl").read_text().splitlines()
    kept = [line for line in lines if line.strip() and json.loads(line)["pdf"] in stems]
    (bench / "tests.jsonl").write_text("".join(line + "\n" for line in kept))
    return bench


def replay(bench: Path, workspace: Path) -> list[dict[str, str]]:
    """Run the pipeline on the PDFs against the replaying server; write the `replayed` candidate; the ledger."""
    shutil.rmtree(workspace, ignore_errors=True)
    pages = recorded_pages(bench / "pdfs", bench / "recorded")
    with VlmTestServer(model="olmocr", text_for=recorded_answers(pages)) as server:
        settings = PipelineSettings(workspace=str(workspace), pdfs=[str(bench / "pdfs")], server=server.url,
                                    model="olmocr", pages_per_group=500)  # fmt: skip
        summary = run_local(settings, show_progress=False, verbose=False)
    if not summary.ok:
        sys.exit(f"the replay did not finish: {summary.causes or summary.unaccounted}")
    ws = LocalWorkspace(str(workspace))
    for doc in read_gzip_jsonl(ws.read_bytes(dolma_key("g000001"))):
        stem = Path(doc["metadata"]["Source-File"]).stem
        (bench / "replayed" / f"{stem}_pg1_repeat1.md").write_text(doc["text"], encoding="utf-8")
    return read_jsonl(ws, rejected_key("g000001"))


def main() -> None:
    """Replay, score both candidates, print the per-type table and every test whose verdict differs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--olmocr-python", default=OLMOCR_PYTHON, help="an interpreter with olmocr[bench]")
    parser.add_argument("--out", type=Path, default=scratch("replay"))
    args = parser.parse_args()
    bench = prepare(args.out)
    ledger = replay(bench, args.out / "ws")
    results = {name: score(bench, name, args.olmocr_python, None) for name in ("recorded", "replayed")}
    print(f"{len(list((bench / 'pdfs').glob('*.pdf')))} pages; scorer: {results['recorded']['scorer']}")
    print("\n| test type | recorded (olmOCR's answers) | replayed through the pipeline |\n|---|---:|---:|")
    types = sorted(set(results["recorded"]["by_type"]) | set(results["replayed"]["by_type"]))
    for kind in types:
        cells = [results[name]["by_type"].get(kind, [0, 0]) for name in ("recorded", "replayed")]
        print(f"| {kind} | " + " | ".join(f"{p}/{t}" for p, t in cells) + " |")
    tests = _test_pages(bench)
    recorded, replayed = results["recorded"]["results"], results["replayed"]["results"]
    differ = sorted(t for t in recorded if recorded[t] != replayed.get(t))
    by_page = Counter(tests[t] for t in differ)
    print(f"\nverdicts that differ: {len(differ)} of {len(recorded)} tests, on pages {dict(by_page) or 'none'}")
    for line in ledger:
        print(f"ledger: {Path(line['source']).name}: {line['reason']}: {line.get('detail', '')}")


def _test_pages(bench: Path) -> dict[str, str]:
    """Each test's id to its PDF's name."""
    lines = (bench / "tests.jsonl").read_text().splitlines()
    return {(test := json.loads(line))["id"]: test["pdf"] for line in lines if line.strip()}


if __name__ == "__main__":
    main()
