"""Formulas in a trusted text layer written as LaTeX: found by their fonts, built from their glyphs' geometry.

math_find.py finds the formulas among the page's glyphs; each formula's glyphs become items (a symbol, or a word such
as "cos" or "rotation") that math_layout.py builds into LaTeX; the formula's glyphs are replaced by one glyph
carrying `$$...$$` (a display) or `$...$` (inline), so runs, reading order and furniture treat it as one piece of text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from ocr_pipeline.layout.boxes import Extent, bounds
from ocr_pipeline.layout.budget import LayoutBudget
from ocr_pipeline.textlayer.glyphs import Glyph
from ocr_pipeline.textlayer.math.find import find_formulas
from ocr_pipeline.textlayer.math.layout import build_rows
from ocr_pipeline.textlayer.math.math_params import MATH_PARAMS, MathParams
from ocr_pipeline.textlayer.math.rows import FractionBar, Item, display_latex, row_latex
from ocr_pipeline.textlayer.math.symbols import (
    ACCENTS,
    COMMAND_NAMES,
    OPERATOR_NAMES,
    is_bold,
    is_extension_font,
    is_math_font,
    is_word_font,
    letter_style,
    own_shape,
    symbol_latex,
)

# What plain text cannot hold: an inline formula of these is written as LaTeX when MathParams.inline is "stacked".
_STACKED = re.compile(r"\\(frac|sqrt|binom|begin|overline)\b")
_DELIMITERS = set("()[]{}|\u2016\u27e8\u27e9\u230a\u230b\u2308\u2309\u2211\u220f\u222b\u221a")
# A display's equation number: "(3)", "(2.1a)", "(A.4)", MathParams.label_gap_sizes right of the display at least.
_LABEL = re.compile(r"\((\d+|[A-Z])(\.\d+)*[a-z]?\)")
# Arrows TeX draws long by running a minus (or two) into them.
_LONG = {"\\to": "\\longrightarrow", "\\longrightarrow": "\\longrightarrow", "\\Rightarrow": "\\Longrightarrow"}
# Formulas as this module writes them: on one line, an inline one without spaces at its ends (a price, "$25.00", in
# the text does not start one that runs on to the next "$").
_INLINE_MATH = re.compile(r"\$\$[^$\n]+\$\$|\$(?!\s)[^$\n]*(?<!\s)\$")


def _word_latex(text: str, font: str) -> str:
    """An upright word: an operator's command (two run together, "loglog", as two), else roman or bold text."""
    if text in COMMAND_NAMES:
        return f"\\{text}"
    if text in OPERATOR_NAMES:
        return f"\\operatorname{{{text}}}"
    for cut in range(2, len(text) - 1):
        if text[:cut] in OPERATOR_NAMES and text[cut:] in OPERATOR_NAMES:
            return _word_latex(text[:cut], font) + _word_latex(text[cut:], font)
    return f"\\mathbf{{{text}}}" if is_bold(font) else f"\\mathrm{{{text}}}"


def _item(glyphs: list[Glyph], ks: list[int]) -> Item:
    """One symbol or one word as a formula item."""
    g0 = glyphs[ks[0]]
    text = "".join(glyphs[k].text for k in ks)
    font = g0.font
    style = letter_style(font) if text.isascii() and text.isalpha() else ""
    if len(ks) > 1:
        latex = _word_latex(text, font)
    elif text == "\u221a":
        latex = "\\surd"
    elif text == "\u0338":
        latex = "\\not"
    elif style and (style != "\\mathcal" or text.isupper()):
        latex = f"{style}{{{text}}}"
    elif text.isascii() and text.isalpha() and is_word_font(font) and not is_math_font(font):
        latex = f"\\mathbf{{{text}}}" if is_bold(font) else f"\\mathrm{{{text}}}"
    else:
        latex = symbol_latex(own_shape(font, text))
    boxes = [box for k in ks if (box := glyphs[k].box) is not None]
    # Big operators and delimiters hang from their origin wherever their font puts it: they go by their box.
    drawn_big = is_extension_font(font) or (len(ks) == 1 and text in _DELIMITERS)
    return Item(latex, min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
                max(b[3] for b in boxes), max(g0.size, 0.1), None if drawn_big else g0.baseline)  # fmt: skip


def _items(glyphs: list[Glyph], piece: list[int]) -> list[Item]:
    """Items of a piece: upright letters drawn one after another make one word; \\mapsto's bar and arrow, three dots
    and "lim inf" make one symbol."""
    out: list[Item] = []
    word: list[int] = []
    for k in piece:
        g = glyphs[k]
        letter = g.text.isascii() and g.text.isalpha() and is_word_font(g.font)
        last = glyphs[word[-1]] if word else g
        if word and (not letter or k != word[-1] + 1 or g.font != last.font or g.size != last.size
                     or g.baseline != last.baseline):  # fmt: skip
            out.append(_item(glyphs, word))
            word = []
        if letter:
            word.append(k)
        elif out and out[-1].latex == "\\mapsto" and g.text == "\u2192":
            out[-1] = replace(out[-1], x1=max(out[-1].x1, g.box[2] if g.box else 0.0))
        else:
            out.append(_item(glyphs, [k]))
    if word:
        out.append(_item(glyphs, word))
    return _joined(out)


