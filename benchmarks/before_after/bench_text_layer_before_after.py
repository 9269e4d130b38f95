"""Born-digital page time, an earlier checkout against this one, side by side in one run on the real sets.

    git worktree add ../before <commit>
    .venv/bin/python -m benchmarks.before_after.bench_text_layer_before_after --before ../before \
        [--sets ...] [--rounds 2]

Each checkout's `document_pages` (text layer, furniture, reading order, render, PNG: all a trusted page costs
before the CPU engine takes its text as is) runs in a child process of its own; the children are asked for the same
PDF one after the other, in alternating order, so machine load falls on both alike. Pages the current checkout does
not trust (they go to OCR) are left out of both columns.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks.common.tools import REPO
from tests.support.shared_data import HISTORY

SETS = ["headers_footers", "multi_columns", "long_tiny_text"]

# The child: one PDF path per line in, one JSON line out (seconds and trust of each page).
CHILD = """
import json, sys, time
from ocr_pipeline.pdf.page_rows import document_pages
for line in sys.stdin:
    start, pages = time.perf_counter(), []
    for row in document_pages("pdf", line.strip(), 1288):
        now = time.perf_counter()
        pages.append([now - start, bool(row["text_layer_trusted"])])
        start = now
    print(json.dumps(pages), flush=True)
"""


class Checkout:
    """A long-lived child process that times page rows with one checkout's code."""

    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", CHILD],
            cwd=root,
            env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def time(self, pdf: Path) -> list[tuple[float, bool]]:
        """Seconds and trust verdict of each page of `pdf`."""
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(f"{pdf}\n")
        self.proc.stdin.flush()
        return [(float(s), bool(t)) for s, t in json.loads(self.proc.stdout.readline())]

    def close(self) -> None:
        """End the child."""
        assert self.proc.stdin
        self.proc.stdin.close()
        self.proc.wait()


def main() -> None:
    """Time both checkouts on each set and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="root of the earlier checkout")
    parser.add_argument("--sets", nargs="+", default=SETS)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    before, after = Checkout(args.before.resolve()), Checkout(REPO)
    print("| set | trusted pages | before s/page | after s/page | after / before |")
    print("|---|---:|---:|---:|---:|")
    for name in args.sets:
        times: dict[str, list[float]] = {"before": [], "after": []}
        for round_ in range(args.rounds):
            for k, pdf in enumerate(sorted((HISTORY / name / "pdfs").glob("*.pdf"))):
                order = [("before", before), ("after", after)]
                if (k + round_) % 2:
                    order.reverse()
                got = {label: child.time(pdf) for label, child in order}
                for b, a in zip(got["before"], got["after"], strict=False):
                    if a[1]:  # a page this checkout trusts: read from its text layer, never OCR'd
                        times["before"].append(b[0])
                        times["after"].append(a[0])
        n = len(times["after"]) // args.rounds
        mean_b, mean_a = statistics.fmean(times["before"] or [0]), statistics.fmean(times["after"] or [0])
        ratio = mean_a / mean_b if mean_b else float("nan")
        print(f"| {name} | {n} | {mean_b:.3f} | {mean_a:.3f} | {ratio:.2f} |", flush=True)
    before.close()
    after.close()


if __name__ == "__main__":
    main()
