"""The PDF sandbox's child (`python -m ocr_pipeline.pdf.sandbox.child`): one JSON request per line in, replies out.

Probe and filter get one reply each. A render gets a `{"batch": <file>}` line after each ROWS_PER_BATCH pages
written to a Parquet file of their own, then `{"ok": true}`; any request can end in `{"error": ...}` instead. A
render's options (`text`, `pages`, `images`) are document_pages' own. With `--memory-mb N` the child caps its
memory (sandbox_memory.py); a request that runs past it is answered
`{"error": ..., "reason": "memory_exceeded", "page": N}` and the child ends.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
import pyarrow.parquet as pq

from ocr_pipeline.pdf.filters import check_pdf
from ocr_pipeline.pdf.page_rows import PAGE_SCHEMA, document_pages
from ocr_pipeline.pdf.probe import open_pdf, probe_path
from ocr_pipeline.pdf.sandbox import memory as sandbox_memory
from ocr_pipeline.pdf.sandbox.parent import ROWS_PER_BATCH, batch_path
from ocr_pipeline.runtime.heap import return_freed_memory

# What a render request may ask of document_pages besides the input and the image size.
RENDER_OPTIONS = ("text", "pages", "images")
# Error messages are cut to this: the parent refuses reply lines past its own, larger limit.
MAX_ERROR_CHARS = 4000

Send = Callable[[dict[str, Any]], None]


def write_batch(out: str, number: int, rows: list[dict[str, Any]]) -> str:
    """Write one batch of page rows to its own Parquet file; returns the file's path."""
    path = batch_path(out, number)
    pq.write_table(pa.Table.from_pylist(rows, schema=PAGE_SCHEMA), path)
    return path


class PageMemoryError(MemoryError):
    """Memory ran out while a render read `page` (None: before its first page)."""

    def __init__(self, page: int | None) -> None:
        super().__init__(f"out of memory on page {page}")
        self.page = page


def render_batches(kind: str, path: str, target_dim: int, out: str, send: Send, **options: Any) -> None:
    """Render every page of one input, ROWS_PER_BATCH rows a file, announcing each file once it is complete."""
    reading: list[int] = []  # the page being read, also marked on disk for the parent should pdfium abort on it

    def on_page(page: int) -> None:
        reading[:] = [page]
        sandbox_memory.mark_page(out, page)

    try:
        _write_batches(document_pages(kind, path, target_dim, on_page=on_page, **options), out, send)
    except MemoryError as exc:
        raise PageMemoryError(reading[0] if reading else None) from exc


def _write_batches(rows: Iterator[dict[str, Any]], out: str, send: Send) -> None:
    batch: list[dict[str, Any]] = []
    number = 0
    for row in rows:
        batch.append(row)
        if len(batch) >= ROWS_PER_BATCH:
            send({"batch": write_batch(out, number, batch)})
            batch, number = [], number + 1
            return_freed_memory()  # a long document's batches, one after another (runtime/heap.py)
    if batch:
        send({"batch": write_batch(out, number, batch)})


def _answer(request: dict[str, Any], send: Send) -> dict[str, Any]:
    """Carry out one request in the child; returns its last reply (a render sends its batches on the way)."""
    op = request["op"]
    if op == "render":
        options = {name: request[name] for name in RENDER_OPTIONS if name in request}
        render_batches(request["kind"], request["path"], request["target_dim"], request["out"], send, **options)
        return {"ok": True}
    if op == "probe":
        return {"facts": asdict(probe_path(request["kind"], request["path"]))}
    if op == "filter":
        doc = open_pdf(Path(request["path"]))
        try:
            return {"decision": asdict(check_pdf(doc))}
        finally:
            doc.close()
    raise ValueError(f"unknown request {op!r}")


def serve(requests: IO[str], replies: IO[str]) -> None:
    """The child's loop: one JSON request per line in, its reply lines out, each flushed at once."""

    def send(reply: dict[str, Any]) -> None:
        replies.write(json.dumps(reply) + "\n")
        replies.flush()

    for line in requests:
        try:
            reply = _answer(json.loads(line), send)
        except MemoryError as exc:
            # Past the cap: the request's memory is freed by now, enough to say so; a process that has run out of
            # memory once is not trusted with the next input, so the child ends (the parent starts another).
            send({"error": "MemoryError", "reason": sandbox_memory.REASON, "page": getattr(exc, "page", None)})
            return
        except Exception as exc:  # noqa: BLE001 - the parent records it against this input
            reply = {"error": f"{type(exc).__name__}: {exc}"[:MAX_ERROR_CHARS]}
        send(reply)
        # A document's pages, images and text are freed by now: glibc would keep the holes (runtime/heap.py).
        return_freed_memory()


def protocol_stream() -> IO[str]:
    """The replies' own copy of stdout; fd 1 then points at stderr, so whatever C code prints can't corrupt them."""
    protocol = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    return protocol


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="the PDF sandbox's child")
    parser.add_argument("--memory-mb", type=int, default=0, help="cap this process's memory (MiB, 0: none)")
    sandbox_memory.apply_cap(parser.parse_args().memory_mb)
    # A terminal's Ctrl-C reaches the whole process group: the parent decides what stops (and reports it once);
    # this child ends when the parent closes its input or dies.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    serve(sys.stdin, protocol_stream())
