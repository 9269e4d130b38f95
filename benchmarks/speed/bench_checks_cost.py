"""What the data tests of a 500-page group cost: the SQL engine beside the expression interpreter it replaced.

    .venv/bin/python -m benchmarks.speed.bench_checks_cost [--pages 500] [--repeat 7]

Both engines run in one invocation on the same synthetic group: 50 inputs of 10 pages each, every manifest the
pipeline writes (inventory, filter decisions, rendered pages with a 20 KB image each, OCR results with 2,000
characters and their quality signals, the Dolma shard with its attributes, an empty ledger). The "before" side is
the interpreter itself, imported from git: `ocr_pipeline/checks/*.py` and `dbt_like_checks/*.yml` as they were in
the parent of the commit that removed `ocr_pipeline/checks/expressions.py`, written to a temporary package
(`old_checks`) that imports the rest of today's package. Each side loads its checks (the SQL side binds its queries
then), then evaluates every shipped test on a fresh read of the group, `--repeat` times alternating; the medians are
printed in milliseconds, the first evaluation of each side apart (the SQL side prepares its statements in it, to
execute them in every later one of the process), the machine's load average before and after, and both sides'
pass/fail per check, which must agree.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.common.tools import REPO
from ocr_pipeline.checks.loaders import PartitionData
from ocr_pipeline.checks.registry import evaluate_all
from ocr_pipeline.checks.spec import load_dir, shipped_checks_dir
from ocr_pipeline.records import PageResult
from ocr_pipeline.stages.dolma_documents import build_document
from ocr_pipeline.stages.page_images import PAGES_SCHEMA
from ocr_pipeline.workspace.keys import dolma_key, filtered_key, inventory_key, ocr_key, pages_key, rejected_key
from ocr_pipeline.workspace.manifest_schemas import FILTERED_SCHEMA, INVENTORY_SCHEMA, OCR_SCHEMA
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import gzip_jsonl, write_jsonl, write_table

GROUP = "g000001"
PAGES_PER_INPUT = 10
WORDS = ["the", "river", "valley", "cooperative", "reported", "its", "annual", "harvest", "and", "the", "board"]


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, check=True, capture_output=True, text=True).stdout


def old_engine(root: Path) -> tuple[Any, Any, Any, Path]:
    """The interpreter's `load_dir`, `evaluate`, `PartitionData` and shipped YAML folder, from git, as the package
    `old_checks`."""
    removed = _git("rev-list", "-1", "HEAD", "--", "ocr_pipeline/checks/expressions.py").strip()
    before = f"{removed}^"
    package, yml = root / "old_checks", root / "old_yml"
    package.mkdir()
    yml.mkdir()
    for path in _git("ls-tree", "--name-only", before, "ocr_pipeline/checks/").split():
        if path.endswith(".py"):
            text = _git("show", f"{before}:{path}").replace("ocr_pipeline.checks.", "old_checks.")
            (package / Path(path).name).write_text(text)
    for path in _git("ls-tree", "--name-only", before, "dbt_like_checks/").split():
        if path.endswith(".yml"):
            (yml / Path(path).name).write_text(_git("show", f"{before}:{path}"))
    sys.path.insert(0, str(root))
    spec, registry = importlib.import_module("old_checks.spec"), importlib.import_module("old_checks.registry")
    return spec.load_dir, registry.evaluate, importlib.import_module("old_checks.loaders").PartitionData, yml


def _text(page: int) -> str:
    words = [WORDS[(page * 7 + i) % len(WORDS)] for i in range(330)]
    return " ".join(words)[:2000]


def write_group(root: Path, pages: int) -> LocalWorkspace:
    """A group of `pages` pages as the pipeline leaves it: every manifest, the shard and the ledger."""
    ws = LocalWorkspace(root / "ws")
    inputs = [f"/in/doc{i:03d}.pdf" for i in range(pages // PAGES_PER_INPUT)]
    inventory = [
        {"source": s, "rel_path": Path(s).name, "kind": "pdf", "location": s, "size": 1000, "sha256": f"h{i}",
         "page_count": PAGES_PER_INPUT, "probed": True, "status": "ok", "group": GROUP, "added": "2026-12-05"}
        for i, s in enumerate(inputs)
    ]  # fmt: skip
    write_table(ws, inventory_key(GROUP), inventory, INVENTORY_SCHEMA)
    decisions = [
        {"source": s, "sha256": f"h{i}", "page_count": PAGES_PER_INPUT, "keep": True} for i, s in enumerate(inputs)
    ]
    write_table(ws, filtered_key(GROUP), decisions, FILTERED_SCHEMA)
    image = bytes(range(256)) * 80  # 20 KB: the checks never read it
    numbered = [(i, s, n) for i, s in enumerate(inputs) for n in range(1, PAGES_PER_INPUT + 1)]
    rendered = [
        {"source": s, "sha256": f"h{i}", "page_num": n, "png": image, "width": 995, "height": 1288,
         "text_layer": _text(n), "text_layer_trusted": n % 3 != 0}
        for i, s, n in numbered
    ]  # fmt: skip
    write_table(ws, pages_key(GROUP), rendered, PAGES_SCHEMA)
    quality = {"degenerate": False, "truncated": False, "text_layer_agreement": 0.97, "repetition": 0.01}
    results = [
        {"source": s, "sha256": f"h{i}", "page_num": n, "text": _text(n), "primary_language": "en",
         "is_rotation_valid": True, "rotation_correction": 0, "is_table": False, "is_diagram": False, "engine": "vlm",
         "model": "olmocr", "is_fallback": False, "input_tokens": 1800, "output_tokens": 600, "attempts": 1,
         "elapsed_s": 1.5, "memo_hit": False, "quality": json.dumps(quality)}
        for i, s, n in numbered
    ]  # fmt: skip
    write_table(ws, ocr_key(GROUP), results, OCR_SCHEMA)
    docs = []
    for s in inputs:
        rows = [r for r in results if r["source"] == s]
        page_results = [
            PageResult(
                source_hash=r["sha256"], **{k: r[k] for k in r if k not in {"source", "sha256", "quality", "memo_hit"}}
            )
            for r in rows
        ]
        signals = {r["page_num"]: quality for r in rows}
        docs.append(build_document(s, page_results, added="2026-12-05", total_pages=len(rows), quality=signals))
    ws.write_bytes(dolma_key(GROUP), gzip_jsonl(docs))
    write_jsonl(ws, rejected_key(GROUP), [])
    return ws


def _timed(run: Callable[..., Any], *args: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    value = run(*args)
    return time.perf_counter() - start, value


def _one_by_one(evaluate_one: Callable[[Any, Any], Any]) -> Callable[[list[Any], Any], Any]:
    """The interpreter's way: each test on its own."""
    return lambda tests, data: [(t, evaluate_one(t, data)) for t in tests]


