"""Untrusted PDFs are read in a child process: a hang is cut off at its time limit, a crash stays in the child.

pdfium is C code fed untrusted bytes: a hostile PDF can loop for hours or crash the process. A PdfSandbox
keeps one child (`python -m ocr_pipeline.pdf.sandbox`) for a whole scan or group and sends it one request at
a time (probe, filter or render); a child that hangs is killed and the next request gets a new one.
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
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
import pyarrow.parquet as pq

from ocr_pipeline.pdf.filters import check_pdf
from ocr_pipeline.pdf.page_rows import PAGE_SCHEMA, document_pages
from ocr_pipeline.pdf.probe import open_pdf, probe_path

# A document gets this long to render: a fixed allowance plus a per-page one (pages are known from the probe).
BASE_SECONDS = 60.0
SECONDS_PER_PAGE = 10.0
# Probing and filtering read a few pages only.
QUICK_SECONDS = 60.0
ROWS_PER_BATCH = 8


class SandboxAborted(Exception):
    """The child did not answer: `reason` is <op>_timeout, <op>_crashed or <op>_failed (op: render, probe...)."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


def time_limit(page_count: int) -> float:
    """Seconds one document may take to render."""
    return BASE_SECONDS + SECONDS_PER_PAGE * max(page_count, 1)


def render_to_file(kind: str, path: str, target_dim: int, out: str) -> None:
    """Render every page of one input into `out` (Parquet), a few rows at a time."""
    with pq.ParquetWriter(out, PAGE_SCHEMA) as writer:
        batch: list[dict[str, Any]] = []
        for row in document_pages(kind, path, target_dim):
            batch.append(row)
            if len(batch) >= ROWS_PER_BATCH:
                writer.write_table(pa.Table.from_pylist(batch, schema=PAGE_SCHEMA))
                batch = []
        if batch:
            writer.write_table(pa.Table.from_pylist(batch, schema=PAGE_SCHEMA))


class PdfSandbox:
    """One child for many requests; each method returns the child's answer or raises SandboxAborted."""

    def __init__(self, command: list[str] | None = None) -> None:
        self.command = command or [sys.executable, "-m", "ocr_pipeline.pdf.sandbox"]
        self._proc: subprocess.Popen[bytes] | None = None
        self._tmp = tempfile.TemporaryDirectory(prefix="ocr-sandbox-")

    def _child(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        return self._proc

    def _discard(self) -> int | None:
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        if proc.poll() is None:
            proc.kill()
        return proc.wait()

    def request(self, op: str, timeout_s: float, **payload: Any) -> dict[str, Any]:
        """Send one request and wait at most `timeout_s` for its reply."""
        proc = self._child()
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write((json.dumps({"op": op, **payload}) + "\n").encode())
            proc.stdin.flush()
        except BrokenPipeError:
            raise SandboxAborted(f"{op}_crashed", f"the PDF reader died (exit code {self._discard()})") from None
        ready, _, _ = select.select([proc.stdout], [], [], timeout_s)
        if not ready:
            self._discard()
            raise SandboxAborted(f"{op}_timeout", f"no answer within {timeout_s:.0f}s")
        line = proc.stdout.readline()
        if not line:
            raise SandboxAborted(f"{op}_crashed", f"the PDF reader died (exit code {self._discard()})")
        reply: dict[str, Any] = json.loads(line)
        if reply.get("error"):
            raise SandboxAborted(f"{op}_failed", reply["error"])
        return reply

    def render(self, kind: str, path: str, target_dim: int, timeout_s: float) -> Iterator[dict[str, Any]]:
        """Page rows of one input, rendered by the child within `timeout_s`."""
        out = str(Path(self._tmp.name) / "pages.parquet")
        self.request("render", timeout_s, kind=kind, path=path, target_dim=target_dim, out=out)
        for batch in pq.ParquetFile(out).iter_batches(batch_size=ROWS_PER_BATCH):
            yield from batch.to_pylist()

    def probe(self, kind: str, path: str) -> dict[str, Any]:
        """Size, hash and page count of one input (ocr_pipeline.pdf.input_facts.probe_path, in the child)."""
        return self.request("probe", QUICK_SECONDS, kind=kind, path=path)["facts"]

    def filter(self, path: str) -> dict[str, Any]:
        """olmOCR's filters on one PDF (ocr_pipeline.pdf.filters.check_pdf, in the child)."""
        return self.request("filter", QUICK_SECONDS, path=path)["decision"]

    def close(self) -> None:
        """Stop the child and remove its scratch files."""
        if self._proc is not None and self._proc.poll() is None and self._proc.stdin is not None:
            self._proc.stdin.close()  # the child ends at end of input
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(10)
        self._discard()
        self._tmp.cleanup()

    def __enter__(self) -> PdfSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _answer(request: dict[str, Any]) -> dict[str, Any]:
    """Carry out one request in the child."""
    op = request["op"]
    if op == "render":
        render_to_file(request["kind"], request["path"], request["target_dim"], request["out"])
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


def _serve(requests: IO[str], replies: IO[str]) -> None:
    """The child's loop: one JSON request per line in, one JSON reply per line out."""
    for line in requests:
        try:
            reply = _answer(json.loads(line))
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
