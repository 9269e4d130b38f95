"""The PDF's own text layer: extraction in reading order and a check of whether it can be trusted."""

from __future__ import annotations

import contextlib
import ctypes
import re
import statistics
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ocr_pipeline.layout.boxes import Box, Rule
from ocr_pipeline.layout.budget import BudgetSpent, LayoutBudget
from ocr_pipeline.layout.drop_caps import join_drop_caps
from ocr_pipeline.layout.model_regions import Regions
from ocr_pipeline.layout.page_reader import TEXT_LAYER_PAGE, PageRead, read_page
from ocr_pipeline.textlayer.form_fields import form_runs
from ocr_pipeline.textlayer.glyph_bounds import glyphs_on_page, on_page, page_glyphs
from ocr_pipeline.textlayer.glyphs import split_runs
from ocr_pipeline.textlayer.math.latex import latex_formulas, outside_math
from ocr_pipeline.textlayer.page_space import PageSpace, place, reading_frame
from ocr_pipeline.textlayer.reading_params import READING_PARAMS, ReadingParams
from ocr_pipeline.textlayer.textlayer_params import TextLayerParams

# Characters pdfium emits for hyphens and line-break artefacts: removed so "shoul\ufffeder" is "shoulder".
_DROP = dict.fromkeys(map(ord, "\ufffe\u00ad\x02\u200b\ufeff"))
_HYPHEN_BREAK = re.compile(r"[\ufffe\x02][ \t]*\n[ \t]*")
_TAG = re.compile(r"</?(?:table|tr|th|td)(?: colspan=\"\d+\")?>")
_CID = re.compile(r"\(cid:\d+\)")
_SOFT_HYPHEN_BREAK = re.compile(r"(\w)-[ \t]*\n[ \t]*(\w)")
_SCRIPT_MARK = re.compile(r"[\^_]\{([^{}]*)\}")
_WORD_ELLIPSIS = re.compile(r"(?<=\w)\u2026")
_WS = re.compile(r"[ \t\u00a0\u2000-\u200a\u3000]+")


def _join_broken_word(m: re.Match[str]) -> str:
    return m[1] + m[2] if m[1].islower() and m[2].islower() else m[0]


def clean_text(text: str) -> str:
    """Drop hyphen artefacts, turn other control characters into U+FFFD (counted as bad later)."""
    # pdfium marks a word hyphenated across lines with U+FFFE (or 0x02): join the halves.
    text = _HYPHEN_BREAK.sub("", text).translate(_DROP)
    # A plain hyphen between a lower-case end of line and a lower-case start of the next is a word broken by the
    # typesetter far more often than a compound ("respec-" / "tively"); joined, a compound loses one character.
    text = _SOFT_HYPHEN_BREAK.sub(_join_broken_word, text)
    # TeX's quotes typed as two single ones; an ellipsis closing a word written as the three periods people type
    # (and olmOCR-Bench's ground truth writes), one between terms of a formula ("a_1, …, a_n") left to the maths;
    # NFC joins letters with the combining marks glyphs.py attached.
    text = _WORD_ELLIPSIS.sub("...", text.replace("\u2018\u2018", "\u201c").replace("\u2019\u2019", "\u201d"))
    text = unicodedata.normalize("NFC", text)
    return "".join("\ufffd" if unicodedata.category(c) == "Cc" and c not in "\n\t" else c for c in text)


def normalise_whitespace(text: str) -> str:
    """Collapse spaces inside lines, strip lines, and drop empty ones."""
    lines = (_WS.sub(" ", line).strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)


@dataclass
class PageLayout:
    """A page's text runs and ruling lines (y grows downwards), before tables and furniture are resolved."""

    runs: list[Box]
    rules: list[Rule]
    width: float
    height: float
    # Bounds that fired while the page was read (layout_budget.py): the page row's render_note carries them.
    notes: list[str] = field(default_factory=list)
    # Whether the runs are in the frame the page is shown (rendered) in; False when the page is read turned.
    shown_frame: bool = True


