"""Untrusted PDFs are read in a child process: a hang is cut off at its time limit, a crash stays in the child.

pdfium is C code fed untrusted bytes: a hostile PDF can loop for hours or crash the process. A PdfSandbox
keeps one child (`python -m ocr_pipeline.pdf.sandbox.child`) for a whole scan or group and sends it one
request at a time (probe, filter or render); a child that hangs is killed and the next request gets a new one.
A render streams: the child writes the pages a few at a time, each batch to its own Parquet file, and says so
on a line of its own, so the first pages of a long document leave the sandbox while the rest still render.
The child's memory is capped (sandbox_memory.py): a document past the cap is `memory_exceeded`, with its page.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ocr_pipeline.pdf.sandbox import memory as sandbox_memory
from ocr_pipeline.pdf.sandbox.spares import keep_spare, prestart, start_child, stop, take_spare
from ocr_pipeline.settings import DEFAULT_PDF_MEMORY_MB

# A document gets this long to render: a fixed allowance plus a per-page one (pages are known from the probe).
BASE_SECONDS = 60.0
SECONDS_PER_PAGE = 10.0
# Probing and filtering read a few pages only.
QUICK_SECONDS = 60.0
ROWS_PER_BATCH = 8
# Replies are small JSON objects (a batch file's name, an error cut short): a longer line is a broken child.
MAX_REPLY_BYTES = 64 * 1024


class SandboxAborted(Exception):
    """The child did not answer: `reason` is <op>_timeout, <op>_crashed or <op>_failed (op: render, probe...), or
    memory_exceeded (the input took the child past its memory cap)."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


def time_limit(page_count: int) -> float:
    """Seconds one document may take to render."""
    return BASE_SECONDS + SECONDS_PER_PAGE * max(page_count, 1)


def batch_path(out: str, number: int) -> str:
    """Where the child writes batch `number` (from 0) of the render whose files start with `out`."""
    return f"{out}-{number:06d}.parquet"


def prestart_reader(memory_mb: int = DEFAULT_PDF_MEMORY_MB) -> None:
    """Start a reader child now, for the first sandbox of this process to take (see sandbox_spares)."""
    prestart(default_command(memory_mb))


def default_command(memory_mb: int = DEFAULT_PDF_MEMORY_MB) -> list[str]:
    """The reader child's command line, its memory cap in MiB on it (0: none)."""
    return [sys.executable, "-m", "ocr_pipeline.pdf.sandbox.child", "--memory-mb", str(memory_mb)]


