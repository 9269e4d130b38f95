"""The text layer's characters with repaired boxes, split into positioned runs (the input of reading order).

Repairs made here, before any grouping: zero-size glyph boxes (small print where pdfium reports an empty box for
a word's first letter) get a box from the glyph's origin and font size; spacing accents drawn over a letter
(pdfLaTeX's `\\'a`) become combining marks of that letter; words drawn apart without a space character (large
display text) get their space back; sub- and superscripts are marked `_{}` / `^{}` where size and baseline say so.
"""

from __future__ import annotations

import ctypes
import math
import unicodedata
from dataclasses import dataclass
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ocr_pipeline.layout.boxes import Box
from ocr_pipeline.textlayer.math.symbols import FontNames, decode_extension, is_extension_font
from ocr_pipeline.textlayer.small_caps import in_small_caps
from ocr_pipeline.textlayer.textlayer_params import TEXT_LAYER_PARAMS, TextLayerParams
from ocr_pipeline.textlayer.word_gaps import word_gap_limits

# Spacing accents and the combining marks they stand for.
_ACCENTS = {
    "\u00b4": "\u0301",
    "`": "\u0300",
    "\u00a8": "\u0308",
    "\u02c6": "\u0302",
    "^": "\u0302",
    "\u02dc": "\u0303",
    "\u02c7": "\u030c",
    "\u00b8": "\u0327",
    "\u02da": "\u030a",
    "\u02d8": "\u0306",
    "\u02dd": "\u030b",
    "\u00af": "\u0304",
    "\u02d9": "\u0307",
}
# A drawn glyph whose font maps it to no character (a control code): kept as a box so the words beside it stay
# apart, written as U+FFFD so the trust check counts it.
_UNMAPPED = "\ufffd"


@dataclass
class Glyph:
    """One character: text and box (PDF space, y up); `box` None for spaces and other unplaced characters."""

    text: str
    box: tuple[float, float, float, float] | None
    size: float = 0.0
    vertical: bool = False
    turn: int = 0  # quarter turns anticlockwise the glyph is set at (1: its text runs up the page)
    baseline: float | None = None  # the glyph origin's y: sub- and superscripts are told by it
    font: str = ""  # the font's name (math_symbols.py tells math fonts by it)


def _font_size(textpage: pdfium.PdfTextPage, i: int) -> float:
    """The size the glyph is drawn at: FPDFText_GetFontSize gives the Tf operand only, 1.0 for every glyph of
    producers that scale the text matrix instead, so the matrix's scale is applied."""
    size = float(pdfium_c.FPDFText_GetFontSize(textpage.raw, i))
    m = pdfium_c.FS_MATRIX()
    if pdfium_c.FPDFText_GetMatrix(textpage.raw, i, ctypes.byref(m)):
        scale = math.sqrt(abs(m.a * m.d - m.b * m.c))
        if scale > 0:
            size *= scale
    return size


def _origin(textpage: pdfium.PdfTextPage, i: int) -> tuple[float, float]:
    """The glyph's origin on its baseline (user space)."""
    x, y = ctypes.c_double(), ctypes.c_double()
    pdfium_c.FPDFText_GetCharOrigin(textpage.raw, i, ctypes.byref(x), ctypes.byref(y))
    return x.value, y.value


def _origin_box(origin: tuple[float, float], size: float) -> tuple[float, float, float, float]:
    """A plausible box for a glyph pdfium gave an empty one: from its origin and font size."""
    x, y = origin
    size = size or 1.0
    return (x, y - 0.22 * size, x + 0.55 * size, y + 0.8 * size)


def _char_text(textpage: pdfium.PdfTextPage, i: int, n: int, text: str | None) -> tuple[str, int]:
    """Character `i` as pdfium maps it, and how many indices it takes (a surrogate pair takes two); `text` is the
    page's text string when it has one character per index (nothing dropped), the fast path."""
    if text is not None:
        return text[i], 1
    u = pdfium_c.FPDFText_GetUnicode(textpage.raw, i)
    if 0xD800 <= u < 0xDC00 and i + 1 < n:
        low = pdfium_c.FPDFText_GetUnicode(textpage.raw, i + 1)
        if 0xDC00 <= low < 0xE000:
            return chr(0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00)), 2
    return chr(u), 1