def _rules(page: pdfium.PdfPage, space: PageSpace, params: TextLayerParams, max_objects: int = 3000) -> list[Rule]:
    """Thin path objects (drawn lines, hairline rectangles) and the edges of stroked boxes, as ruling lines."""
    out: list[Rule] = []
    width, height = space.width, space.height
    for index, obj in enumerate(page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_PATH], max_depth=3)):
        if index >= max_objects:  # a vector drawing of thousands of strokes holds no table we could read
            break
        x0, y0, x1, y1 = space.box(*obj.get_bounds())
        top, bottom = height - y1, height - y0
        if min(x1 - x0, y1 - y0) <= params.rule_thickness:
            out.append(Rule(x0, top, x1, bottom))
        elif x1 - x0 < 0.95 * width and y1 - y0 < 0.95 * height:
            fill, stroke = ctypes.c_int(), ctypes.c_int()
            pdfium_c.FPDFPath_GetDrawMode(obj.raw, ctypes.byref(fill), ctypes.byref(stroke))
            if stroke.value:  # a stroked rectangle: a cell or a frame; its edges rule the text
                out += [Rule(x0, top, x1, top), Rule(x0, bottom, x1, bottom)]
                out += [Rule(x0, top, x0, bottom), Rule(x1, top, x1, bottom)]
    return out


def page_layout(
    page: pdfium.PdfPage, budget: LayoutBudget | None = None, params: ReadingParams = READING_PARAMS
) -> PageLayout:
    """The page's runs (repaired glyphs, see glyphs.py) and ruling lines, on the page (glyph_bounds.py), read with
    the text layer's and the formulas' thresholds of `params`."""
    budget = budget or LayoutBudget()
    # Positions are taken on the page as shown (crop box corner, /Rotate): the edges furniture is found at and the
    # columns reading order cuts are the rendered page's.
    textpage = page.get_textpage()
    try:
        glyphs = page_glyphs(textpage, page, budget, params.text_layer)
        shown = PageSpace.of(page)
        space = reading_frame(shown, glyphs)
        rules = on_page(_rules(page, space, params.text_layer), space.width, space.height) if glyphs else []
        placed = glyphs_on_page(place(glyphs, space), space.width, space.height, budget)
        # Past the budget, formulas stay as their glyphs and drop capitals apart (noted).
        with contextlib.suppress(BudgetSpent):
            placed = latex_formulas(placed, rules, space.height, budget, params.math)  # formulas as LaTeX (math/)
        runs = split_runs(placed, space.height, params.text_layer)
        with contextlib.suppress(BudgetSpent):
            runs = join_drop_caps(runs, budget)
        # Filled form fields: their values are not in the text page.
        runs += on_page(form_runs(page, space), space.width, space.height)
    finally:
        textpage.close()
    return PageLayout(runs, rules if runs else [], space.width, space.height, budget.notes, space == shown)


def write_scripts(text: str) -> str:
    """Sub- and superscripts marked `_{}` / `^{}` written apart as their own word ("m i", "Eu 3+"), the way
    olmOCR-Bench's ground truth and pdftotext write them."""
    return normalise_whitespace(outside_math(text, lambda part: _SCRIPT_MARK.sub(r" \1 ", part)))


def layout_text(
    layout: PageLayout,
    repeated: Iterable[str] = (),
    marked: bool = False,
    budget: LayoutBudget | None = None,
    furniture: Regions = (),
    recurring: frozenset[str] | None = None,
    params: ReadingParams = READING_PARAMS,
) -> str:
    """The page's text in reading order (layout/page_reader.py, with the layout thresholds of `params`): furniture
    dropped, tables as HTML, footnotes after the body, whitespace normalised; scripts stay marked when `marked` (the
    trust check reads "x^{2}" as one word, not a stray letter). Past the page's `budget`, the simple reading order of
    all its runs, noted in the budget. `furniture` holds regions a layout model called header or footer, in the
    layout's points; `recurring`, for a document of several pages, the band lines seen on two pages or more
    (layout/model_regions.py's in_furniture_regions).
    """
    return layout_read(layout, repeated, marked, budget, furniture, recurring, params)[0]


def layout_read(
    layout: PageLayout,
    repeated: Iterable[str] = (),
    marked: bool = False,
    budget: LayoutBudget | None = None,
    furniture: Regions = (),
    recurring: frozenset[str] | None = None,
    params: ReadingParams = READING_PARAMS,
) -> tuple[str, PageRead]:
    """layout_text's text, and the reading it came from (its kept lines, where they stand: routing's evidence)."""
    runs, rules, width, height = layout.runs, layout.rules, layout.width, layout.height
    page = read_page(runs, rules, width, height, TEXT_LAYER_PAGE, budget, repeated, furniture, recurring, params.layout)
    text = normalise_whitespace(clean_text(page.text))
    # Scripts were marked for the furniture rules (a superscript is no page number) and the trust check.
    return (text if marked else write_scripts(text)), page


