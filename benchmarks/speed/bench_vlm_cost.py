"""What the VLM path costs the client: pages/s and CPU-ms a page of `ocr-pipeline run --server`, beside olmocr.

The 227 born-digital pages of bench_first_request go through each system's whole command against the test
server in its own process (`python -m tests.support.vlm_server`): at the ceiling (many slots, 0.1 s a page: the
server is never the limit, so pages/s is the client's) and at the server bound (4 slots x 1 s: the client must
keep the server busy). CPU is the user + system time of the command and every process it waited for (the PDF
reader child, pdftoppm), read with getrusage(RUSAGE_CHILDREN) around it; the test server's own CPU is not in it.

    .venv/bin/python -m benchmarks.speed.bench_vlm_cost [--before ../before] [--rounds 2]
        [--olmocr-python PYTHON] [--setups 64x0.1 4x1]

`--before` is another checkout (e.g. `git worktree add ../before <commit>`), run with this interpreter and
PYTHONPATH pointing at it; rounds alternate the systems' order so machine load falls on all alike.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.speed.bench_first_request import (
    OLMOCR_PYTHONS,
    PAGE_COUNTS,
    build_corpus,
    olmocr_python,
    server_stats,
    start_server,
)
from benchmarks.speed.bench_first_request import write_answers as write_server_answers
from tests.support.builders.corpora import numbered_pdf


@dataclass(frozen=True)
class Setup:
    """One server: request slots and seconds each request holds one."""

    slots: int
    service_s: float

    @classmethod
    def parse(cls, text: str) -> Setup:
        """`64x0.1` -> 64 slots of 0.1 s."""
        slots, _, service = text.partition("x")
        return cls(int(slots), float(service))

    def bound(self, pages: int) -> float:
        """Seconds a perfectly fed server needs for `pages`."""
        return pages * self.service_s / self.slots


def children_cpu_s() -> float:
    """User + system seconds of every child this process has waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# olmocr's page images as its pipeline sends them (olmocr.data.renderpdf: pdftoppm), each page's server key.
OLMOCR_KEYS = """
import base64, hashlib, json, sys
from pathlib import Path
from pypdf import PdfReader
from olmocr.data.renderpdf import render_pdf_to_base64png
keys = {}
for pdf in sorted(Path(sys.argv[1]).glob("*.pdf")):
    for page in range(1, len(PdfReader(pdf).pages) + 1):
        png = base64.b64decode(render_pdf_to_base64png(str(pdf), page, target_longest_image_dim=1288))
        keys[f"{pdf.name}:{page}"] = hashlib.sha1(png).hexdigest()[:16]
print(json.dumps(keys))
"""


def add_olmocr_answers(olmocr: str, pdfs: Path, answers: Path) -> None:
    """Give olmocr's images the same right answers as ours, so both read the same replies.

    A page the server has no answer for gets unrelated words, and the first such page makes the server render
    the canary's pages (tests.support.canary_oracle), seconds of CPU inside whichever run met it.
    """
    script = "import json, sys; from ocr_pipeline.pdf.page_rows import document_pages; from pathlib import Path; "
    script += "print(json.dumps({f'{p.name}:{r[\"page_num\"]}': ' '.join(r['text_layer'].split()) "
    script += "for p in sorted(Path(sys.argv[1]).glob('*.pdf')) for r in document_pages('pdf', str(p), 1288)}))"
    words = json.loads(subprocess.run([sys.executable, "-c", script, str(pdfs)], capture_output=True, text=True,
                                      check=True).stdout)  # fmt: skip
    keys = json.loads(subprocess.run([olmocr, "-c", OLMOCR_KEYS, str(pdfs)], capture_output=True, text=True,
                                     check=True).stdout)  # fmt: skip
    known = json.loads(answers.read_text())
    answers.write_text(json.dumps({**known, **{key: words[page] for page, key in keys.items() if words[page]}}))


