"""The PDF reader child's memory cap, and how a document that runs past it is told from any other crash.

The child caps itself with `resource.setrlimit(RLIMIT_DATA)` at start-up (`--memory-mb`, the `pdf_memory_mb`
setting). RLIMIT_DATA, not RLIMIT_AS: it counts what the child can write (heap, anonymous maps: Python's objects,
numpy's arrays, pdfium's buffers) and not address space merely reserved or mapped from files (shared libraries,
glibc's per-thread malloc arenas and thread stacks, allocators' reservations), which on a many-core machine run to
gigabytes that hold nothing. The child also runs OpenBLAS (numpy's BLAS, which the reader never calls) on one
thread: its per-thread buffers are written-to data, ~40 MiB a core, that would count against the cap. And it runs
pyarrow on the system allocator: pyarrow's default, mimalloc, maps 1 GiB of writable memory for its arena when the
first batch is written, which RLIMIT_DATA counts in full though it holds a few MiB (a child capped at 2 GiB had
1.1 GiB of data after one page; on the system allocator, 85 MiB), and batches of eight page rows need no arena.

Past the cap, an allocation fails: in Python code as MemoryError, which the child answers with a
`memory_exceeded` reply naming its page and then ends; in pdfium, whose allocator cannot fail softly, as abort()
(SIGABRT). The child writes the page it is on to a marker file before reading each one, so the parent names the page
either way, and a capped child dead of SIGABRT is taken for one past its cap (pdfium stops with abort() on a failed
allocation; its own checks trap, and bad memory access is SIGSEGV).
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import sys
from pathlib import Path

REASON = "memory_exceeded"
# Variables the child starts with: numpy's BLAS on one thread, pyarrow on the system allocator (see above).
CHILD_ENV = {
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "ARROW_DEFAULT_MEMORY_POOL": "system",
}


def child_env() -> dict[str, str]:
    """The reader child's environment: this process's, BLAS held to one thread, pyarrow on the system allocator."""
    return {**os.environ, **CHILD_ENV}


def apply_cap(memory_mb: int) -> None:
    """Cap this process's data at `memory_mb` MiB (0: none; never above a hard limit already set)."""
    if memory_mb <= 0:
        return
    soft = memory_mb * 1024 * 1024
    try:
        _, hard = resource.getrlimit(resource.RLIMIT_DATA)
        resource.setrlimit(resource.RLIMIT_DATA, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))
    except (ValueError, OSError) as exc:  # a platform without the limit: the reader runs uncapped, and says so
        print(f"ocr-pipeline: the PDF reader's memory cap was not applied: {exc}", file=sys.stderr)


def marker_path(out: str) -> str:
    """Where the child of a render whose files start with `out` writes the page it is reading."""
    return f"{out}-page"


def mark_page(out: str, page: int) -> None:
    """Write the page about to be read (the parent reads it if this process dies on it)."""
    with contextlib.suppress(OSError):  # a full disk costs the page number only
        Path(marker_path(out)).write_text(str(page))


def marked_page(out: str) -> int | None:
    """The page the child was reading when it died, if it had marked one."""
    try:
        return int(Path(marker_path(out)).read_text())
    except (OSError, ValueError):
        return None


def died_of_memory(exit_code: int | None, memory_mb: int) -> bool:
    """Whether a dead child's exit code says it ran past its cap (a capped child stopped by SIGABRT)."""
    return memory_mb > 0 and exit_code == -signal.SIGABRT


def detail(memory_mb: int, page: int | None) -> str:
    """The rejection's detail: the cap and the page it was passed on."""
    where = f" on page {page}" if page else ""
    return f"the PDF reader needed more than its {memory_mb} MiB{where} (setting pdf_memory_mb)"
