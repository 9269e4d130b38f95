"""VLM engine throughput and memory: pages/s as a fraction of a capacity-limited fake server, and peak RSS.

The fake server runs in its own process (`python -m tests.support.vlm_server`) with N request slots and a
fixed service time, so its capacity is exactly N / service_time pages/s. This process queues every page through
`VlmEngine.run_pages` with one just-in-time factory per page that draws a fresh 1288 px PNG with PIL.

    .venv/bin/python -m benchmarks.speed.bench_vlm_throughput --pages 2000 --capacity 16 --service-time 0.5
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import socket
import subprocess
import sys
import time

from ocr_pipeline.engines.vlm import VlmEngine, wait_for_server
from ocr_pipeline.records import PageInput, PageResult
from tests.support.pages import page_input


def rss_mib() -> float:
    """Current resident set size of this process in MiB (from /proc, no psutil needed)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_rss_mib() -> float:
    """Peak resident set size of this process in MiB (ru_maxrss is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def free_port() -> int:
    """An unused TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def run_once(url: str, pages: int, max_concurrent: int, lines: int) -> dict[str, float]:
    """Queue `pages` factories through run_pages; return throughput and memory figures."""
    done = 0
    fallbacks = 0
    samples: list[float] = []
    step = max(1, pages // 8)

    def factory(i: int) -> PageInput:
        # Rendering happens here, in a worker thread, only when the engine has a slot for the page.
        return page_input(i, lines=lines)

    def on_result(result: PageResult) -> None:
        nonlocal done, fallbacks
        done += 1
        fallbacks += result.is_fallback
        if done % step == 0:
            samples.append(rss_mib())

    engine = VlmEngine(url, "olmocr", max_concurrent_requests=max_concurrent)
    start = time.monotonic()
    async with engine:
        await engine.run_pages((lambda i=i: factory(i) for i in range(pages)), on_result)
    wall = time.monotonic() - start
    return {
        "pages": done,
        "fallbacks": fallbacks,
        "wall_s": wall,
        "pages_per_s": done / wall,
        "rss_samples": samples,  # type: ignore[dict-item]  # the one list among the numbers
    }


def main() -> None:
    """Run the benchmark for each service time and print a table."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pages", type=int, default=2000)
    p.add_argument("--capacity", type=int, default=16)
    p.add_argument("--service-time", type=float, nargs="+", default=[1.0, 0.5])
    p.add_argument("--max-concurrent-requests", type=int, default=64)
    p.add_argument("--lines", type=int, default=30, help="text lines drawn per page (rendering cost)")
    args = p.parse_args()

    rows = []
    for service_time in args.service_time:
        port = free_port()
        cmd = [sys.executable, "-m", "tests.support.vlm_server", "--port", str(port)]
        cmd += ["--capacity", str(args.capacity), "--service-time", str(service_time), "--key-by-bytes"]
        server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
        try:
            url = f"http://127.0.0.1:{port}"
            asyncio.run(wait_for_server(url, 30))
            res = asyncio.run(run_once(url, args.pages, args.max_concurrent_requests, args.lines))
        finally:
            server.terminate()
            server.wait(10)
        capacity = args.capacity / service_time
        rows.append((service_time, capacity, res))

    print(
        f"\n{args.pages} pages, server capacity {args.capacity} slots, client max_concurrent_requests "
        f"{args.max_concurrent_requests}, {os.cpu_count()} CPUs\n"
    )
    print(
        "| service time (s) | capacity (pages/s) | achieved (pages/s) | fraction | fallbacks | wall (s) "
        "| RSS over the run (MiB) | peak RSS (MiB) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for service_time, capacity, res in rows:
        samples = ", ".join(f"{s:.0f}" for s in res["rss_samples"])  # type: ignore[union-attr]  # the list stored above
        print(
            f"| {service_time:g} | {capacity:.1f} | {res['pages_per_s']:.1f} | {res['pages_per_s'] / capacity:.3f} "
            f"| {res['fallbacks']:.0f} | {res['wall_s']:.1f} | {samples} | {peak_rss_mib():.0f} |"
        )


if __name__ == "__main__":
    main()
