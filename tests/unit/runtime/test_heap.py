"""runtime/heap.py: memory a process freed goes back to the system when asked, where the C library is glibc."""

from __future__ import annotations

import ctypes
import ctypes.util
import platform
import sys

import pytest

from ocr_pipeline.runtime.heap import return_freed_memory

GLIBC = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024


@pytest.mark.skipif(not GLIBC, reason="malloc_trim is glibc's")
def test_freed_blocks_below_a_live_one_are_returned_when_asked() -> None:
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
    # 120 MB in 4 KB blocks (below mmap's threshold, so on the heap), then a block above them that stays in use:
    # free() alone cannot shrink the heap past it, as a page's tensors freed under the engine's live objects.
    blocks = [libc.malloc(4096) for _ in range(30_000)]
    for block in blocks:
        libc.memset(block, 1, 4096)
    keeper = libc.malloc(4096)
    for block in blocks:
        libc.free(block)
    before = _rss_mb()
    assert return_freed_memory() is True
    after = _rss_mb()
    libc.free(keeper)
    assert before - after > 80, (before, after)
