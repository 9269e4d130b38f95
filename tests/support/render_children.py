"""Misbehaving renderer children for tests of isolated rendering: `python -m ... hang|crash|ok`."""

from __future__ import annotations

import os
import sys
import time

if __name__ == "__main__":
    mode = sys.argv[1]
    for _line in sys.stdin:
        if mode == "hang":  # a PDF that sends pdfium into a loop
            time.sleep(3600)
        elif mode == "crash":  # dies the way a segfault in C code does: no exception, no cleanup
            os.abort()
