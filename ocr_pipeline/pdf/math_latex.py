"""Formulas in a trusted text layer written as LaTeX: found by their fonts, built from their glyphs' geometry.

A formula is a stretch of the page's characters (typesetters write a formula's glyphs one after another) that holds
glyphs of a math font (math_symbols.py) and runs on through what formulas are made of: more math glyphs, digits,
brackets and operators, operator names ("cos", "mod"), words set at script size (`I_{rotation}`), single letters
between operators. A word of the text font at the text's size ends it: prose, including chemistry such as "Eu3+" or
"CO2" set in the text font, never becomes LaTeX. A formula set apart on lines of its own, indented from the text
around it, is a display (`$$...$$`, one per line of an aligned display); one inside a line of prose is inline (`$...$`).
Its glyphs are replaced by one glyph carrying the LaTeX (math_layout.py builds it), so runs, reading order and
furniture treat it as one piece of text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Protocol

from ocr_pipeline.pdf.glyphs import Glyph
from ocr_pipeline.pdf.math_layout import Item, Rule, build, build_rows, display_latex
from ocr_pipeline.pdf.math_symbols import ACCENTS, OPERATORS, is_extension_font, is_math_font, symbol_latex

# Words the text font sets inside formulas: TeX's operator names (\operatorname's usual ones).
_OPERATOR_WORDS = (
    "sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh coth log ln lg exp lim liminf limsup max min sup inf "
    "det dim ker deg arg gcd hom Pr"
)
_NAMED_WORDS = "lcm mod tr diag rank sgn sign span Re Im id const var cov erf"
# LaTeX's commands for them; the others go in \operatorname.
_COMMAND_NAMES = frozenset(_OPERATOR_WORDS.split())
OPERATOR_NAMES = frozenset(_OPERATOR_WORDS.split() + _NAMED_WORDS.split())
# An inline formula is written as LaTeX only when it holds at least this many glyphs (a lone "x" or "α" stays as it is).
MIN_SYMBOLS = 3
# Inline formulas go on across a line break; a jump back of more than this many sizes is that break.
WRAP_JUMP = 5.0
# Lines of a display are stacked within this many sizes of each other.
STACK_GAP = 1.5
# A display starts at least this many sizes right of the text line before it (displays are centred or indented).
DISPLAY_INDENT = 1.0
# Symbols of math fonts that prose uses alone (list bullets, degrees): they do not make a formula.
_PROSE_SYMBOLS = set("\u2022\u00b0\u2218\u25e6\u00b7\u2013\u2014,.;:()[]")
_BOLD = re.compile(r"bold|medi|black|heavy|semibold|demi|-b\b|bx", re.IGNORECASE)
_ITALIC = re.compile(r"ital|oblique|-it\b|\bit\b|-i\b", re.IGNORECASE)
_BLACKBOARD = re.compile(r"msbm|bbold|doublestroke|blackboard", re.IGNORECASE)
_FRAKTUR = re.compile(r"eufm|eufb|fraktur", re.IGNORECASE)
_CALLIGRAPHIC = re.compile(r"cmsy|cmbsy|eusm|eusb|rsfs|symbols|txsy|pxsy|-sy-|calligraph|script", re.IGNORECASE)
# Math fonts whose letters are variables (one symbol each), and families whose phi and epsilon code points are the
# other shape's.
_VARIABLES = re.compile(r"cmmi|mathitalic|rtxb?mi|txmia|ntxmi|pxmi|--m-(medium)?italic|eur[mb]|zxlr", re.IGNORECASE)
_SWAPS = (
    (re.compile(r"cmmi|--m-|mathdesign", re.IGNORECASE), {"\u03c6": "\u03d5", "\u03d5": "\u03c6"}),
    (re.compile(r"cmmi|mathdesign", re.IGNORECASE), {"\u03b5": "\u03f5", "\u03f5": "\u03b5"}),
)
_DELIMITERS = set("()[]{}|\u2016\u27e8\u27e9\u230a\u230b\u2308\u2309\u2211\u220f\u222b\u221a")
_INLINE_MATH = re.compile(r"\$\$[^$]+\$\$|\$[^$\s][^$]*\$")


class Ruling(Protocol):
    """A drawn line as table_html.Rule gives it (y grows downwards)."""

    @property
    def x0(self) -> float: ...
    @property
    def y0(self) -> float: ...
    @property
    def x1(self) -> float: ...
    @property
    def y1(self) -> float: ...


@lru_cache(maxsize=512)
def _math_font(name: str) -> bool:
    return is_math_font(name)


@lru_cache(maxsize=512)
def _italic(name: str) -> bool:
    return bool(_ITALIC.search(name))


@dataclass
class _Token:
    """Glyphs between spaces or line ends: indices into the glyph list, and what they are."""

    start: int
    end: int  # exclusive
    math: bool  # holds a math font's glyph
    seed: bool  # holds a math font's glyph that prose does not use alone
    word: str  # the text font's letters at the token's full size
    italic: bool
    size: float
    line: int  # the pdfium line it is on (line ends counted)
    prose: bool  # holds a word of the text font at the text's size: two lower-case letters or more, no operator name


def _token(glyphs: list[Glyph], start: int, end: int, line: int) -> _Token:
    part = glyphs[start:end]
    size = max(g.size for g in part)
    chars, math, seed, italic = [], False, False, True
    for g in part:
        in_math = _math_font(g.font)
        math = math or in_math
        seed = seed or (in_math and g.text not in _PROSE_SYMBOLS)
        italic = italic and _italic(g.font)
        # The text font's letters at full size, words split where anything else stands between ("f(x)": "f x").
        chars.append(g.text if not in_math and g.size > 0.85 * size and g.text.isalpha() else " ")
    word = "".join(chars)
    prose = any(sum(c.islower() for c in w) >= 2 and w not in OPERATOR_NAMES for w in word.split())
    return _Token(start, end, math, seed, word, italic, size, line, prose)


def _tokens(glyphs: list[Glyph]) -> list[_Token]:
    out: list[_Token] = []
    start, line = None, 0
    for k, g in enumerate([*glyphs, Glyph(" ", None)]):
        if g.box is not None:
            start = k if start is None else start
            continue
        if start is not None:
            out.append(_token(glyphs, start, k, line))
            start = None
        line += g.text == "\n"
    return out


def _joins(tok: _Token, size: float, glyphs: list[Glyph], near: _Token, far: _Token | None, forward: bool) -> bool:
    """Whether an inline formula of body `size` runs on into `tok`, the token after (`forward`) or before its end
    token `near`; `far` is the token past `tok`."""
    if tok.prose:
        return False
    if tok.math or not tok.word.strip() or tok.size <= 0.85 * size:
        return True
    words = tok.word.split()
    if all(w in OPERATOR_NAMES for w in words) or tok.italic and all(len(w) == 1 for w in words):
        return True
    if len(tok.word.strip()) < tok.end - tok.start:  # letters with brackets, digits or operators on them
        return True
    # Bare upright letters ("A", "SNR") belong to the formula when an operator stands between them and it, or when
    # what comes past them is no prose either.
    edge = glyphs[near.end - 1] if forward else glyphs[near.start]
    return edge.text in OPERATORS or edge.text in "([" or (far is not None and not far.prose)


def _box(glyphs: list[Glyph], tokens: list[_Token]) -> tuple[float, float, float, float]:
    boxes = [g.box for t in tokens for g in glyphs[t.start : t.end] if g.box]
    return min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)


def _apart(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether two boxes share no row (less than a third of the lower one's height overlaps)."""
    return min(a[3], b[3]) - max(a[1], b[1]) < 0.33 * min(a[3] - a[1], b[3] - b[1])