def read_glyphs(
    textpage: pdfium.PdfTextPage, small_caps: frozenset[int] = frozenset(), params: TextLayerParams = TEXT_LAYER_PARAMS
) -> list[Glyph]:
    """Every character of the page with its (repaired) box in user space; "\\n" glyphs mark pdfium's line ends.
    Lower-case letters of the text objects in `small_caps` (small_caps.py) are read as the capitals they show."""
    # Characters are read one index at a time: get_text_range drops unmapped glyphs (codes 0x00, 0x03, ...) from
    # its string, so walking that string beside the indices shifts every later character onto its neighbour's box
    # ("Foster, P.L." came out "oster, .L.,P").
    n = textpage.count_chars()
    if n <= 0:
        return []
    whole = textpage.get_text_range(0, n)
    text: str | None = whole if len(whole) == n else None
    glyphs: list[Glyph] = []
    fonts = FontNames(textpage)
    i = 0
    while i < n:
        ch, step = _char_text(textpage, i, n, text)
        k, i = i, i + step
        if ch in "\r\n":
            if not glyphs or glyphs[-1].text != "\n":
                glyphs.append(Glyph("\n", None))
            continue
        # A math extension font's big symbols come as bare codes ("X" for the sum, a tab for a big brace, a space for
        # the biggest parenthesis); the spaces pdfium adds itself are no glyph of any font.
        drawn = ch in "\t\x0b\x0c" or ch == " " and not pdfium_c.FPDFText_IsGenerated(textpage.raw, k)
        font, coded = fonts(k) if drawn or not (ch.isspace() or ch in "\x02\ufffe") else ("", False)
        ch = decode_extension(font, ch) if coded else ch
        if ch in "\x02\ufffe" or ch.isspace():  # pdfium's hyphen at a line break (clean_text joins the halves)
            glyphs.append(Glyph(ch, None))
            continue
        if not ch.isprintable() and unicodedata.category(ch) != "Co":
            ch = _UNMAPPED
        elif ch.islower() and in_small_caps(textpage, k, small_caps):
            ch = ch.upper()
        size = _font_size(textpage, k)
        origin = _origin(textpage, k)
        # Loose boxes (the font's ascent to descent) keep a line's glyphs level; a math extension font's big
        # symbols get their ink's box, as their font's box says nothing of their size.
        extension = is_extension_font(font)
        box = textpage.get_charbox(k, loose=not extension)
        if not extension and size and box[3] - box[1] > params.tall_box_sizes * size:
            ink = textpage.get_charbox(k)  # asked of the few glyphs with outsize boxes only
            if ink[3] - ink[1] <= size:  # small ink (a minus, a dot): an ordinary letter's extent about the baseline
                box = (box[0], origin[1] - 0.25 * size, box[2], origin[1] + 0.75 * size)
        if box[2] - box[0] < 0.01 or box[3] - box[1] < 0.01:
            if ch == _UNMAPPED:  # an unmapped code with no ink: nothing drawn, nothing to read
                continue
            box = _origin_box(origin, size)
        angle = float(pdfium_c.FPDFText_GetCharAngle(textpage.raw, k))
        vertical = 0.5 < angle % 3.14159 < 2.6  # ~90 or ~270 degrees: text running up or down the page
        turn = (4 - round(angle / (math.pi / 2))) % 4  # pdfium measures clockwise; quarter turns anticlockwise
        glyphs.append(Glyph(ch, tuple(box), size, vertical, turn, origin[1], font))
    return _attach_accents(glyphs)


def _attach_accents(glyphs: list[Glyph]) -> list[Glyph]:
    """Turn a spacing accent that sits over a neighbouring letter into that letter's combining mark."""
    out: list[Glyph] = []
    pending: str | None = None  # an accent typed before its letter (TeX order)
    for k, g in enumerate(glyphs):
        mark = _ACCENTS.get(g.text) if g.box else None
        if mark and g.box:
            xc = (g.box[0] + g.box[2]) / 2
            prev = out[-1] if out and out[-1].box and out[-1].text[:1].isalpha() else None
            nxt = glyphs[k + 1] if k + 1 < len(glyphs) and glyphs[k + 1].box and glyphs[k + 1].text.isalpha() else None
            if prev and prev.box and prev.box[0] - 0.5 <= xc <= prev.box[2] + 0.5:
                prev.text = unicodedata.normalize("NFC", prev.text + mark)
                continue
            if nxt and nxt.box and nxt.box[0] - 0.5 <= xc <= nxt.box[2] + 0.5:
                pending = mark
                continue
        if pending and g.box:
            g = Glyph(
                unicodedata.normalize("NFC", g.text + pending), g.box, g.size, g.vertical, g.turn, g.baseline, g.font
            )
            pending = None
        out.append(g)
    return out


