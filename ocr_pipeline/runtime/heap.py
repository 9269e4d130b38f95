"""Freed heap memory handed back to the operating system, where the C library can (glibc's `malloc_trim`).

glibc keeps what a process frees in its malloc arenas, one per thread that allocated, for the next allocation; it
returns it to the system only when the top of an arena is free. The CPU engine's ONNX Runtime sessions run with
their own arena off (sessions.py), so a page's tensors are malloc'd and freed per page on several threads, and the
holes they leave are never returned: 12 scanned pages kept the engine's process at about 540 MB where 220 MB was
in use; trimmed after each page, near 220 MB (the heavy PDFs' family peak: docs/decisions.md).
Elsewhere (musl, macOS) there is nothing to call and this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from collections.abc import Callable
from functools import cache


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim, or None where the C library has none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def return_freed_memory() -> bool:
    """Hand the heap's free pages back to the system (a few milliseconds); True when some were returned."""
    trim = _malloc_trim()
    return bool(trim and trim(0))