@dataclass
class _Line:
    """Tokens first..last on one pdfium line, their box, size, and whether prose or a math font is among them."""

    first: int
    last: int
    box: tuple[float, float, float, float]
    size: float
    prose: bool
    seed: bool


def _lines(glyphs: list[Glyph], tokens: list[_Token]) -> list[_Line]:
    out: list[_Line] = []
    first = 0
    for k in range(1, len(tokens) + 1):
        if k == len(tokens) or tokens[k].line != tokens[first].line:
            part = tokens[first:k]
            out.append(_Line(first, k - 1, _box(glyphs, part), max(t.size for t in part),
                             any(t.prose for t in part), any(t.seed for t in part)))  # fmt: skip
            first = k
    return out


def _display_blocks(glyphs: list[Glyph], tokens: list[_Token]) -> list[tuple[int, int]]:
    """Token ranges of displays: runs of lines without prose, one with a math font at least, on rows of their own,
    indented from the text line before or after them."""
    lines = _lines(glyphs, tokens)
    prose = [n for n, line in enumerate(lines) if line.prose]
    blocks: list[tuple[int, int]] = []
    k = 0
    while k < len(lines):
        if lines[k].prose:
            k += 1
            continue
        j, box, seed = k, lines[k].box, lines[k].seed
        while j + 1 < len(lines) and not lines[j + 1].prose:
            nxt, size = lines[j + 1].box, lines[j + 1].size
            if nxt[3] < box[1] - STACK_GAP * size or nxt[1] > box[3] + STACK_GAP * size:  # not stacked on the block
                break
            j, box = j + 1, (min(box[0], nxt[0]), min(box[1], nxt[1]), max(box[2], nxt[2]), max(box[3], nxt[3]))
            seed = seed or lines[j].seed
        if seed:
            size = max(line.size for line in lines[k : j + 1])
            around = [lines[n].box for n in (k - 1, j + 1) if 0 <= n < len(lines)]
            at = bisect.bisect_left(prose, k)
            text = [lines[n].box for n in prose[max(at - 1, 0) : at + 1]]
            # Set apart from the lines around it, and centred or indented from the text (or built of stacked
            # lines: limits, fractions), which a line of a paragraph never is.
            if all(_apart(box, b) for b in around) and (
                j > k or not text or any(box[0] >= b[0] + DISPLAY_INDENT * size for b in text)
            ):
                blocks.append((lines[k].first, lines[j].last))
        k = j + 1
    return blocks


