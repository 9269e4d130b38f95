"""Rendered pages to PNG, fast: grey pages as 8-bit grey, every row Up-filtered, zlib at level 1.

PIL's encoder picks a filter per row by trying all five (adaptive filtering): at level 1 that search costs as much
as the compression. One filter for every row (Up: each byte minus the byte above it, which turns the blank runs
and repeated rows of a page into zeros) gives files of about the same size (within a few per cent of PIL's on
the real pages of ../shared/data, text and scans alike) in half the time. A page whose pixels are all grey
(R = G = B, most text pages) is written as one grey channel: a reader's convert("RGB"), as vLLM's image loader
does, gives back the very same RGB pixels, from a third of the bytes to filter, compress, base64 and send.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# PNG colour types and row filter types (PNG specification, sections 6.1 and 9.2).
_GREY, _RGB = 0, 2
_NONE, _UP = 0, 2
# zlib level 1: ~3x faster than level 6, files ~10 % larger on rendered pages.
ZLIB_LEVEL = 1


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode_png(pixels: np.ndarray) -> bytes:
    """The PNG of an (h, w) grey or (h, w, 3) RGB uint8 array (any strides)."""
    if pixels.dtype != np.uint8 or not (pixels.ndim == 2 or (pixels.ndim == 3 and pixels.shape[2] == 3)):
        raise ValueError(f"need (h, w) or (h, w, 3) uint8 pixels, got {pixels.shape} {pixels.dtype}")
    height, width = pixels.shape[:2]
    if not height or not width:
        raise ValueError(f"an image needs pixels, got {width}x{height}")
    raw = np.ascontiguousarray(pixels).reshape(height, -1)
    lines = np.empty((height, raw.shape[1] + 1), np.uint8)
    lines[:, 0] = _UP
    lines[0, 0] = _NONE  # the first row has no row above it
    lines[0, 1:] = raw[0]
    np.subtract(raw[1:], raw[:-1], out=lines[1:, 1:])  # modulo 256, as the Up filter is defined
    header = struct.pack(">IIBBBBB", width, height, 8, _GREY if pixels.ndim == 2 else _RGB, 0, 0, 0)
    idat = zlib.compress(lines.tobytes(), ZLIB_LEVEL)
    return _SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")


def is_grey(rgb: np.ndarray) -> bool:
    """Whether every pixel of an (h, w, 3) array has R = G = B."""
    return bool(np.array_equal(rgb[..., 0], rgb[..., 1]) and np.array_equal(rgb[..., 1], rgb[..., 2]))


def page_png(rgb: np.ndarray) -> bytes:
    """A rendered page's PNG: one grey channel when the page is grey, else RGB."""
    return encode_png(rgb[..., 0] if is_grey(rgb) else rgb)
