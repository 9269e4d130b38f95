"""Time to first request and server busy fraction: `ocr-pipeline run --server` (and olmocr's pipeline) end to end.

A mixed corpus of born-digital PDFs (13 PDFs, 1 to 200 pages) goes through the whole command against the
capacity-limited test server (`python -m tests.support.vlm_server`, N slots of a fixed service time, run as its
own process). The server's GET /stats gives the wall-clock time of its first request and the slot-seconds it
spent serving; the bound is pages × service time / slots, what a perfectly fed server needs.

    .venv/bin/python -m benchmarks.speed.bench_first_request [--capacity 4] [--service-time 0.25] [--runs 1]
        [--configs 500x1 20x1 20x2] [--olmocr-python PYTHON]

Each config is pages_per_group x workers; both systems run every config, each against a fresh server, so
several groups (pages_per_group 20: 3 groups here, 5: 7 groups) show whether the server drains at group boundaries.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from benchmarks.common.tools import OLMOCR_FULL_PYTHON, OLMOCR_PYTHON
from benchmarks.speed.bench_vlm_throughput import free_port
from tests.support.builders.corpora import mixed_pdfs
from tests.support.oracle import right_answers

# 13 PDFs, 227 pages: many short documents and one long one, the shape of the corpus.
PAGE_COUNTS = (1, 1, 2, 2, 3, 3, 4, 2, 2, 1, 1, 5, 200)
OLMOCR_PYTHONS = (OLMOCR_FULL_PYTHON, OLMOCR_PYTHON)


def build_corpus(folder: Path) -> int:
    """Write the corpus's PDFs into `folder`; returns its page count."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in mixed_pdfs(PAGE_COUNTS, rejected=False).items():
        (folder / name).write_bytes(body)
    return sum(PAGE_COUNTS)


def server_stats(url: str) -> dict[str, float]:
    """The test server's counters (GET /stats)."""
    with urllib.request.urlopen(f"{url}/stats", timeout=10) as response:
        return json.loads(response.read())


def write_answers(pdfs: Path, path: Path) -> Path:
    """The corpus's right answers as the server's --text-from file (tests.support.oracle); returns its path."""
    # Without them the server answers words unrelated to the pages: the text-layer agreement gate stops every
    # group and the run exits 1.
    path.write_text(json.dumps(right_answers(pdfs, key_by_bytes=True)))
    return path


def start_server(capacity: int, service_time: float, answers: Path) -> tuple[subprocess.Popen[bytes], str]:
    """The capacity-limited test server in its own process, once it answers."""
    port = free_port()
    cmd = [sys.executable, "-m", "tests.support.vlm_server", "--port", str(port), "--key-by-bytes"]
    cmd += ["--capacity", str(capacity), "--service-time", str(service_time), "--text-from", str(answers)]
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            server_stats(url)
            return server, url
        except OSError:
            if time.monotonic() > deadline:
                server.kill()
                raise
            time.sleep(0.1)


def timed_run(cmd: list[str], args: argparse.Namespace, pages: int, log: Path) -> dict[str, float]:
    """Run one command against a fresh server; wall time, first request, busy fraction, ratio to the bound."""
    server, url = start_server(args.capacity, args.service_time, args.answers)
    try:
        cmd = [part.replace("{URL}", url) for part in cmd]
        started = time.time()
        with log.open("wb") as out:
            rc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, check=False).returncode
        wall = time.time() - started
        stats = server_stats(url)
    finally:
        server.terminate()
        server.wait(10)
    if rc != 0:
        raise RuntimeError(f"{cmd[0]} exited {rc}; see {log}")
    bound = pages * args.service_time / args.capacity
    first = (stats["first_request_at"] or started) - started
    span = (stats["last_reply_at"] or started) - (stats["first_request_at"] or started)
    busy = stats["busy_slot_s"] / args.capacity
    return {
        "wall": wall,
        "first": first,
        "busy_wall": busy / wall,
        "busy_span": busy / span if span > 0 else 0.0,
        "ratio": wall / bound,
        "requests": stats["completed"],
        "bound": bound,
    }