def _inline_spans(glyphs: list[Glyph], tokens: list[_Token], taken: set[int]) -> list[tuple[int, int]]:
    """Token ranges (first, last) of formulas inside lines of prose (tokens in `taken` belong to displays)."""
    spans: list[tuple[int, int]] = []
    k = 0
    while k < len(tokens):
        if k in taken or not tokens[k].seed:
            k += 1
            continue
        a = b = k
        size = tokens[k].size
        while b + 1 < len(tokens) and b + 1 not in taken:
            far = tokens[b + 2] if b + 2 < len(tokens) and b + 2 not in taken else None
            if not _joins(tokens[b + 1], size, glyphs, tokens[b], far, True):
                break
            b += 1
            size = max(size, tokens[b].size) if tokens[b].math else size
        while a - 1 >= 0 and a - 1 not in taken and (not spans or a - 1 > spans[-1][1]):
            far = tokens[a - 2] if a - 2 >= 0 and a - 2 not in taken else None
            if not _joins(tokens[a - 1], size, glyphs, tokens[a], far, False):
                break
            a -= 1
        spans.append((a, b))
        k = b + 1
    return spans


def _pieces(glyphs: list[Glyph], first: int, last: int) -> list[list[int]]:
    """The formula's glyph indices cut where it wraps to the next line: a jump down and back to the left, to where
    the formula began or further (a fraction's denominator starts right of that)."""
    pieces: list[list[int]] = [[]]
    prev: Glyph | None = None
    start = size = 0.0
    for k in range(first, last):
        g = glyphs[k]
        if g.box is None:
            continue
        if prev is not None and prev.box is not None:
            back, down = prev.box[0] - g.box[2], g.box[3] < prev.box[1] + 0.5 * size
            if back > WRAP_JUMP * size and down and g.box[0] <= start + size:
                pieces.append([])
        if not pieces[-1]:
            start, size = g.box[0], g.size
        pieces[-1].append(k)
        prev, size = g, max(size, g.size)
    return [p for p in pieces if p]


@lru_cache(maxsize=512)
def _word_font(name: str) -> bool:
    """Whether a font's ASCII letters, drawn side by side, make a word: the text font's upright letters, and the
    letters of Unicode math fonts, whose variables are U+1D400... code points and whose ASCII letters spell "log"."""
    if not _math_font(name):
        return not _italic(name)
    return not (_VARIABLES.search(name) or _BLACKBOARD.search(name) or _FRAKTUR.search(name)
                or _CALLIGRAPHIC.search(name))  # fmt: skip


def _item(glyphs: list[Glyph], ks: list[int]) -> Item:
    """One symbol or one word as a formula item."""
    g0 = glyphs[ks[0]]
    text = "".join(glyphs[k].text for k in ks)
    font = g0.font
    if len(ks) > 1:
        latex = f"\\{text}" if text in _COMMAND_NAMES else f"\\operatorname{{{text}}}" if text in OPERATOR_NAMES else (
            f"\\mathbf{{{text}}}" if _BOLD.search(font) else f"\\mathrm{{{text}}}")  # fmt: skip
    elif text == "\u221a":
        latex = "\\surd"
    elif text == "\u0338":
        latex = "\\not"
    elif text.isascii() and text.isalpha() and _BLACKBOARD.search(font):
        latex = f"\\mathbb{{{text}}}"
    elif text.isascii() and text.isalpha() and _FRAKTUR.search(font):
        latex = f"\\mathfrak{{{text}}}"
    elif text.isascii() and text.isupper() and _math_font(font) and _CALLIGRAPHIC.search(font):
        latex = f"\\mathcal{{{text}}}"
    elif text.isascii() and text.isalpha() and _word_font(font) and not _math_font(font):
        latex = f"\\mathbf{{{text}}}" if _BOLD.search(font) else f"\\mathrm{{{text}}}"
    else:
        # Some families name phi's (and epsilon's) two shapes the other way round from Unicode.
        for family, swap in _SWAPS:
            text = swap.get(text, text) if family.search(font) else text
        latex = symbol_latex(text)
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
        letter = g.text.isascii() and g.text.isalpha() and _word_font(g.font)
        if word and (not letter or k != word[-1] + 1 or g.font != glyphs[word[-1]].font):
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