def _evaluate_all(suite: Any, evaluate_tests: Callable[[list[Any], Any], Any], data: Any) -> dict[str, bool]:
    """Every test of the suite, asset by asset as the check ops run them: `asset/name` -> passed."""
    verdicts = {f"{a}/{t.name}": o.passed for a, tests in suite.tests.items() for t, o in evaluate_tests(tests, data)}
    close = getattr(data, "close", None)
    if close is not None:
        close()
    return verdicts


def main() -> None:
    """Time both engines on one synthetic group and print the medians."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    before_load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        old_load, old_evaluate, old_data, old_yml = old_engine(root)
        ws = write_group(root, args.pages)
        sides = {
            "interpreter (before)": (lambda: old_load(old_yml), _one_by_one(old_evaluate), old_data),
            "DuckDB SQL (after)": (lambda: load_dir(shipped_checks_dir()), evaluate_all, PartitionData),
        }
        loads: dict[str, list[float]] = {name: [] for name in sides}
        runs: dict[str, list[float]] = {name: [] for name in sides}
        verdicts: dict[str, dict[str, bool]] = {}
        for _ in range(args.repeat):
            for name, (load, evaluate_one, data) in sides.items():
                seconds, suite = _timed(load)
                loads[name].append(seconds)
                seconds, verdicts[name] = _timed(_evaluate_all, suite, evaluate_one, data(ws, GROUP))
                runs[name].append(seconds)
        print(f"{args.pages} pages, {len(verdicts['DuckDB SQL (after)'])} checks, median of {args.repeat} runs, ms")
        for name in sides:
            load, checks, first = (
                1000 * x for x in (statistics.median(loads[name]), statistics.median(runs[name]), runs[name][0])
            )
            print(f"  {name:22s} load {load:5.1f}   checks {checks:6.1f}   (first checks {first:.1f})")
        print(f"  load average: {before_load} before, {' '.join(f'{x:.2f}' for x in os.getloadavg())} after")
        before, after = verdicts["interpreter (before)"], verdicts["DuckDB SQL (after)"]
        differ = sorted(k for k in before if before[k] != after.get(k))
        print(f"  failing checks: {sorted(k for k, v in after.items() if not v)}; verdicts that differ: {differ}")


if __name__ == "__main__":
    main()
