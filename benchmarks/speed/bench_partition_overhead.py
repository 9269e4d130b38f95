"""What one partition of ocr_job costs beyond its pages: `dagster job execute` against the CLI's in-process run.

    .venv/bin/python -m benchmarks.speed.bench_partition_overhead [--pages 1] [--repeat 2]

One work group of one born-digital PDF (CPU engine, text layer: no OCR time to hide the overhead). For each
executor (OCR_PIPELINE_EXECUTOR=in_process, the default, and multiprocess, Dagster's default before) and for
the CLI (`ocr-pipeline run`, in-process, throwaway instance): a fresh partition (nothing in the workspace but
the inventory), then a rerun whose pages are all in the memo (its shard deleted first, so it is not skipped).
Best of `--repeat` wall times, each a new process as a user or CI would start it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support.builders import corpora

BIN = Path(sys.executable).parent
DEFS = ["-m", "ocr_pipeline.defs.definitions", "-a", "defs"]
PARTITION = ["--tags", '{"dagster/partition": "g000001"}']


def _timed(cmd: list[str], env: dict[str, str]) -> float:
    started = time.monotonic()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return seconds


def _dagster(root: Path, inputs: Path, executor: str) -> tuple[float, float]:
    """(fresh, memo-hit) seconds of `dagster job execute -j ocr_job` for the one group."""
    ws, home = root / f"ws-{executor}", root / f"home-{executor}"
    shutil.rmtree(ws, ignore_errors=True)
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir()
    env = {**os.environ, "DAGSTER_HOME": str(home), "OCR_PIPELINE_WORKSPACE": str(ws),
           "OCR_PIPELINE_PDFS": str(inputs), "OCR_PIPELINE_EXECUTOR": executor}  # fmt: skip
    _timed([str(BIN / "dagster"), "job", "execute", *DEFS, "-j", "inventory_job"], env)
    job = [str(BIN / "dagster"), "job", "execute", *DEFS, "-j", "ocr_job", *PARTITION]
    fresh = _timed(job, env)
    (ws / "dolma" / "g000001.jsonl.gz").unlink()
    return fresh, _timed(job, env)


def _cli(root: Path, inputs: Path) -> tuple[float, float]:
    """(fresh, memo-hit) seconds of `ocr-pipeline run` for the same group; the scan is in both."""
    ws = root / "ws-cli"
    shutil.rmtree(ws, ignore_errors=True)
    cmd = [sys.executable, "-m", "ocr_pipeline.cli", "run", str(ws), "--pdfs", str(inputs), "--quiet"]
    fresh = _timed(cmd, dict(os.environ))
    (ws / "dolma" / "g000001.jsonl.gz").unlink()
    return fresh, _timed(cmd, dict(os.environ))


def _import_seconds() -> float:
    """Wall time of importing the code location alone: what every extra process pays."""
    cmd = [sys.executable, "-c", "import ocr_pipeline.defs.definitions"]
    return min(_timed(cmd, dict(os.environ)) for _ in range(2))


def main() -> None:
    """Print the table (markdown) of best-of-N wall times."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        inputs = root / "in"
        inputs.mkdir()
        (inputs / "doc.pdf").write_bytes(corpora.numbered_pdf("doc", args.pages))
        ways = {
            "`dagster job execute`, in_process executor (default)": lambda: _dagster(root, inputs, "in_process"),
            "`dagster job execute`, multiprocess executor": lambda: _dagster(root, inputs, "multiprocess"),
            "`ocr-pipeline run` (CLI, in-process)": lambda: _cli(root, inputs),
        }
        rows: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
        for _ in range(args.repeat):  # interleaved, so a burst of load elsewhere hits every row alike
            for name, way in ways.items():
                rows[name].append(way())
        imports = _import_seconds()
    load = os.getloadavg()[0]
    print(f"one partition, one {args.pages}-page born-digital PDF, best of {args.repeat}; load average {load:.1f}")
    print("| how | fresh partition, s | all pages in the memo, s |")
    print("|---|---:|---:|")
    for name, runs in rows.items():
        print(f"| {name} | {min(r[0] for r in runs):.1f} | {min(r[1] for r in runs):.1f} |")
    print(f"| `import ocr_pipeline.defs.definitions` alone | {imports:.1f} | |")


if __name__ == "__main__":
    main()