def _joined(items: list[Item]) -> list[Item]:
    """Three dots on one baseline as \\ldots or \\cdots; \\lim followed by inf or sup as one operator."""
    out: list[Item] = []
    for it in _accented(items):
        dots = out[-2:]
        if (
            it.latex in (".", "\\cdot")
            and len(dots) == 2
            and all(d.latex == it.latex for d in dots)
            and all(0 <= b.x0 - a.x1 <= 0.6 * it.size for a, b in zip([*dots, it], [*dots, it][1:], strict=False))
        ):
            out[-2:] = [replace(dots[0], latex="\\ldots" if it.latex == "." else "\\cdots", x1=it.x1)]
        elif it.latex in ("\\inf", "\\sup") and out and out[-1].latex == "\\lim" and it.x0 - out[-1].x1 < it.size:
            out[-1] = replace(out[-1], latex="\\lim" + it.latex[1:], x1=it.x1)
        else:
            out.append(it)
    return out


def _rules_in(rules: list[Rule], items: list[Item]) -> list[Rule]:
    """The rules drawn inside a formula's box (a fraction bar reaches a little past its stacks, an overline a little
    over them)."""
    size = max(it.size for it in items)
    x0, y0 = min(it.x0 for it in items) - size, min(it.y0 for it in items) - 0.5 * size
    x1, y1 = max(it.x1 for it in items) + size, max(it.y1 for it in items) + 0.5 * size
    return [r for r in rules if r.x0 >= x0 and r.x1 <= x1 and r.y0 >= y0 and r.y1 <= y1]


def _glyph(latex: str, items: list[Item]) -> Glyph:
    size = max(it.size for it in items)
    bases = [it.base for it in items if it.base is not None and it.size >= 0.85 * size]
    box = (min(i.x0 for i in items), min(i.y0 for i in items), max(i.x1 for i in items), max(i.y1 for i in items))
    return Glyph(latex, box, size, baseline=bases[0] if bases else None)


def latex_formulas(glyphs: list[Glyph], ruling: Sequence[Ruling], height: float, inline: bool = True) -> list[Glyph]:
    """The glyphs with each formula's glyphs replaced by one glyph holding its LaTeX (`$$..$$` or `$..$`);
    `ruling` holds the page's drawn lines, y growing downwards from the top of a page `height` high."""
    if not any(g.box is not None and _math_font(g.font) for g in glyphs):
        return glyphs
    # Fraction bars and radicals' rules: thin horizontal lines, turned into the glyphs' space (y up).
    rules = [Rule(r.x0, height - r.y1, r.x1, height - r.y0) for r in ruling if r.y1 - r.y0 <= 1.5 < r.x1 - r.x0]
    tokens = _tokens(glyphs)
    displays = _display_blocks(glyphs, tokens)
    taken = {k for a, b in displays for k in range(a, b + 1)}
    spans = [(a, b, True) for a, b in displays] + [(a, b, False) for a, b in _inline_spans(glyphs, tokens, taken)]
    replaced: dict[int, list[Glyph]] = {}  # first glyph index -> what stands for the formula
    dropped: set[int] = set()
    for a, b, display in spans:
        first, last = tokens[a].start, tokens[b].end
        pieces = [list(k for k in range(first, last) if glyphs[k].box)] if display else _pieces(glyphs, first, last)
        out: list[Glyph] = []
        for n, piece in enumerate(pieces):
            if n:  # the spaces and line ends between two pieces
                out += [g for g in glyphs[pieces[n - 1][-1] + 1 : piece[0]] if g.box is None]
            items = _items(glyphs, piece)
            if not display and (
                not inline or len(piece) < MIN_SYMBOLS or not any(_math_font(glyphs[k].font) for k in piece)
            ):
                out += glyphs[piece[0] : piece[-1] + 1]
                continue
            inside = _rules_in(rules, items)
            if display:
                out.append(_glyph(f"$${display_latex(build_rows(items, inside))}$$", items))
            else:
                out.append(_glyph(f"${build(items, inside)}$", items))
        replaced[first] = out
        dropped.update(range(first, last))
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
