"""Filled-in form fields (AcroForm widgets) as positioned text runs: pdfium's text page leaves their values out.

A widget's value is drawn from its appearance stream, not from the page's content, so the text layer of a filled
form holds the labels ("Name:") but not the answers ("Ada Lovelace"); poppler's pdftotext prints both. Text fields
and combo boxes show their value as text, so each becomes one run per line of its value, placed in the widget's
rectangle where a reader sees it. Check boxes, radio buttons, buttons and signatures show a glyph or a picture, not
text, and password fields show bullets: none of them is read.
"""

from __future__ import annotations

import ctypes

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ocr_pipeline.layout.reading_order import Box
from ocr_pipeline.textlayer.page_space import PageSpace

_TEXT_KINDS = frozenset({pdfium_c.FPDF_FORMFIELD_TEXTFIELD, pdfium_c.FPDF_FORMFIELD_COMBOBOX})
# Widgets a viewer does not show.
_UNSEEN = pdfium_c.FPDF_ANNOT_FLAG_HIDDEN | pdfium_c.FPDF_ANNOT_FLAG_NOVIEW | pdfium_c.FPDF_ANNOT_FLAG_INVISIBLE
# A page with more widgets than this is a generated grid of cells; its first ones are read.
MAX_WIDGETS = 2000
# A value longer than this is cut: a field holds a few lines a reader typed, not a book.
MAX_VALUE_CHARS = 20_000
# Auto-sized text (font size 0) in a multi-line field: pdfium's default for it.
_AUTO_MULTILINE_SIZE = 12.0
# Line pitch and average glyph width, in font sizes (Helvetica-like): where the value's lines sit and end.
_LINE_PITCH = 1.15
_GLYPH_WIDTH = 0.5
# Text fields are drawn with a small inner margin (pdfium's and Acrobat's default of 2 pt).
_PADDING = 2.0


def _field_value(form: pdfium_c.FPDF_FORMHANDLE, annot: pdfium_c.FPDF_ANNOTATION) -> str:
    """The field's value as UTF-16 from pdfium (a first call asks for the buffer size)."""
    size = pdfium_c.FPDFAnnot_GetFormFieldValue(form, annot, None, 0)
    if size <= 2:
        return ""
    buf = ctypes.create_string_buffer(size)
    pdfium_c.FPDFAnnot_GetFormFieldValue(form, annot, ctypes.cast(buf, ctypes.POINTER(pdfium_c.FPDF_WCHAR)), size)
    return buf.raw[: size - 2].decode("utf-16-le", errors="replace")[:MAX_VALUE_CHARS]


def _font_size(form: pdfium_c.FPDF_FORMHANDLE, annot: pdfium_c.FPDF_ANNOTATION) -> float:
    """The widget's font size in points; 0 means auto-sized to the rectangle."""
    value = ctypes.c_float(0.0)
    if not pdfium_c.FPDFAnnot_GetFontSize(form, annot, ctypes.byref(value)):
        return 0.0
    return max(float(value.value), 0.0)


def _runs(value: str, rect: pdfium_c.FS_RECTF, size: float, multiline: bool, page_height: float) -> list[Box]:
    """One run per line of `value`, left-aligned in the rectangle, top-down when multi-line, else centred."""
    left, right = min(rect.left, rect.right), max(rect.left, rect.right)
    bottom, top = min(rect.bottom, rect.top), max(rect.bottom, rect.top)
    lines = [line.strip() for line in value.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    if not multiline:
        lines = [" ".join(line for line in lines if line)]
    # An auto-sized value shrinks to fit, so none of its lines is scrolled out of view.
    fits = size <= 0
    if fits:
        size = _AUTO_MULTILINE_SIZE if multiline else max((top - bottom) - 2 * _PADDING, 1.0) / _LINE_PITCH
    pitch = size * _LINE_PITCH
    # A single line sits in the middle of its field; a multi-line value starts under the top edge.
    y = (top + bottom + pitch) / 2 if not multiline else top - _PADDING
    x0 = left + _PADDING
    out: list[Box] = []
    for line in lines:
        if line:
            x1 = min(x0 + max(len(line), 1) * size * _GLYPH_WIDTH, max(right - _PADDING, x0 + 1.0))
            out.append(Box(x0, page_height - y, x1, page_height - (y - pitch), line))
        y -= pitch
        if not fits and y - pitch / 2 < bottom:  # lines past the bottom edge are scrolled out of view
            break
    return out


def form_runs(page: pdfium.PdfPage, space: PageSpace) -> list[Box]:
    """The page's filled text fields and combo boxes as runs on the shown page (y down, like glyphs.split_runs)."""
    form = page.formenv
    if not form:  # the document has no form, or its form environment was never initialised
        return []
    out: list[Box] = []
    for index in range(min(pdfium_c.FPDFPage_GetAnnotCount(page.raw), MAX_WIDGETS)):
        annot = pdfium_c.FPDFPage_GetAnnot(page.raw, index)
        if not annot:
            continue
        try:
            if pdfium_c.FPDFAnnot_GetSubtype(annot) != pdfium_c.FPDF_ANNOT_WIDGET:
                continue
            if pdfium_c.FPDFAnnot_GetFlags(annot) & _UNSEEN:
                continue
            if pdfium_c.FPDFAnnot_GetFormFieldType(form.raw, annot) not in _TEXT_KINDS:
                continue
            flags = pdfium_c.FPDFAnnot_GetFormFieldFlags(form.raw, annot)
            if flags & pdfium_c.FPDF_FORMFLAG_TEXT_PASSWORD:
                continue
            value = _field_value(form.raw, annot)
            rect = pdfium_c.FS_RECTF()
            if not value.strip() or not pdfium_c.FPDFAnnot_GetRect(annot, ctypes.byref(rect)):
                continue
            multiline = bool(flags & pdfium_c.FPDF_FORMFLAG_TEXT_MULTILINE)
            rect.left, rect.bottom, rect.right, rect.top = space.box(rect.left, rect.bottom, rect.right, rect.top)
            out += _runs(value, rect, _font_size(form.raw, annot), multiline, space.height)
        finally:
            pdfium_c.FPDFPage_CloseAnnot(annot)
    return out