def _script(g: Glyph, base: Glyph | None, params: TextLayerParams) -> str:
    """'^' or '_' when `g` is a smaller raised or lowered glyph beside `base`, else ''."""
    if base is None or g.box is None or base.box is None:
        return ""
    if not g.size or not base.size or g.size > params.script_size_ratio * base.size:
        return ""
    if not g.text.isalnum() and g.text not in "+-\u2212*\u2032":
        return ""
    if g.baseline is not None and base.baseline is not None:
        shift = (g.baseline - base.baseline) / base.size
    else:
        shift = (g.box[1] - base.box[1]) / base.size
    if shift > params.script_shift:
        return "^"
    if shift < -params.subscript_shift:
        return "_"
    return ""


def split_runs(glyphs: list[Glyph], page_height: float, params: TextLayerParams = TEXT_LAYER_PARAMS) -> list[Box]:
    """Runs of glyphs on one pdfium line with no wide gap; y flipped to grow downwards. Vertical glyphs
    (margin stamps) become runs of their own, marked with a leading U+2195 that furniture removal looks for."""
    runs: list[Box] = []
    parts: list[str] = []
    boxes: list[tuple[float, float, float, float]] = []
    # The glyph a raised or lowered one is measured against (Glyph | None) and the open script ("^", "_" or "").
    state: dict[str, Any] = {"base": None, "script": ""}

    def close_script() -> None:
        if state["script"]:
            parts.append("}")
            state["script"] = ""

    def flush() -> None:
        close_script()
        if boxes:
            x0, x1 = min(b[0] for b in boxes), max(b[2] for b in boxes)
            y0, y1 = min(b[1] for b in boxes), max(b[3] for b in boxes)
            runs.append(Box(x0, page_height - y1, x1, page_height - y0, "".join(parts)))
        parts.clear()
        boxes.clear()
        state["base"] = None

    last: Glyph | None = None
    vertical: list[Glyph] = []
    line_end = False  # pdfium ended a line: a new run unless the next glyph continues this one (a script)
    word_gaps = word_gap_limits(glyphs, params)
    for k, g in enumerate(glyphs):
        if g.text == "\n":
            line_end = True
            continue
        if g.box is None:
            if not line_end:
                close_script()
                parts.append(g.text)
            continue
        if g.vertical:
            vertical.append(g)
            continue
        left, bottom, right, top = g.box
        base = state["base"]
        if last is None or last.box is None or (base and g.size and g.size < params.drop_cap_size_ratio * base.size):
            flush()
        else:
            h = max(top - bottom, last.box[3] - last.box[1], 1e-3)
            same_row = min(top, last.box[3]) - max(bottom, last.box[1]) > 0.3 * h
            touching = -0.5 * h <= left - last.box[2] <= params.word_gap_heights * h
            if (
                line_end
                and not (same_row and touching)
                or left - last.box[2] > params.run_gap_heights * h
                or left < last.box[0] - h
                or not same_row
            ):
                flush()
            elif (
                parts and not parts[-1].isspace() and left - last.box[2] > word_gaps.get(k, params.word_gap_heights) * h
            ):
                close_script()
                parts.append(" ")
        script = _script(g, state["base"], params)
        if script != state["script"]:
            close_script()
            if script:
                parts.append(script + "{")
                state["script"] = script
        if not script:
            state["base"] = g
        parts.append(g.text)
        boxes.append(g.box)
        last, line_end = g, False
    flush()
    if vertical:
        placed = [g.box for g in vertical if g.box]  # every vertical glyph has a box: only placed ones are added
        x0, y0 = min(b[0] for b in placed), min(b[1] for b in placed)
        x1, y1 = max(b[2] for b in placed), max(b[3] for b in placed)
        runs.append(Box(x0, page_height - y1, x1, page_height - y0, "\u2195" + "".join(g.text for g in vertical)))
    return runs
