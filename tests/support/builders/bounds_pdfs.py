"""PDFs whose text layer costs what the input makes it cost: text off the page, microscopic text, a million glyphs.

Written byte by byte (one Helvetica page, a Flate-compressed content stream), so a page of a million characters
takes a fraction of a second to make, where reportlab's per-string drawing takes minutes.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

from tests.support.builders.raw_pdf import assemble, one_page

# (x, y, font size, text) of one string drawn on the page, PDF space (y up).
Placed = tuple[float, float, float, str]


def _escape(text: str) -> bytes:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")


def placed_text_pdf(strings: Sequence[Placed], width: float = 612.0, height: float = 792.0) -> bytes:
    """One page of `width` by `height` points with each string drawn at its place and size (Helvetica)."""
    ops = [b"BT"]
    for x, y, size, text in strings:
        ops.append(b"/F1 %s Tf 1 0 0 1 %s %s Tm (%s) Tj" % (repr(size).encode(), repr(x).encode(), repr(y).encode(),
                                                            _escape(text)))  # fmt: skip
    ops.append(b"ET")
    content = zlib.compress(b"\n".join(ops), 6)
    objects = one_page(content, "/F1 5 0 R", width, height, flate=True)
    objects[5] = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
    return assemble(objects)


WORDS = [
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "a",
    "lazy",
    "dog",
    "while",
    "five",
    "wizards",
    "box",
    "in",
    "the",
    "night",
]


def prose(n_chars: int, start: int = 0) -> str:
    """`n_chars` characters of words and spaces (deterministic)."""
    text, k = [], start
    length = 0
    while length < n_chars:
        word = WORDS[k % len(WORDS)]
        text.append(word)
        length += len(word) + 1
        k += 7
    return " ".join(text)[:n_chars]


def lines_pdf(lines: int, chars_per_line: int, size: float, leading: float | None = None) -> bytes:
    """A page of `lines` lines of prose, `chars_per_line` characters each, set at `size` points from the top."""
    leading = leading or size * 1.2
    strings = [(10.0, 780.0 - k * leading, size, prose(chars_per_line, k)) for k in range(lines)]
    return placed_text_pdf(strings)


def scattered_pdf(count: int, size: float = 3.0, seed: int = 1) -> bytes:
    """A page of `count` one-letter strings strewn over it (a map's labels, a scatter plot's marks): no lines."""
    state = seed
    strings = []
    for k in range(count):
        state = (state * 1103515245 + 12345) % 2**31
        x = (state % 6000) / 10.0
        state = (state * 1103515245 + 12345) % 2**31
        y = (state % 7800) / 10.0
        strings.append((x, y, size, "abcdefghij"[k % 10]))
    return placed_text_pdf(strings)
