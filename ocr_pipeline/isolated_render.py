"""Rendering in a child process: a hang is cut off at its time limit, a crash stays in the child.

pdfium is C code fed untrusted bytes: a hostile PDF can loop for hours or crash the process. A RenderWorker
keeps one child (`python -m ocr_pipeline.isolated_render`) for a whole group, sends it one input at a time,
and reads back what it wrote, page by page; a child that hangs is killed and the next input gets a new one.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
import pyarrow.parquet as pq

PAGE_SCHEMA = pa.schema(
    [
        ("page_num", pa.int32()),
        ("png", pa.binary()),
        ("width", pa.int32()),
        ("height", pa.int32()),
        ("text_layer", pa.string()),
        ("text_layer_trusted", pa.bool_()),
        ("render_error", pa.string()),
    ]
)
# A document gets this long to render: a fixed allowance plus a per-page one (pages are known from the probe).
BASE_SECONDS = 60.0
SECONDS_PER_PAGE = 10.0
ROWS_PER_BATCH = 8


class RenderAborted(Exception):
    """The child did not render the input: `reason` is render_timeout, render_crashed or render_failed."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


def time_limit(page_count: int) -> float:
    """Seconds one document may take to render."""
    return BASE_SECONDS + SECONDS_PER_PAGE * max(page_count, 1)


def render_to_file(kind: str, path: str, target_dim: int, out: str) -> None:
    """Render every page of one input into `out` (Parquet), a few rows at a time."""
    from ocr_pipeline.stages.rendering import document_pages

    with pq.ParquetWriter(out, PAGE_SCHEMA) as writer:
        batch: list[dict[str, Any]] = []
        for row in document_pages(kind, path, target_dim):
            batch.append(row)
            if len(batch) >= ROWS_PER_BATCH:
                writer.write_table(pa.Table.from_pylist(batch, schema=PAGE_SCHEMA))
                batch = []
        if batch:
            writer.write_table(pa.Table.from_pylist(batch, schema=PAGE_SCHEMA))


class RenderWorker:
    """One renderer child for many inputs; `render()` yields page rows or raises RenderAborted."""

    def __init__(self, command: list[str] | None = None) -> None:
        self.command = command or [sys.executable, "-m", "ocr_pipeline.isolated_render"]
        self._proc: subprocess.Popen[bytes] | None = None
        self._tmp = tempfile.TemporaryDirectory(prefix="ocr-render-")

    def _child(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        return self._proc

    def _discard(self) -> int | None:
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            return proc.returncode
        return None

    def render(self, kind: str, path: str, target_dim: int, timeout_s: float) -> Iterator[dict[str, Any]]:
        """Page rows of one input, rendered by the child within `timeout_s`."""
        proc = self._child()
        assert proc.stdin is not None and proc.stdout is not None
        out = str(Path(self._tmp.name) / "pages.parquet")
        request = {"kind": kind, "path": path, "target_dim": target_dim, "out": out}
        try:
            proc.stdin.write((json.dumps(request) + "\n").encode())
            proc.stdin.flush()
        except BrokenPipeError:
            raise RenderAborted("render_crashed", f"the renderer died (exit code {self._discard()})") from None
        ready, _, _ = select.select([proc.stdout], [], [], timeout_s)
        if not ready:
            self._discard()
            raise RenderAborted("render_timeout", f"not rendered within {timeout_s:.0f}s")
        line = proc.stdout.readline()
        if not line:
            raise RenderAborted("render_crashed", f"the renderer died (exit code {self._discard()})")
        reply = json.loads(line)
        if reply.get("error"):
            raise RenderAborted("render_failed", reply["error"])
        for batch in pq.ParquetFile(out).iter_batches(batch_size=ROWS_PER_BATCH):
            yield from batch.to_pylist()

    def close(self) -> None:
        """Stop the child and remove its scratch files."""
        if self._proc is not None and self._proc.poll() is None and self._proc.stdin is not None:
            self._proc.stdin.close()  # the child ends at end of input
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(10)
        self._discard()
        self._tmp.cleanup()

    def __enter__(self) -> RenderWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _serve(requests: IO[str], replies: IO[str]) -> None:
    """The child's loop: one JSON request per line in, one JSON reply per line out."""
    for line in requests:
        request = json.loads(line)
        try:
            render_to_file(request["kind"], request["path"], request["target_dim"], request["out"])
            reply: dict[str, Any] = {"ok": True}
        except Exception as exc:  # noqa: BLE001 - the parent records it against this input
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


if __name__ == "__main__":
    # Replies get their own copy of stdout; fd 1 then points at stderr, so whatever C code prints
    # can never corrupt the protocol.
    protocol = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    _serve(sys.stdin, protocol)
