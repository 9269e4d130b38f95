"""Heavy PDFs through the PDF sandbox, an earlier checkout against this one, side by side in one run.

    git worktree add /tmp/before a71e098
    .venv/bin/python -m benchmarks.bench_heavy_pdfs --before /tmp/before [--after .] [--safety-mb 6144]

Each file is rendered (text layer, furniture, reading order, render, PNG: the page rows of the pipeline's render
stage) by each checkout's own `PdfSandbox`, in a driver process of its own with a fresh reader child, so a
checkout's peak is that file's alone; the two checkouts take turns file by file, so load falls on both alike. Per
file it prints pages, seconds, the reader child's peak resident memory and the driver's (the parent of the
pipeline's process family: their sum bounds the family's peak), what the render ended in (`ok`, or the sandbox's
reason) and the pages that carry a `render_note`. A last row reads every file one after the other in one child of
each checkout, for what a child holds from document to document. With `--family`, each checkout's whole pipeline
(`ocr-pipeline run` over all the files against the fake VLM server, `tests.support.vlm_server`, 0.1 s a page) runs
too, its process family's resident memory summed every 0.1 s: the peak of that sum, the wall time and the
rejections by reason. The data checks are off there (OCR_PIPELINE_CHECKS_DIR at an empty folder): the server's
answers are not the pages' text, so the agreement gate would stop every group, and memory is what is measured.

The driver's data is limited to `--safety-mb` (RLIMIT_DATA, which its child inherits unless it sets its own cap):
the last release took one page of govdocs1-268346.pdf to 20 GB, more than a shared machine can give; there it
ends in the allocation that would pass the limit, and the table says so.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
HEAVY = DATA / "heavy-pdfs"

# Run with one checkout first on sys.path; only names both versions of the sandbox have.
_DRIVER = r"""
import json, resource, sys, time
from ocr_pipeline.pdf import sandbox_spares
from ocr_pipeline.pdf.sandbox import PdfSandbox, SandboxAborted

safety_mb, files = int(sys.argv[1]), json.loads(sys.argv[2])
if safety_mb:
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    resource.setrlimit(resource.RLIMIT_DATA, (safety_mb << 20, hard))
start, pages, notes, errors, outcome = time.perf_counter(), 0, 0, 0, "ok"
sandbox = PdfSandbox()
try:
    for path in files:
        try:
            for row in sandbox.render("pdf", path, 1288, 3600.0):
                pages += 1
                notes += bool(row.get("render_note"))
                errors += bool(row.get("render_error"))
        except SandboxAborted as exc:
            outcome = exc.reason if len(files) == 1 else "some rejected"
finally:
    seconds = time.perf_counter() - start
    sandbox._discard()  # reaped here, so its peak is in this process's RUSAGE_CHILDREN
    sandbox.close()
    sandbox_spares._stop_spares()
child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
driver = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
print(json.dumps({"pages": pages, "seconds": seconds, "child_mb": child, "driver_mb": driver,
                  "outcome": outcome + (f", {errors} page errors" if errors else ""), "noted": notes}))