def olmocr_python(candidates: list[str]) -> tuple[str | None, str]:
    """The first interpreter that can import olmocr's pipeline, or None and why none can."""
    why = "no olmocr venv found (tried " + ", ".join(candidates) + ")"
    for python in candidates:
        if not Path(python).exists():
            continue
        probe = subprocess.run([python, "-c", "import olmocr.pipeline"], capture_output=True, text=True, check=False)
        if probe.returncode == 0:
            return python, ""
        last = (probe.stderr.strip().splitlines() or ["import failed"])[-1]
        why = f"{python} cannot import olmocr.pipeline: {last}"
    return None, why


def commands(pages_per_group: int, workers: int, pdfs: Path, work: Path, olmocr: str | None) -> dict[str, list[str]]:
    """The command line of each system, `{URL}` standing for the server's address."""
    ours = [str(Path(sys.executable).with_name("ocr-pipeline")), "run", str(work / "ours"), "--pdfs", str(pdfs)]
    ours += ["--server", "{URL}", "--pages_per_group", str(pages_per_group), "--workers", str(workers)]
    runs = {"ocr-pipeline": ours + ["--quiet"]}
    if olmocr:
        theirs = [
            olmocr,
            "-m",
            "olmocr.pipeline",
            str(work / "olmocr"),
            "--pdfs",
            *map(str, sorted(pdfs.glob("*.pdf"))),
        ]
        theirs += ["--server", "{URL}/v1", "--model", "olmocr", "--pages_per_group", str(pages_per_group)]
        runs["olmocr"] = theirs + ["--workers", str(workers)]
    return runs


def parse_config(text: str) -> tuple[int, int]:
    """`500x1` -> (pages_per_group 500, workers 1)."""
    pages, _, workers = text.partition("x")
    return int(pages), int(workers or 1)


def main() -> None:
    """Run each system on each config `--runs` times into fresh workspaces and print a Markdown table."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--capacity", type=int, default=4, help="server request slots")
    p.add_argument("--service-time", type=float, default=0.25, help="seconds each request holds a slot")
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--configs", nargs="+", default=["500x1"], help="pages_per_group x workers, e.g. 500x1 20x2")
    p.add_argument("--olmocr-python", action="append", default=None, help="interpreter with olmocr installed")
    p.add_argument("--no-olmocr", action="store_true")
    args = p.parse_args()

    olmocr, why = (None, "--no-olmocr") if args.no_olmocr else olmocr_python(args.olmocr_python or list(OLMOCR_PYTHONS))
    rows: dict[tuple[str, str], list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-first-request-") as tmp:
        pages = build_corpus(Path(tmp) / "pdfs")
        args.answers = write_answers(Path(tmp) / "pdfs", Path(tmp) / "answers.json")
        for run in range(args.runs):
            for config in args.configs:
                work = Path(tmp) / f"run{run}-{config}"
                work.mkdir()
                runs = commands(*parse_config(config), Path(tmp) / "pdfs", work, olmocr)
                for name, cmd in runs.items():
                    log = Path(tempfile.gettempdir()) / f"bench-first-request-{name}-{config}-{run}.log"
                    rows.setdefault((config, name), []).append(timed_run(cmd, args, pages, log))

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    bound = pages * args.service_time / args.capacity
    print(
        f"\n{len(PAGE_COUNTS)} PDFs, {pages} pages; server {args.capacity} slots x {args.service_time:g} s "
        f"(bound {bound:.1f} s); {os.cpu_count()} cores, load {load}\n"
    )
    print(
        "| pages_per_group x workers | system | wall (s) | first request (s) | busy (of wall) "
        "| busy (first→last request) | wall / bound | requests | olmocr wall / ours |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for (config, name), results in rows.items():
        theirs = rows.get((config, "olmocr"))
        for i, r in enumerate(results):
            versus = f"{theirs[i]['wall'] / r['wall']:.2f}" if theirs and name != "olmocr" else "-"
            print(
                f"| {config} | {name} | {r['wall']:.1f} | {r['first']:.1f} | {r['busy_wall']:.2f} "
                f"| {r['busy_span']:.2f} | {r['ratio']:.2f} | {r['requests']:.0f} | {versus} |"
            )
    if olmocr is None:
        print(f"\nSKIP olmocr: {why}")


if __name__ == "__main__":
    main()
