"""Heavy PDFs read by an earlier checkout and this one side by side in one run: seconds, memory, bounds that fired.

    git worktree add ../before <commit>
    nice .venv/bin/python -m benchmarks.before_after.bench_heavy_pdfs --before ../before [--after .] [--files ...]
        [--safety-mb 6144] [--family vlm cpu]

Per file, each checkout reads every page in a fresh process of its own as the PDF sandbox's child does
(`document_pages`: text layer, furniture, reading order, the render and its PNG), the two checkouts taking turns
file by file so that machine load falls on both alike. A row gives pages, seconds, the slowest page's text layer
(its `page_layout` and `layout_text` calls in both passes, timed where page_rows makes them), the process's peak
resident memory (ru_maxrss), how it ended, and, after, the bounds that fired (the pages' `render_note`s). A last
row reads every file one after the other in one process, for what a child keeps from document to document.

Then each checkout's real `PdfSandbox` renders every file in one reader child (as a work group is rendered; after
has its `pdf_memory_mb` cap): the child's peak and its driver's (the parent of the pipeline's family). With
`--family`, each checkout's whole pipeline (`ocr-pipeline run` over all the files: `vlm` against the fake VLM
server, `tests.support.vlm_server`, 0.1 s a page; `cpu` with the built-in engine, which lays out every page) runs
too, its process family's resident memory summed every 0.1 s: the peak of that sum, the wall time, the rejections
by reason. The data checks are off there (OCR_PIPELINE_CHECKS_DIR at an empty folder): memory is what is measured.

Every process started here has its data limited to `--safety-mb` (RLIMIT_DATA, inherited by its children unless
they set their own cap): the release before the bounds took one page to 20 GB, more than a shared machine can give;
there it ends in the allocation that would pass the limit, and the table says so ("MemoryError" pages, or the
sandbox's `memory_exceeded` / `render_crashed`).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.common.tools import REPO
from tests.support.shared_data import HEAVY_PDFS

# One process reads the PDFs named in argv with document_pages; one JSON line out. Calls of page_layout and
# layout_text are timed in order: the first pass lays out each page once (documents of two pages or more), then
# the calls between two rows are that row's page (a layout not kept is made again there).
_READER = r"""
import json, resource, sys, time
from ocr_pipeline.pdf import page_rows
calls = []
def timed(name):
    fn = getattr(page_rows, name)
    def call(*args, **kwargs):
        began = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            calls.append(time.perf_counter() - began)
    setattr(page_rows, name, call)
timed("page_layout")
timed("layout_text")
start, pages = time.perf_counter(), []
for path in sys.argv[1:]:
    calls.clear()
    marks, rows = [], []
    for row in page_rows.document_pages("pdf", path, 1288):
        marks.append(len(calls))
        rows.append([(row.get("render_error") or "").split(":")[0], row.get("render_note") or ""])
    n = len(rows)
    first = n if n > 1 else 0
    for k, (error, note) in enumerate(rows):
        layer = (calls[k] if k < first else 0.0) + sum(calls[(marks[k - 1] if k else first):marks[k]])
        pages.append([layer, error, note])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": time.perf_counter() - start, "pages": pages, "peak": peak}))
"""

# One PdfSandbox child renders every file in argv[1] (JSON); its peak and the driver's. Names both versions have.
_SANDBOX = r"""
import json, resource, sys, time
try:  # the sandbox as a package (pdf/sandbox/), or as the flat modules of older checkouts
    from ocr_pipeline.pdf.sandbox import spares as sandbox_spares
    from ocr_pipeline.pdf.sandbox.parent import PdfSandbox, SandboxAborted
except ImportError:
    from ocr_pipeline.pdf import sandbox_spares
    from ocr_pipeline.pdf.sandbox import PdfSandbox, SandboxAborted
start, pages, outcomes = time.perf_counter(), 0, []
sandbox = PdfSandbox()
try:
    for path in json.loads(sys.argv[1]):
        try:
            pages += sum(1 for _ in sandbox.render("pdf", path, 1288, 3600.0))
        except SandboxAborted as exc:
            outcomes.append(exc.reason)