def _accented(items: list[Item]) -> list[Item]:
    """Accents drawn as glyphs of their own (a combining arrow over a letter): put on the symbol under them."""
    marks = [it for it in items if it.latex in ACCENTS]
    out = [it for it in items if it.latex not in ACCENTS]
    for mark in marks:
        under = [it for it in out if it.x0 - 1 <= mark.xc <= it.x1 + 1 and it.yc < mark.yc]
        if under:
            it = min(under, key=lambda u: abs(u.xc - mark.xc))
            k = next(n for n, x in enumerate(out) if x is it)
            out[k] = replace(it, latex=f"{ACCENTS[mark.latex]}{{{it.latex}}}", y1=max(it.y1, mark.y1))
    return out


def _stacked_pieces(items: list[Item]) -> list[Item]:
    """A delimiter built of pieces stacked on each other (top, middle, bottom of a big brace) as one symbol."""
    out: list[Item] = []
    for it in items:
        piece = next((k for k, o in enumerate(out) if o.latex == it.latex and o.base is None and it.base is None
                      and min(o.x1, it.x1) - max(o.x0, it.x0) > 0.5 * min(o.x1 - o.x0, it.x1 - it.x0)
                      and max(o.y0, it.y0) - min(o.y1, it.y1) < 0.3 * it.size), None)  # fmt: skip
        if piece is None:
            out.append(it)
        else:
            o = out[piece]
            out[piece] = replace(o, x0=min(o.x0, it.x0), y0=min(o.y0, it.y0), x1=max(o.x1, it.x1), y1=max(o.y1, it.y1))
    return out


def _joined(items: list[Item]) -> list[Item]:
    """Three dots on one baseline as \\ldots or \\cdots; \\lim followed by inf or sup as one operator; a minus
    running into an arrow as a long arrow; delimiter pieces as one delimiter."""
    items = _accented(_stacked_pieces(items))
    after = {id(a): b.x0 - a.x1 for a, b in zip(items, items[1:], strict=False)}

    def next_gap(it: Item) -> float:
        return after.get(id(it), 0.0)

    out: list[Item] = []
    for it in items:
        dots = out[-2:]
        if (
            it.latex in (".", "\\cdot")
            and len(dots) == 2
            and all(d.latex == it.latex for d in dots)
            and all(0 <= b.x0 - a.x1 <= 0.6 * it.size for a, b in zip([*dots, it], [*dots, it][1:], strict=False))
        ):
            out[-2:] = [replace(dots[0], latex="\\ldots" if it.latex == "." else "\\cdots", x1=it.x1)]
        elif it.latex == "|" and out and out[-1].x1 + 0.15 * it.size < it.x0 and next_gap(it) > 0.15 * it.size:
            out.append(replace(it, latex="\\mid"))  # a bar set with a relation's space on either side
        elif it.latex in ("\\inf", "\\sup") and out and out[-1].latex == "\\lim" and it.x0 - out[-1].x1 < it.size:
            out[-1] = replace(out[-1], latex="\\lim" + it.latex[1:], x1=it.x1)
        elif it.latex in _LONG and out and out[-1].latex == "-" and it.x0 - out[-1].x1 < 0.1 * it.size:
            out[-1] = replace(out[-1], latex=_LONG[it.latex], x1=it.x1)
            while len(out) > 1 and out[-2].latex == "-" and out[-1].x0 - out[-2].x1 < 0.1 * it.size:
                out[-2:] = [replace(out[-1], x0=out[-2].x0)]  # an arrow drawn longer still, from several minus signs
        else:
            out.append(it)
    return out


def _rules_in(rules: list[FractionBar], items: list[Item]) -> list[FractionBar]:
    """The rules drawn inside a formula's box (a fraction bar reaches a little past its stacks, an overline a little
    over them)."""
    size = max(it.size for it in items)
    x0, y0, x1, y1 = bounds(items)
    x0, y0, x1, y1 = x0 - size, y0 - 0.5 * size, x1 + size, y1 + 0.5 * size
    return [r for r in rules if r.x0 >= x0 and r.x1 <= x1 and r.y0 >= y0 and r.y1 <= y1]


def _glyph(latex: str, items: list[Item], params: MathParams) -> Glyph:
    size = max(it.size for it in items)
    bases = [it.base for it in items if it.base is not None and it.size >= params.script_ratio * size]
    box = bounds(items)
    return Glyph(latex, box, size, baseline=bases[0] if bases else None)


