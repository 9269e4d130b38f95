"""How much text a page holds for its size, and text on a page the renderer found blank.

The pages manifest stores the rendered image's pixels, not the PDF's physical size, so the area is nominal: the
page's aspect ratio with its longest side taken as 11 inches (US Letter; A4's is 11.7). Real printed pages
hold up to about 80 characters per square inch (two-column papers in 9 pt); a loop until the token limit holds
several hundred.
"""

from __future__ import annotations

NOMINAL_LONG_SIDE_IN = 11.0
# A page that rendered with fewer than this many ink pixels per claimed character cannot hold that text: even a
# 6 pt glyph at the default 1288 px render darkens a few dozen pixels.
MIN_INK_PER_CHAR = 4
# A few characters are allowed on a near-empty page (a page number, a stray mark read as a letter).
BLANK_TEXT_SLACK = 20


def chars_per_sq_in(text: str, width: int, height: int) -> float | None:
    """Non-space characters per square inch of the nominal page; None without the page's size."""
    if width <= 0 or height <= 0:
        return None
    long_side = max(width, height)
    area = (width / long_side * NOMINAL_LONG_SIDE_IN) * (height / long_side * NOMINAL_LONG_SIDE_IN)
    chars = sum(map(len, text.split()))  # split() cuts at exactly the characters str.isspace() names
    return round(chars / area, 2)


def text_on_blank(text: str, blank_page: bool, ink_pixels: int | None) -> bool:
    """Text where the page has none: a page the renderer called blank with text, or more letters than ink."""
    if blank_page:
        return any(c.isalnum() for c in text)
    if ink_pixels is None:
        return False
    return sum(1 for c in text if c.isalnum()) > BLANK_TEXT_SLACK + ink_pixels / MIN_INK_PER_CHAR