finally:
    seconds = time.perf_counter() - start
    sandbox._discard()  # reaped here, so its peak is in this process's RUSAGE_CHILDREN
    sandbox.close()
    sandbox_spares._stop_spares()
print(json.dumps({"pages": pages, "seconds": seconds, "outcomes": outcomes,
                  "child": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024,
                  "driver": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def _limited(safety_mb: int) -> Callable[[], None]:
    def apply() -> None:
        if safety_mb:
            resource.setrlimit(resource.RLIMIT_DATA, (safety_mb << 20, resource.getrlimit(resource.RLIMIT_DATA)[1]))

    return apply


def _python(tree: Path, script: str, args: list[str], safety_mb: int) -> dict[str, Any]:
    """`script` run with `tree` first on the path under the data limit; its JSON line, or why it failed."""
    out = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree), "OPENBLAS_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
        preexec_fn=_limited(safety_mb),  # this benchmark starts no threads: preexec_fn is safe here
        check=False,
    )
    if out.returncode != 0:
        return {"failed": (out.stderr.strip().splitlines() or [f"exit code {out.returncode}"])[-1][:80]}
    return dict(json.loads(out.stdout.splitlines()[-1]))


def _short(note: str) -> str:
    """A note without its counts, so that one file's pages share it ("N characters outside the page left out")."""
    return " ".join("N" if word.replace(",", "").isdigit() else word for word in note.split())


def _reader_cells(report: dict[str, Any]) -> dict[str, str]:
    """Seconds, slowest text layer, peak MB, outcome and notes of one reader report, as table cells."""
    if "failed" in report:
        return {"s": "failed", "slowest": "", "peak": "", "outcome": report["failed"], "notes": ""}
    pages = report["pages"]
    errors = Counter(error for _, error, _ in pages if error)
    notes = Counter(_short(n) for _, _, note in pages for n in note.split("; ") if n)
    return {
        "s": f"{report['seconds']:.1f}",
        "slowest": f"{max((s for s, _, _ in pages), default=0.0):.2f}",
        "peak": f"{report['peak'] / 1e6:.0f}",
        "outcome": ", ".join(f"{k} {e} pages" for e, k in sorted(errors.items())) or "ok",
        "notes": "; ".join(f"{note} ({k} p.)" for note, k in sorted(notes.items())),
    }


def reader_table(trees: dict[str, Path], files: list[Path], safety_mb: int) -> None:
    """The per-file table, one fresh process per file and checkout, then all files in one process."""
    print(
        "| file | pages | before s | after s | after / before | before slowest text layer s "
        "| after slowest text layer s | before peak MB | after peak MB | before | after | bounds that fired (after) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|")
    batches = [[f] for f in files] + ([files] if len(files) > 1 else [])
    for k, batch in enumerate(batches):
        order = ["before", "after"] if k % 2 == 0 else ["after", "before"]
        reports = {side: _python(trees[side], _READER, [str(f) for f in batch], safety_mb) for side in order}
        b, a = _reader_cells(reports["before"]), _reader_cells(reports["after"])
        pages = max(len(r.get("pages", [])) for r in reports.values())
        ratio = ""
        if "seconds" in reports["before"] and "seconds" in reports["after"]:
            ratio = f"{reports['after']['seconds'] / reports['before']['seconds']:.2f}"
        name = batch[0].name if len(batch) == 1 else f"all {len(batch)} in one process"
        notes = a["notes"] if len(batch) == 1 else "(as above)"
        print(
            f"| {name} | {pages} | {b['s']} | {a['s']} | {ratio} | {b['slowest']} | {a['slowest']} | {b['peak']} "
            f"| {a['peak']} | {b['outcome']} | {a['outcome']} | {notes} |",
            flush=True,
        )


def sandbox_table(trees: dict[str, Path], files: list[Path], safety_mb: int) -> None:
    """Every file through each checkout's real PdfSandbox, in one reader child."""
    print("\n| one PdfSandbox child for all files | pages | seconds | child peak MB | driver peak MB | rejected |")
    print("|---|---:|---:|---:|---:|---|")
    for side, tree in trees.items():
        got = _python(tree, _SANDBOX, [json.dumps([str(f) for f in files])], safety_mb)
        if "failed" in got:
            print(f"| {side} | | | | | driver failed: {got['failed']} |", flush=True)
            continue
        rejected = ", ".join(f"{k} {r}" for r, k in sorted(Counter(got["outcomes"]).items())) or "none"
        print(
            f"| {side} | {got['pages']} | {got['seconds']:.0f} | {got['child'] / 1e6:.0f} | {got['driver'] / 1e6:.0f} "
            f"| {rejected} |",
            flush=True,
        )


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


def pipeline(tree: Path, files: list[Path], server: str | None, safety_mb: int) -> dict[str, Any]:
    """`ocr-pipeline run` of `tree` over `files` (against `server`, or the CPU engine): its family's peak RSS."""
    with tempfile.TemporaryDirectory(prefix="heavy-family-") as ws, tempfile.TemporaryDirectory() as no_checks:
        command = [sys.executable, "-m", "ocr_pipeline.cli", "run", ws, "--quiet", "--pdfs", *map(str, files)]
        command += ["--server", server] if server else []
        env = {**os.environ, "PYTHONPATH": str(tree), "OCR_PIPELINE_CHECKS_DIR": no_checks}
        started, peak = time.monotonic(), 0
        proc = subprocess.Popen(command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                preexec_fn=_limited(safety_mb))  # fmt: skip
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
        shards = sum(1 for _ in Path(ws, "dolma").glob("*.jsonl.gz"))
    return {"code": proc.returncode, "seconds": seconds, "peak_mb": peak, "rejected": dict(reasons), "shards": shards}


def family_table(trees: dict[str, Path], files: list[Path], engines: list[str], safety_mb: int) -> None:
    """Each checkout's whole pipeline over all the files, per engine: the family's peak summed RSS."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "-m", "tests.support.vlm_server", "--port", str(port), "--key-by-bytes"]
    server = subprocess.Popen([*command, "--service-time", "0.1"], cwd=REPO, stdout=subprocess.DEVNULL)
    try:
        time.sleep(3)
        print("\n| pipeline | engine | exit | seconds | family peak RSS MB | shards | rejected |")
        print("|---|---|---:|---:|---:|---:|---|")
        for engine in engines:
            url = f"http://127.0.0.1:{port}/v1" if engine == "vlm" else None
            for side, tree in trees.items():
                got = pipeline(tree, files, url, safety_mb)
                print(f"| {side} | {engine} | {got['code']} | {got['seconds']:.0f} | {got['peak_mb']} "
                      f"| {got['shards']} | {got['rejected'] or 'none'} |", flush=True)  # fmt: skip
    finally:
        server.terminate()
        server.wait(10)


def main(argv: list[str] | None = None) -> int:
    """Run both checkouts over the files and print the tables."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="root of the earlier checkout")
    parser.add_argument("--after", type=Path, default=REPO, help="root of the checkout measured against it")
    parser.add_argument("--files", type=Path, nargs="+", default=sorted(HEAVY_PDFS.glob("*.pdf")))
    parser.add_argument("--safety-mb", type=int, default=6144, help="every process's data limit, MiB (0: none)")
    parser.add_argument("--family", nargs="*", default=[], choices=["vlm", "cpu"], help="whole pipelines to run")
    args = parser.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    files = [f.resolve() for f in args.files]
    print(f"load: {os.getloadavg()[0]:.1f} (1-minute average, {os.cpu_count()} cores)")
    reader_table(trees, files, args.safety_mb)
    sandbox_table(trees, files, args.safety_mb)
    if args.family:
        family_table(trees, files, args.family, args.safety_mb)
    print(f"\nload at end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
