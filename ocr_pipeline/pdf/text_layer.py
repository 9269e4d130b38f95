"""The PDF's own text layer: extraction in reading order and a check of whether it can be trusted."""

from __future__ import annotations

import re
import statistics
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ocr_pipeline.pdf.reading_order import Box, order_text

# Characters pdfium emits for hyphens and line-break artefacts: removed so "shoul\ufffeder" is "shoulder".
_DROP = dict.fromkeys(map(ord, "\ufffe\u00ad\x02\u200b\ufeff"))
# A run gap wider than this many character heights starts a new run: it separates columns and table
# cells that pdfium placed on one text line, while word spaces (~0.3 heights) stay inside a run.
_RUN_GAP_HEIGHTS = 1.2
# Runs on one visual line are joined with a space when their gap exceeds this many heights
# (sub- and superscripts touch their base and get no space).
_SPACE_GAP_HEIGHTS = 0.12
_HYPHEN_BREAK = re.compile(r"[\ufffe\x02][ \t]*\n[ \t]*")
_CID = re.compile(r"\(cid:\d+\)")
_WS = re.compile(r"[ \t\u00a0\u2000-\u200a\u3000]+")


def clean_text(text: str) -> str:
    """Drop hyphen artefacts, turn other control characters into U+FFFD (counted as bad later)."""
    # pdfium marks a word hyphenated across lines with U+FFFE (or 0x02): join the halves.
    text = _HYPHEN_BREAK.sub("", text).translate(_DROP)
    return "".join("\ufffd" if unicodedata.category(c) == "Cc" and c not in "\n\t" else c for c in text)


def _runs(textpage: pdfium.PdfTextPage, page_height: float) -> list[Box]:
    """Split the page's characters into runs: pdfium lines, cut again at wide horizontal gaps."""
    n = textpage.count_chars()
    if n <= 0:
        return []
    text = textpage.get_text_range(0, n)
    runs: list[Box] = []
    chars: list[tuple[str, tuple[float, float, float, float] | None]] = []

    def flush() -> None:
        boxes = [b for _, b in chars if b is not None]
        if boxes:
            x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
            x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
            # Flip y so that it grows downwards, as the reading-order code expects.
            runs.append(Box(x0, page_height - y1, x1, page_height - y0, "".join(c for c, _ in chars)))
        chars.clear()

    last: tuple[float, float, float, float] | None = None
    i = -1
    for ch in text:
        # pdfium indexes UTF-16 code units: a character outside the BMP (math italic) takes two.
        i += 2 if ord(ch) > 0xFFFF else 1
        if i >= n:
            break
        if ch in "\r\n":
            flush()
            last = None
            continue
        if ch.isspace() or not ch.isprintable() and unicodedata.category(ch) != "Co":
            chars.append((ch, None))
            continue
        left, bottom, right, top = textpage.get_charbox(i, loose=True)
        box = (left, bottom, right, top)
        if last is not None:
            h = max(top - bottom, last[3] - last[1], 1e-3)
            same_row = min(top, last[3]) - max(bottom, last[1]) > 0.3 * h
            if left - last[2] > _RUN_GAP_HEIGHTS * h or left < last[0] - h or not same_row:
                flush()
        chars.append((ch, box))
        last = box
    flush()
    return runs