def extract_page_text(
    page: pdfium.PdfPage, repeated: Iterable[str] = (), params: ReadingParams = READING_PARAMS
) -> str:
    """The page's own text in reading order (columns one after another), tables as HTML, furniture dropped."""
    return layout_text(page_layout(page, params=params), repeated, params=params)


def plain_text(page: pdfium.PdfPage) -> str:
    """pdfium's text of the page in its own order (no layout, furniture kept), cleaned and whitespace normalised."""
    textpage = page.get_textpage()
    try:
        # Bounded to the page as shown: text outside the crop box is not the page's. Full Unicode, unlike
        # get_text_range (UCS-2).
        raw = textpage.get_text_bounded()
    finally:
        textpage.close()
    # pdfium ends its lines with CR LF; a CR left alone would count as a control character in the verdict.
    return normalise_whitespace(clean_text(raw.replace("\r\n", "\n").replace("\r", "\n")))


@dataclass
class TextLayerQuality:
    """Whether a page's text layer is good enough to skip OCR, why, and the numbers behind it."""

    trusted: bool
    reason: str
    stats: dict[str, Any] = field(default_factory=dict)


# Words of one or two letters common enough that they are no piece of a broken word (max_fragment_share).
_COMMON_PAIR_WORDS = (
    "of to in is it on be as at by an or we he me my no so up us do go if am oh ok ah la le de du et en un da di il "
    "lo el es se su al ne ni na za je ve ze ja im um zu er wo od po op om av på ei co mu ho si ma ta te ti tu vi "
    "a i o y e u à è w z v k s"
)
_COMMON_PAIRS = frozenset(_COMMON_PAIR_WORDS.split())


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


def _fragment_share(words: list[str], params: TextLayerParams) -> float:
    """Share of lower-case words that are a piece of a word (one or two letters, no common word) before lower case."""
    lower = sum(1 for w in words if w.isalpha() and w.islower())
    if lower < params.min_fragment_words:
        return 0.0
    pieces = sum(
        1
        for a, b in zip(words, words[1:], strict=False)
        if len(a) <= 2 and a.isalpha() and a.islower() and a not in _COMMON_PAIRS and b[:1].islower()
    )
    return pieces / lower


def assess_text_layer(
    text: str,
    page_area_pt2: float | None = None,
    image_share: float | None = None,
    params: ReadingParams = READING_PARAMS,
) -> TextLayerQuality:
    """Decide whether `text` (from extract_page_text) can replace OCR for its page, by the verdict's thresholds of
    `params`' text layer.

    `image_share` (from image_coverage) catches scans that carry only a stamp or header as real text.
    """
    text = _TAG.sub(" ", text)  # table markup (layout/table_html.py) is ours, not the layer's: judge the cell text
    visible = [c for c in text if not c.isspace()]
    n = len(visible)
    words = text.split()
    stats: dict[str, Any] = {"chars": n, "words": len(words)}
    if page_area_pt2:
        # Characters per A4-sized area (~500,000 pt²): a full text page has 1,500 or more.
        stats["chars_per_a4"] = round(n * 500_000 / page_area_pt2, 1)
    if n < params.text_layer.min_chars:
        return TextLayerQuality(False, "too little text", stats)
    if image_share is not None:
        stats["image_share"] = round(image_share, 3)
        if (
            image_share >= params.text_layer.min_scan_image_share
            and stats.get("chars_per_a4", 0) < params.text_layer.min_chars_per_a4_over_scan
        ):
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
    if stats["bad_share"] > params.text_layer.max_bad_share:
        return TextLayerQuality(False, "replacement, control or private-use characters", stats)
    if stats["alnum_share"] < params.text_layer.min_alnum_share:
        return TextLayerQuality(False, "too few letters and digits", stats)
    if stats["single_char_word_share"] > params.text_layer.max_single_char_word_share and len(words) >= 10:
        return TextLayerQuality(False, "letters spaced apart", stats)
    if stats["long_word_share"] > params.text_layer.max_long_word_share or stats["mean_word_len"] > 15:
        return TextLayerQuality(False, "implausibly long words (missing spaces)", stats)
    if _fragment_share(words, params.text_layer) > params.text_layer.max_fragment_share:
        return TextLayerQuality(False, "words broken into pieces", stats)
    lo, hi = params.text_layer.vowel_share_range
    if len(ascii_letters) >= 200 and not lo <= stats["vowel_share"] <= hi:
        return TextLayerQuality(False, "implausible letter mix (scrambled font encoding)", stats)
    return TextLayerQuality(True, "ok", stats)
