"""Text set in a small-capitals font: the page shows capitals where the text layer holds lower-case letters.

Expert small-caps fonts ("TimesTen-RomanSC", "Caecilia-RomanSC") draw the lower-case codes as small capitals, and
a reader (or olmOCR-Bench's ground truth: "MILLOTTE J.-P.") sees capitals. A font counts when its descriptor says
SmallCap and its name says so too: TeX's Latin Modern fonts set the flag on fonts that are no small capitals, and
a name ending in "SC" alone may be a Simplified Chinese font. The page's text objects are asked once; characters
are asked for their object only on pages that have such a font.
"""

from __future__ import annotations

import ctypes
import re
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

SMALL_CAP_FLAG = 1 << 17  # PDF 32000 table 123: bit 18
_SUBSET = re.compile(r"^[A-Z]{6}\+")
_SMALL_CAPS_NAME = re.compile(r"(?:SC|SmallCaps|Caps)\d*(?:[-_ ]?(?:Regular|Roman|Book|Italic|It|Bold|Bd|Medium))?$")
MAX_OBJECTS = 5000  # a page of more objects than this is searched among its first ones
MAX_FORM_DEPTH = 3  # form XObjects nested deeper hold no text worth the walk


def _address(handle: Any) -> int:
    return ctypes.cast(handle, ctypes.c_void_p).value or 0


def _font_name(font: Any) -> str:
    size = pdfium_c.FPDFFont_GetBaseFontName(font, None, 0)
    if size <= 0:
        return ""
    buf = ctypes.create_string_buffer(size)
    pdfium_c.FPDFFont_GetBaseFontName(font, buf, size)
    return _SUBSET.sub("", buf.value.decode("latin-1"))


def small_caps_objects(page: pdfium.PdfPage) -> frozenset[int]:
    """Addresses of the page's text objects (form XObjects' too) set in a small-capitals font."""
    found: set[int] = set()
    fonts: dict[int, bool] = {}
    # pdfium's raw calls: the page may hold thousands of objects, and the helper wraps each in a Python object.
    stack = [(pdfium_c.FPDFPage_GetObject, page.raw, pdfium_c.FPDFPage_CountObjects(page.raw), 0)]
    seen = 0
    while stack and seen < MAX_OBJECTS:
        get, parent, count, depth = stack.pop()
        for index in range(min(count, MAX_OBJECTS - seen)):
            seen += 1
            obj = get(parent, index)
            kind = pdfium_c.FPDFPageObj_GetType(obj)
            if kind == pdfium_c.FPDF_PAGEOBJ_FORM and depth < MAX_FORM_DEPTH:
                stack.append((pdfium_c.FPDFFormObj_GetObject, obj, pdfium_c.FPDFFormObj_CountObjects(obj), depth + 1))
            elif kind == pdfium_c.FPDF_PAGEOBJ_TEXT and (font := pdfium_c.FPDFTextObj_GetFont(obj)):
                key = _address(font)
                if key not in fonts:
                    flagged = bool(pdfium_c.FPDFFont_GetFlags(font) & SMALL_CAP_FLAG)
                    fonts[key] = flagged and bool(_SMALL_CAPS_NAME.search(_font_name(font)))
                if fonts[key]:
                    found.add(_address(obj))
    return frozenset(found)


def in_small_caps(textpage: pdfium.PdfTextPage, index: int, objects: frozenset[int]) -> bool:
    """Whether character `index` of the text page belongs to one of `objects` (from small_caps_objects)."""
    return bool(objects) and _address(pdfium_c.FPDFText_GetTextObject(textpage.raw, index)) in objects