def add_answers_of(checkout: Path, pdfs: Path, answers: Path) -> None:
    """Add the right answers keyed by the page images another checkout renders (its PNG bytes may differ)."""
    script = "import json, sys; from tests.support.oracle import right_answers; "
    script += "print(json.dumps(right_answers(sys.argv[1], key_by_bytes=True)))"
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    out = subprocess.run([sys.executable, "-c", script, str(pdfs)], env=env, cwd=checkout, capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    answers.write_text(json.dumps({**json.loads(answers.read_text()), **json.loads(out)}))


@dataclass(frozen=True)
class Command:
    """One system's command line (`{URL}` stands for the server), extra environment and working directory."""

    argv: list[str]
    env: dict[str, str]
    cwd: Path | None = None


def commands(pdfs: Path, work: Path, before: Path | None, olmocr: str | None) -> dict[str, Command]:
    """Each system's command."""
    pdf_files = [str(p) for p in sorted(pdfs.glob("*.pdf"))]

    def ours(name: str) -> list[str]:
        # -m, not the console script: a --before checkout on PYTHONPATH must win over this venv's editable install.
        return [sys.executable, "-m", "ocr_pipeline.cli", "run", str(work / name), "--pdfs", str(pdfs),
                "--server", "{URL}", "--quiet"]  # fmt: skip

    runs = {"after": Command(ours("after"), {})}
    if before is not None:
        # Run from the checkout too: `-m` puts the working directory first on sys.path, before PYTHONPATH.
        runs["before"] = Command(ours("before"), {"PYTHONPATH": str(before)}, before)
    if olmocr:
        theirs = [olmocr, "-m", "olmocr.pipeline", str(work / "olmocr"), "--pdfs", *pdf_files]
        runs["olmocr"] = Command(theirs + ["--server", "{URL}/v1", "--model", "olmocr"], {})
    return runs


def timed(command: Command, setup: Setup, answers: Path, pages: int, log: Path) -> dict[str, float]:
    """One command against a fresh server: wall seconds, CPU seconds, the server's busy share."""
    server, url = start_server(setup.slots, setup.service_s, answers)
    try:
        cmd = [part.replace("{URL}", url) for part in command.argv]
        cpu, started = children_cpu_s(), time.time()
        with log.open("wb") as out:
            env = {**os.environ, **command.env}
            rc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=command.cwd, check=False)
        wall, cpu = time.time() - started, children_cpu_s() - cpu  # before the server is waited for
        stats = server_stats(url)
    finally:
        server.terminate()
        server.wait(10)
    span = (stats["last_reply_at"] or started) - (stats["first_request_at"] or started)
    if rc.returncode != 0:
        raise RuntimeError(f"{cmd[:4]} exited {rc.returncode}; see {log}")
    return {
        "wall": wall,
        "cpu_ms": 1000 * cpu / pages,
        "pages_s": pages / wall,
        "busy": stats["busy_slot_s"] / setup.slots / wall,
        "busy_span": stats["busy_slot_s"] / setup.slots / max(span, 1e-9),
        # Seconds before the first request and after the last reply: the command's start-up and wind-down.
        "first": (stats["first_request_at"] or started) - started,
        "tail": started + wall - (stats["last_reply_at"] or started),
        "ratio": wall / setup.bound(pages),
        "requests": stats["completed"],
    }


def main() -> None:
    """Run every system on every setup `--rounds` times and print one Markdown table."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--setups", nargs="+", default=["64x0.1", "4x1"], help="slots x service seconds")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--before", type=Path, default=None, help="another checkout to run beside this one")
    p.add_argument("--olmocr-python", action="append", default=None, help="interpreter with olmocr installed")
    p.add_argument("--no-olmocr", action="store_true")
    p.add_argument("--json", type=Path, default=None, help="also write every run's figures here")
    p.add_argument("--copies", type=int, default=1, help="the corpus this many times over (start-up costs amortised)")
    args = p.parse_args()

    olmocr, why = (None, "--no-olmocr") if args.no_olmocr else olmocr_python(args.olmocr_python or list(OLMOCR_PYTHONS))
    results: dict[tuple[str, str], list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-vlm-cost-") as tmp:
        pdfs = Path(tmp) / "pdfs"
        pages = build_corpus(pdfs)
        for copy in range(1, args.copies):
            # Another copy of each PDF, its words (so its bytes) its own: the inventory keeps exact copies out.
            for i, n in enumerate(PAGE_COUNTS):
                (pdfs / f"copy{copy}_doc{i:02d}_{n}p.pdf").write_bytes(numbered_pdf(f"copy{copy} doc{i:02d}", n))
            pages += sum(PAGE_COUNTS)
        answers = write_server_answers(pdfs, Path(tmp) / "answers.json")
        if args.before is not None:
            add_answers_of(args.before, pdfs, answers)
        if olmocr:
            add_olmocr_answers(olmocr, pdfs, answers)
        for rnd in range(args.rounds):
            for text in args.setups:
                setup = Setup.parse(text)
                work = Path(tmp) / f"r{rnd}-{text}"
                runs = list(commands(pdfs, work, args.before, olmocr).items())
                for name, command in runs[rnd % len(runs) :] + runs[: rnd % len(runs)]:
                    log = Path(tmp) / f"{name}-{text}-{rnd}.log"
                    try:
                        figures = timed(command, setup, answers, pages, log)
                    except RuntimeError:
                        sys.stderr.write(log.read_text(errors="replace")[-3000:])
                        raise
                    results.setdefault((text, name), []).append(figures)
                    print(f"round {rnd} {text} {name}: {json.dumps({k: round(v, 3) for k, v in figures.items()})}",
                          file=sys.stderr, flush=True)  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps({f"{s} {n}": r for (s, n), r in results.items()}, indent=1))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\n{pages} born-digital pages ({13 * args.copies} PDFs); {os.cpu_count()} cores, load {load} at the end\n")
    print("| server | system | wall (s) | first request (s) | after last reply (s) | pages/s | CPU-ms a page "
          "| busy (of wall) | busy (first request to last reply) | wall / bound | pages/s vs olmocr "
          "| CPU vs olmocr |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (text, name), runs_of in results.items():
        theirs = results.get((text, "olmocr"))
        for i, r in enumerate(runs_of):
            versus = cpu_versus = "-"
            if theirs and name != "olmocr":
                versus = f"{r['pages_s'] / theirs[i]['pages_s']:.2f}x"
                cpu_versus = f"{r['cpu_ms'] / theirs[i]['cpu_ms']:.2f}x"
            setup = Setup.parse(text)
            print(f"| {setup.slots} x {setup.service_s:g} s | {name} | {r['wall']:.1f} | {r['first']:.1f} "
                  f"| {r['tail']:.1f} | {r['pages_s']:.1f} "
                  f"| {r['cpu_ms']:.0f} | {r['busy']:.2f} | {r['busy_span']:.2f} | {r['ratio']:.2f} | {versus} "
                  f"| {cpu_versus} |")  # fmt: skip
    if olmocr is None:
        print(f"\nSKIP olmocr: {why}")


if __name__ == "__main__":
    main()