class PdfSandbox:
    """One child for many requests; each method returns the child's answer or raises SandboxAborted.

    `memory_mb` caps the default child's memory (DEFAULT_PDF_MEMORY_MB when None); with a `command` of its own,
    it says what that child was capped at (none when None)."""

    def __init__(self, command: list[str] | None = None, memory_mb: int | None = None) -> None:
        self.memory_mb = memory_mb if memory_mb is not None else 0 if command else DEFAULT_PDF_MEMORY_MB
        self.command = command or default_command(self.memory_mb)
        # The render whose files start with this (its child marks the page it reads there), while one runs.
        self._out: str | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        # Bytes the child sent past the last whole line (several batch lines can arrive in one read).
        self._pending = b""
        # The child a render generator is still reading from: until its final line, no other request may use it.
        self._rendering: subprocess.Popen[bytes] | None = None
        self._renders = 0
        self._tmp = tempfile.TemporaryDirectory(prefix="ocr-sandbox-")

    def _child(self) -> subprocess.Popen[bytes]:
        if self._rendering is not None:
            # A render left unfinished (its generator not closed yet): the child may still be sending its
            # batch lines, which would pass for the answer to this request.
            self._discard(self._rendering)
        if self._proc is None or self._proc.poll() is not None:
            self._discard()
            self._proc = take_spare(self.command) or start_child(self.command)
        return self._proc

    def _discard(self, proc: subprocess.Popen[bytes] | None = None) -> int | None:
        """Kill `proc` (the current child by default) and forget it; returns its exit code."""
        proc = proc or self._proc
        if proc is None:
            return None
        if proc is self._proc:
            self._proc, self._pending = None, b""
        if proc is self._rendering:
            self._rendering = None
        if proc.poll() is None:
            proc.kill()
        code = proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):  # a dead child's stdin may fail to flush
                    pipe.close()
        return code

    def _send(self, op: str, payload: dict[str, Any]) -> subprocess.Popen[bytes]:
        proc = self._child()
        assert proc.stdin is not None
        try:
            proc.stdin.write((json.dumps({"op": op, **payload}) + "\n").encode())
            proc.stdin.flush()
        except BrokenPipeError:
            raise self._died(proc, op) from None
        return proc

    def _died(self, proc: subprocess.Popen[bytes], op: str) -> SandboxAborted:
        """What the child's death means: past its memory cap (and on which page), or a crash."""
        code = self._discard(proc)
        if sandbox_memory.died_of_memory(code, self.memory_mb):
            page = sandbox_memory.marked_page(self._out) if self._out else None
            return SandboxAborted(sandbox_memory.REASON, sandbox_memory.detail(self.memory_mb, page))
        return SandboxAborted(f"{op}_crashed", f"the PDF reader died (exit code {code})")

    def _refused(self, proc: subprocess.Popen[bytes], op: str, reply: dict[str, Any]) -> SandboxAborted:
        """The child's error reply as SandboxAborted; one past its memory cap ends the child (it ends itself too)."""
        if reply.get("reason") == sandbox_memory.REASON:
            self._discard(proc)
            page = reply.get("page")
            return SandboxAborted(sandbox_memory.REASON, sandbox_memory.detail(self.memory_mb, page))
        return SandboxAborted(f"{op}_failed", str(reply["error"]))

    def _broken(self, proc: subprocess.Popen[bytes], op: str, detail: str) -> SandboxAborted:
        # The child said something outside the protocol: nothing it sends next can be trusted to line up.
        self._discard(proc)
        return SandboxAborted(f"{op}_failed", f"the PDF reader broke its protocol: {detail}")

    def _line(self, proc: subprocess.Popen[bytes], op: str, deadline: float, timeout_s: float) -> bytes:
        """The child's next reply line, read by the deadline and never past MAX_REPLY_BYTES."""
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        while b"\n" not in self._pending[: MAX_REPLY_BYTES + 1]:
            if len(self._pending) > MAX_REPLY_BYTES:
                raise self._broken(proc, op, f"a reply line over {MAX_REPLY_BYTES} bytes")
            remaining = deadline - time.monotonic()
            # Raw reads, not readline(): a child that sends half a line and hangs must still time out.
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                self._discard(proc)
                raise SandboxAborted(f"{op}_timeout", f"no answer within {timeout_s:.0f}s")
            chunk = os.read(fd, MAX_REPLY_BYTES)
            if not chunk:
                raise self._died(proc, op)
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return line

    def _reply(self, proc: subprocess.Popen[bytes], op: str, deadline: float, timeout_s: float) -> dict[str, Any]:
        line = self._line(proc, op, deadline, timeout_s)
        try:
            reply = json.loads(line)
        except ValueError:
            reply = None
        if not isinstance(reply, dict):
            raise self._broken(proc, op, f"not a JSON object: {line[:200]!r}")
        return reply

    def request(self, op: str, timeout_s: float, **payload: Any) -> dict[str, Any]:
        """Send one request and wait at most `timeout_s` for its reply."""
        proc = self._send(op, payload)
        reply = self._reply(proc, op, time.monotonic() + timeout_s, timeout_s)
        if reply.get("error"):
            raise self._refused(proc, op, reply)
        return reply

    def render(
        self,
        kind: str,
        path: str,
        target_dim: int,
        timeout_s: float,
        *,
        text: str | None = None,
        pages: Sequence[int] | None = None,
        images: bool = True,
    ) -> Iterator[dict[str, Any]]:
        """Page rows of one input in page order, each batch as soon as the child wrote it; all within `timeout_s`.

        `text`, `pages` and `images` are document_pages' options (the kind of text layer, which pages, whether
        to render them); by default every page, rendered, with the full layout.
        Raises SandboxAborted, possibly after some rows, when the child hangs, dies or fails on the input. The
        deadline is one for the whole input, from the first row asked for: time the caller spends between rows
        counts too (the child renders on meanwhile).
        """
        self._renders += 1
        out = str(Path(self._tmp.name) / f"render-{self._renders}")
        deadline = time.monotonic() + timeout_s
        payload: dict[str, Any] = {"kind": kind, "path": path, "target_dim": target_dim, "out": out}
        if text is not None:
            payload["text"] = text
        if pages is not None:
            payload["pages"] = sorted({int(p) for p in pages})
        if not images:
            payload["images"] = False
        self._out = out
        proc = self._send("render", payload)
        self._rendering = proc
        # The page numbers the rows must bring, in order (a subset may end early: pages past the document's end).
        expected: Iterator[int] = iter(payload["pages"]) if pages is not None else itertools.count(1)
        try:
            # Each batch line brings the next pages, one at least (checked): the lines read are bounded by the
            # document's pages, as well as by the deadline.
            for number in itertools.count():
                if self._rendering is not proc:
                    raise SandboxAborted("render_failed", "another request took over the PDF reader mid-render")
                reply = self._reply(proc, "render", deadline, timeout_s)
                if reply.get("error"):
                    self._rendering = None  # the child finished the request: it stays, in step
                    raise self._refused(proc, "render", reply)
                if reply.get("ok") is True:
                    self._rendering = None
                    return
                if reply.get("batch") != batch_path(out, number):
                    raise self._broken(proc, "render", f"unexpected reply {str(reply)[:200]}")
                yield from self._read_batch(proc, batch_path(out, number), expected)
        finally:
            self._out = None
            if self._rendering is proc:
                # Closed before the child's final line (the consumer stopped): its later lines would answer
                # the next request.
                self._discard(proc)
            # A batch written but never announced or read (the child died or was killed mid-render).
            for leftover in Path(self._tmp.name).glob(f"{Path(out).name}-*"):
                leftover.unlink(missing_ok=True)

    def _read_batch(self, proc: subprocess.Popen[bytes], batch: str, expected: Iterator[int]) -> list[dict[str, Any]]:
        """The rows of one batch file, which is deleted: the parent never holds more than one batch.

        `expected` yields the page numbers due next; the batch's rows must bring the next of them, in order.
        """
        try:
            with pq.ParquetFile(batch) as reader:
                count = reader.metadata.num_rows
                rows = reader.read().to_pylist() if 1 <= count <= ROWS_PER_BATCH else []
        except (OSError, ValueError, pa.ArrowException) as exc:
            raise self._broken(proc, "render", f"unreadable batch: {exc}") from None
        finally:
            Path(batch).unlink(missing_ok=True)
        pages = [row.get("page_num") for row in rows]
        due = list(itertools.islice(expected, len(rows)))
        if not rows or pages != due:
            raise self._broken(proc, "render", f"a batch of {count} rows, pages {pages[:3]}, not {due[:3]}")
        return rows

    def probe(self, kind: str, path: str) -> dict[str, Any]:
        """Size, hash and page count of one input (ocr_pipeline.pdf.input_facts.probe_path, in the child)."""
        return self.request("probe", QUICK_SECONDS, kind=kind, path=path)["facts"]

    def filter(self, path: str) -> dict[str, Any]:
        """olmOCR's filters on one PDF (ocr_pipeline.pdf.filters.check_pdf, in the child)."""
        return self.request("filter", QUICK_SECONDS, path=path)["decision"]

    def close(self) -> None:
        """Stop the child and remove its scratch files."""
        proc = self._proc
        if proc is not None and proc is not self._rendering and proc.poll() is None and not self._pending:
            # Idle and in step: the next sandbox of this process takes it instead of starting a child.
            self._proc = None
            if not keep_spare(self.command, proc):
                stop(proc)
        self._discard()  # one still rendering is killed: nobody reads its pages
        self._tmp.cleanup()

    def __enter__(self) -> PdfSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