def _label(glyphs: list[Glyph], piece: list[int], params: MathParams) -> tuple[list[int], list[int]]:
    """A display's equation number, set apart at its right end ("(3)"): the display's glyphs without it, and its."""
    boxes = {k: box for k in piece if (box := glyphs[k].box) is not None}
    order = sorted(boxes, key=lambda k: boxes[k][0])
    size = max(glyphs[k].size for k in piece)
    right = 0.0
    ends = []  # the right end of everything left of each glyph
    for k in order:
        ends.append(right)
        right = max(right, boxes[k][2])
    for n in range(len(order) - 1, 0, -1):
        if boxes[order[n]][0] - ends[n] > params.label_gap_sizes * size:
            label = sorted(order[n:])
            if _LABEL.fullmatch("".join(glyphs[k].text for k in label)):
                return [k for k in piece if k not in label], label
            break
    return piece, []


def latex_formulas(
    glyphs: list[Glyph],
    ruling: Sequence[Extent],
    height: float,
    budget: LayoutBudget | None = None,
    params: MathParams = MATH_PARAMS,
) -> list[Glyph]:
    """The glyphs with each display's glyphs replaced by one glyph holding its LaTeX (`$$..$$`), and each inline
    formula's that plain text cannot hold (`$..$`, or as `params.inline` says); `ruling` holds the page's drawn lines
    (boxes.Rule), y growing downwards from the top of a page `height` high. Past the page's `budget`, BudgetSpent
    (layout/budget.py)."""
    if not any(is_math_font(font) for font in {g.font for g in glyphs}):
        return glyphs
    budget = budget or LayoutBudget()
    # Fraction bars and radicals' rules: thin horizontal lines, turned into the glyphs' space (y up).
    rules = [FractionBar(r.x0, height - r.y1, r.x1, height - r.y0) for r in ruling if r.y1 - r.y0 <= 1.5 < r.x1 - r.x0]
    replaced: dict[int, list[Glyph]] = {}  # first glyph index -> what stands for the formula
    dropped: set[int] = set()
    for formula in find_formulas(glyphs, budget, params):
        out: list[Glyph] = []
        pieces = formula.pieces
        for n, piece in enumerate(pieces):
            if n:  # the spaces and line ends between two pieces
                out += [g for g in glyphs[pieces[n - 1][-1] + 1 : piece[0]] if g.box is None]
            # An inline formula of digits and punctuation alone (a footnote mark after a number) is no formula; one
            # with a dollar sign in it would end early where Markdown readers look for formulas.
            if (
                any(glyphs[k].text == "$" for k in piece)
                or not formula.display
                and (
                    len(piece) < params.min_symbols
                    or not any(is_math_font(glyphs[k].font) for k in piece)
                    or all(glyphs[k].text.isascii() and not glyphs[k].text.isalpha() for k in piece)
                )
            ):
                out += glyphs[piece[0] : piece[-1] + 1]
                continue
            if len(piece) > params.max_formula_glyphs:
                budget.note(f"a formula of {len(piece)} glyphs (bound {params.max_formula_glyphs}) kept as text")
                out += glyphs[piece[0] : piece[-1] + 1]
                continue
            # Its symbols are compared pairwise, and with the page's rules.
            budget.charge(len(piece) * (len(piece) + len(rules)))
            piece, label = _label(glyphs, piece, params) if formula.display else (piece, [])
            items = _items(glyphs, piece)
            if sum(not it.latex for it in items) * 3 > len(items):  # mostly glyphs mapped to nothing: not readable
                out += glyphs[min(piece + label) : max(piece + label) + 1]
                continue
            lines = build_rows(items, _rules_in(rules, items), formula.display, params)
            if formula.display:
                out.append(_glyph(f"$${display_latex(lines, params)}$$", items, params))
                out += [Glyph(" ", None), *(glyphs[k] for k in label)] if label else []
                continue
            latex = (
                row_latex(lines[0], params=params) if len(lines) == 1 else ""
            )  # an inline formula read as two lines: not understood
            if latex and (params.inline == "all" or params.inline == "stacked" and _STACKED.search(latex)):
                out.append(_glyph(f"${latex}$", items, params))
            else:
                out += glyphs[piece[0] : piece[-1] + 1]
        replaced[formula.first] = out
        dropped.update(range(formula.first, formula.last))
    if not replaced:
        return glyphs
    result: list[Glyph] = []
    for k, g in enumerate(glyphs):
        result += replaced.get(k, [])
        if k not in dropped:
            result.append(g)
    return result


def outside_math(text: str, change: Callable[[str], str]) -> str:
    """`text` with `change` applied to everything but its `$..$` and `$$..$$` formulas."""
    out, pos = [], 0
    for m in _INLINE_MATH.finditer(text):
        out += [change(text[pos : m.start()]), m[0]]
        pos = m.end()
    return "".join([*out, change(text[pos:])])