def normalise_whitespace(text: str) -> str:
    """Collapse spaces inside lines, strip lines, and drop empty ones."""
    lines = (_WS.sub(" ", line).strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def extract_page_text(page: pdfium.PdfPage) -> str:
    """The page's own text in reading order (columns one after another), whitespace normalised."""
    textpage = page.get_textpage()
    try:
        _, height = page.get_size()
        runs = _runs(textpage, height)
    finally:
        textpage.close()
    return normalise_whitespace(clean_text(order_text(runs, space_gap=_SPACE_GAP_HEIGHTS)))


@dataclass
class TextLayerQuality:
    """Whether a page's text layer is good enough to skip OCR, why, and the numbers behind it."""

    trusted: bool
    reason: str
    stats: dict[str, Any] = field(default_factory=dict)


# Thresholds: a page below MIN_CHARS visible characters may be a scan with a stamp or a figure page.
MIN_CHARS = 40
# A page mostly covered by images needs this much real text to skip OCR: a scan with a "Downloaded from..."
# stamp has a few dozen characters; a scan with a hidden OCR layer has a full page's worth (1,500+).
MIN_SCAN_IMAGE_SHARE = 0.5
MIN_CHARS_PER_A4_OVER_SCAN = 800
MAX_BAD_SHARE = 0.03  # replacement, control and private-use characters
MIN_ALNUM_SHARE = 0.45  # letters and digits among visible characters
MAX_SINGLE_CHAR_WORD_SHARE = 0.45  # "T h e  q u i c k" style layers
MAX_LONG_WORD_SHARE = 0.15  # words over 25 characters: missing spaces ("Thequickbrownfox")
VOWEL_SHARE_RANGE = (0.27, 0.6)  # Latin text; outside it the font encoding is likely scrambled


def image_coverage(page: pdfium.PdfPage, max_objects: int = 500) -> float:
    """Share of the page's crop box covered by image objects (0..1; overlaps may count twice, capped)."""
    left, bottom, right, top = page.get_cropbox()
    area = max((right - left) * (top - bottom), 1.0)
    covered = 0.0
    for index, obj in enumerate(page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=3)):
        if index >= max_objects:  # a page of thousands of tiles is judged on its first ones
            break
        x0, y0, x1, y1 = obj.get_bounds()
        w, h = min(x1, right) - max(x0, left), min(y1, top) - max(y0, bottom)
        covered += max(w, 0.0) * max(h, 0.0)
    return min(covered / area, 1.0)


def assess_text_layer(
    text: str, page_area_pt2: float | None = None, image_share: float | None = None
) -> TextLayerQuality:
    """Decide whether `text` (from extract_page_text) can replace OCR for its page.

    `image_share` (from image_coverage) catches scans that carry only a stamp or header as real text.
    """
    visible = [c for c in text if not c.isspace()]
    n = len(visible)
    words = text.split()
    stats: dict[str, Any] = {"chars": n, "words": len(words)}
    if page_area_pt2:
        # Characters per A4-sized area (~500,000 pt²): a full text page has 1,500 or more.
        stats["chars_per_a4"] = round(n * 500_000 / page_area_pt2, 1)
    if n < MIN_CHARS:
        return TextLayerQuality(False, "too little text", stats)
    if image_share is not None:
        stats["image_share"] = round(image_share, 3)
        if image_share >= MIN_SCAN_IMAGE_SHARE and stats.get("chars_per_a4", 0) < MIN_CHARS_PER_A4_OVER_SCAN:
            return TextLayerQuality(False, "mostly an image with a sparse text layer (a stamp over a scan?)", stats)
    cids = len(_CID.findall(text))
    bad = sum(1 for c in visible if c == "\ufffd" or unicodedata.category(c) in ("Cc", "Co", "Cs"))
    alnum = sum(1 for c in visible if c.isalnum())
    ascii_letters = [c for c in visible if c.isascii() and c.isalpha()]
    vowels = sum(1 for c in ascii_letters if c in "aeiouyAEIOUY")
    stats.update(
        cid_codes=cids,
        bad_share=round(bad / n, 4),
        alnum_share=round(alnum / n, 4),
        mean_word_len=round(statistics.fmean(len(w) for w in words), 2),
        single_char_word_share=round(sum(len(w) == 1 for w in words) / len(words), 4),
        long_word_share=round(sum(len(w) > 25 for w in words) / len(words), 4),
    )
    if ascii_letters:
        stats["vowel_share"] = round(vowels / len(ascii_letters), 4)
    if cids >= 3 or cids * 6 > len(words):
        return TextLayerQuality(False, "unmapped glyphs (cid:NN)", stats)
    if stats["bad_share"] > MAX_BAD_SHARE:
        return TextLayerQuality(False, "replacement, control or private-use characters", stats)
    if stats["alnum_share"] < MIN_ALNUM_SHARE:
        return TextLayerQuality(False, "too few letters and digits", stats)
    if stats["single_char_word_share"] > MAX_SINGLE_CHAR_WORD_SHARE and len(words) >= 10:
        return TextLayerQuality(False, "letters spaced apart", stats)
    if stats["long_word_share"] > MAX_LONG_WORD_SHARE or stats["mean_word_len"] > 15:
        return TextLayerQuality(False, "implausibly long words (missing spaces)", stats)
    lo, hi = VOWEL_SHARE_RANGE
    if len(ascii_letters) >= 200 and not lo <= stats["vowel_share"] <= hi:
        return TextLayerQuality(False, "implausible letter mix (scrambled font encoding)", stats)
    return TextLayerQuality(True, "ok", stats)