"""


def run(tree: Path, files: list[Path], safety_mb: int) -> dict[str, object]:
    """Render `files` in one fresh child of `tree`'s sandbox; its numbers (see the module's docstring)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "-c", _DRIVER, str(safety_mb), json.dumps([str(f) for f in files])],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        return {"pages": 0, "seconds": 0.0, "child_mb": 0, "driver_mb": 0, "outcome": "driver failed", "noted": 0}
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def _family(root: int) -> list[int]:
    """`root` and every process descended from it."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += parents.get(pid, [])
    return out


def _rss_mb(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        total += next((int(x.split()[1]) for x in status.splitlines() if x.startswith("VmRSS:")), 0)
    return total // 1024


def _limit(safety_mb: int) -> None:
    if safety_mb:
        import resource

        resource.setrlimit(resource.RLIMIT_DATA, (safety_mb << 20, resource.getrlimit(resource.RLIMIT_DATA)[1]))


def family(tree: Path, files: list[Path], url: str, safety_mb: int) -> dict[str, object]:
    """`ocr-pipeline run` of `tree` over `files` against the server at `url`: its family's peak RSS and more."""
    with tempfile.TemporaryDirectory(prefix="heavy-family-") as ws, tempfile.TemporaryDirectory() as no_checks:
        command = [sys.executable, "-m", "ocr_pipeline.cli", "run", ws, "--server", url, "--pdfs", *map(str, files)]
        env = {**os.environ, "PYTHONPATH": str(tree), "OCR_PIPELINE_CHECKS_DIR": no_checks}
        started, peak = time.monotonic(), 0
        proc = subprocess.Popen(command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                preexec_fn=lambda: _limit(safety_mb))  # fmt: skip
        while proc.poll() is None:
            peak = max(peak, _rss_mb(_family(proc.pid)))
            time.sleep(0.1)
        seconds = time.monotonic() - started
        reasons = Counter(
            json.loads(line)["reason"]
            for ledger in Path(ws, "rejected").glob("*.jsonl")
            for line in ledger.read_text().splitlines()
            if line.strip()
        )
        shards = len(list(Path(ws, "dolma").glob("*.jsonl.gz")))
    return {"code": proc.returncode, "seconds": seconds, "peak_mb": peak, "rejected": dict(reasons), "shards": shards}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _cell(result: dict[str, object]) -> str:
    return f"{result['seconds']:.1f} | {result['child_mb']} | {result['driver_mb']} | {result['outcome']}"


def main(argv: list[str] | None = None) -> int:
    """Run both checkouts over the files and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="root of the earlier checkout")
    parser.add_argument("--after", type=Path, default=ROOT, help="root of the checkout measured against it")
    parser.add_argument("--files", type=Path, nargs="+", default=sorted(HEAVY.glob("*.pdf")))
    parser.add_argument("--safety-mb", type=int, default=6144, help="the drivers' data limit (0: none)")
    parser.add_argument("--family", action="store_true", help="also each checkout's whole pipeline, its family's RSS")
    args = parser.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    print(f"load: {os.getloadavg()[0]:.1f} (1-minute average, {os.cpu_count()} cores)")
    print("| file | pages | before s | before child MB | before driver MB | before | after s | after child MB "
          "| after driver MB | after | pages noted after |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|---|---:|")
    batches = [[f] for f in args.files] + ([list(args.files)] if len(args.files) > 1 else [])
    for k, files in enumerate(batches):
        order = ["before", "after"] if k % 2 == 0 else ["after", "before"]
        results = {label: run(trees[label], files, args.safety_mb) for label in order}
        name = files[0].name if len(files) == 1 else f"all {len(files)} in one child"
        pages = max(int(str(r["pages"])) for r in results.values())
        print(f"| {name} | {pages} | {_cell(results['before'])} | {_cell(results['after'])} "
              f"| {results['after']['noted']} |", flush=True)  # fmt: skip
    if args.family:
        port = _free_port()
        server_command = [sys.executable, "-m", "tests.support.vlm_server", "--port", str(port), "--key-by-bytes"]
        server = subprocess.Popen([*server_command, "--service-time", "0.1"], cwd=ROOT, stdout=subprocess.DEVNULL)
        try:
            time.sleep(3)
            print("\n| pipeline | exit | seconds | family peak RSS MB | shards | rejected |")
            print("|---|---:|---:|---:|---:|---|")
            for label in ("before", "after"):
                got = family(trees[label], list(args.files), f"http://127.0.0.1:{port}/v1", args.safety_mb)
                print(f"| {label} | {got['code']} | {got['seconds']:.0f} | {got['peak_mb']} | {got['shards']} "
                      f"| {got['rejected'] or 'none'} |", flush=True)  # fmt: skip
        finally:
            server.terminate()
            server.wait(10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
