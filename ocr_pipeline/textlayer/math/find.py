"""Where a text layer's formulas are: stretches of its characters that hold a math font's glyphs.

Typesetters write a formula's glyphs one after another, so a formula is a stretch of the page's characters that
holds glyphs of a math font (math_symbols.py) and runs on through what formulas are made of: more math glyphs, digits,
brackets and operators, operator names ("cos", "mod"), words set at script size (`I_{rotation}`), single letters
between operators. A word of the text font at the text's size ends it: prose, including chemistry such as "Eu3+" or
"CO2" set in the text font, never belongs to a formula. Lines that hold no prose, stacked on each other, set apart
from the text around them and indented (or built of several stacked lines) are a display; a formula inside a line of
prose is inline, cut where it wraps to the next line.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace
from functools import lru_cache

from ocr_pipeline.layout.budget import LayoutBudget
from ocr_pipeline.textlayer.glyphs import Glyph
from ocr_pipeline.textlayer.math.math_params import MATH_PARAMS, MathParams
from ocr_pipeline.textlayer.math.symbols import OPERATOR_NAMES, OPERATORS, is_italic, is_math_font

# What a math font sets that prose uses too (bullets, degrees, dashes, footnote marks) and unmapped glyphs: none of
# them makes a formula by itself.
_PROSE_SYMBOLS = set("\u2022\u00b0\u2218\u25e6\u00b7\u2010\u2011\u2012\u2013\u2014\u2217\u2020\u2021\u00a7\ufffd")


_RELATIONS = set("=<>\u2264\u2265\u2260\u2248\u2261")
_GREEK_LOWER = re.compile("[\u03b1-\u03c9\u03d1\u03d5\u03f5]$")
# Publishers' symbol fonts (Mathematical Pi, Euclid, MT Extra): their keyboard symbols ("=", "+", "<") are set in
# prose ("p < 0.05"), unlike TeX's math fonts', which only formulas use.
_SETTERS = re.compile(r"mathpi|math-?pi|euclid|mt-?extra|greekwith|minionmath|bg-maths", re.IGNORECASE)


@lru_cache(maxsize=256)
def _setters_font(name: str) -> bool:
    return bool(_SETTERS.search(name))


@dataclass(frozen=True)
class Formula:
    """A formula's glyphs (indices first..last-1), whether a display, and its glyph indices cut into the pieces it
    is written as (an inline formula wrapped onto the next line comes in two)."""

    first: int
    last: int
    display: bool
    pieces: list[list[int]]


def find_formulas(
    glyphs: list[Glyph], budget: LayoutBudget | None = None, params: MathParams = MATH_PARAMS
) -> list[Formula]:
    """The page's formulas, displays first."""
    budget = budget or LayoutBudget()
    budget.charge(len(glyphs))
    tokens = _tokens(glyphs, params)
    displays = _display_blocks(glyphs, tokens, budget, params)
    taken = {k for a, b in displays for k in range(a, b + 1)}
    out = []
    for a, b in displays:
        first, last = tokens[a].start, tokens[b].end
        out.append(Formula(first, last, True, [[k for k in range(first, last) if glyphs[k].box]]))
    for a, b in _inline_spans(glyphs, tokens, taken, params):
        first, last = tokens[a].start, tokens[b].end
        out.append(Formula(first, last, False, _pieces(glyphs, first, last, params)))
    return out


@dataclass
class _Token:
    """Glyphs between spaces or line ends: indices into the glyph list, and what they are."""

    start: int
    end: int  # exclusive
    math: bool  # holds a math font's glyph
    seed: bool  # holds a math font's glyph that prose does not use alone, and no prose
    symbol: bool  # holds a math font's glyph that prose does not use alone
    word: str  # the text font's letters at the token's full size
    italic: bool
    size: float
    line: int  # the pdfium line it is on (line ends counted)
    prose: bool  # holds a word of the text font at the text's size: two lower-case letters or more, no operator name


def _token(glyphs: list[Glyph], start: int, end: int, line: int, params: MathParams) -> _Token:
    part = glyphs[start:end]
    size = max(g.size for g in part)
    chars, math, seed, italic = [], False, False, True
    for g in part:
        in_math = is_math_font(g.font)
        math = math or in_math
        seed = seed or (in_math and g.text not in _PROSE_SYMBOLS and (not g.text.isascii() or g.text.isalpha()
                                                                      or not _setters_font(g.font)))  # fmt: skip
        italic = italic and (is_italic(g.font) or not g.text.isalpha())  # its letters are all italic
        # The text font's letters at full size, words split where anything else stands between ("f(x)": "f x"); a
        # word a math font's glyph follows at once (through a bracket at most) names a function: "Aff_S", "Coh(P)".
        if not in_math and g.size > params.script_ratio * size and g.text.isalpha():
            chars.append(g.text)
        elif in_math and chars and chars[-1] not in " (":
            chars.append("(" if g.text.isalpha() else " ")
        else:
            chars.append("(" if g.text == "(" and chars and chars[-1] != " " else " ")
    words = "".join(chars).replace("(", " ( ").split()
    named = {w for w, nxt in zip(words, words[1:], strict=False) if nxt == "("}
    word = " ".join(w for w in words if w != "(")
    # Italic letters are variables where math letters are set in the text's italic (txfonts: "ax", "ds"): a short
    # word needs two upright lower-case letters to be prose; emphasis is longer.
    upright = "".join(g.text for g in part if g.text.islower() and not is_italic(g.font))
    prose = any(sum(c.islower() for c in w) >= 2 and w not in OPERATOR_NAMES and w not in named
                and (len(w) > 3 or sum(c in upright for c in w) >= 2) for w in words)  # fmt: skip
    # A Greek letter closing a name of capitals in the text font ("IFNγ", "TNFα", "ERβ") is part of the name.
    tail = part[-1]
    if (len(part) >= 3 and is_math_font(tail.font) and _GREEK_LOWER.match(tail.text)
            and tail.size > params.script_ratio * size
            and all(g.text.isupper() and not is_math_font(g.font) for g in part[:-1])):  # fmt: skip
        seed = False
    # A word of prose with a math font's symbol on it ("γ-ray") starts no formula.
    return _Token(start, end, math, seed and not prose, seed, word, italic, size, line, prose)


def _tokens(glyphs: list[Glyph], params: MathParams) -> list[_Token]:
    out: list[_Token] = []
    start, line = None, 0
    for k, g in enumerate([*glyphs, Glyph(" ", None)]):
        if g.box is not None:
            start = k if start is None else start
            continue
        if start is not None:
            token = _token(glyphs, start, k, line, params)
            # A word broken at the line's end by a hyphen (pdfium's marker) is half a word of prose ("Re-turn").
            out.append(replace(token, prose=True) if g.text in "\x02\ufffe" and token.word.strip() else token)
            start = None
        line += g.text == "\n"
    # Words set small on a line of bigger text are scripts ("def" over "=", "mean" under "r"), not prose.
    biggest: dict[int, float] = {}
    for t in out:
        biggest[t.line] = max(biggest.get(t.line, 0.0), t.size)
    return [
        replace(t, prose=False, seed=t.symbol) if t.prose and t.size <= params.script_ratio * biggest[t.line] else t
        for t in out
    ]


def _joins(
    tok: _Token, size: float, glyphs: list[Glyph], near: _Token, far: _Token | None, forward: bool, params: MathParams
) -> bool:
    """Whether an inline formula of body `size` runs on into `tok`, the token after (`forward`) or before its end
    token `near`; `far` is the token past `tok`."""
    if tok.prose:
        return False
    if tok.math or not tok.word.strip() or tok.size <= params.script_ratio * size:
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
    variables: bool  # italic letters of the text font
    relation: bool


def _lines(glyphs: list[Glyph], tokens: list[_Token]) -> list[_Line]:
    out: list[_Line] = []
    first = 0
    for k in range(1, len(tokens) + 1):
        if k == len(tokens) or tokens[k].line != tokens[first].line:
            part = tokens[first:k]
            # Lines of italic letters and relations are a formula even without a math font (txfonts' letters are
            # the text's italic; its "+" and "=" the text's).
            variables = any(t.italic and t.word.strip() for t in part)
            relation = any(g.text in _RELATIONS for t in part for g in glyphs[t.start : t.end])
            seed = any(t.seed for t in part)
            # A line of prose: a word of prose and no formula, or three words: a display may hold a word or two
            # ("Dom A", "where", "for all").
            words = sum(t.prose for t in part)
            prose = words >= 3 or words >= 1 and not (seed or variables and relation)
            out.append(_Line(first, k - 1, _box(glyphs, part), max(t.size for t in part), prose, seed, variables,
                             relation))  # fmt: skip
            first = k
    return out


def _stacked(block: list[_Line], budget: LayoutBudget) -> bool:
    """Whether some of the lines stand one over another (limits, a fraction's parts), not side by side on one row
    (a line pdfium cut at a superscript)."""
    budget.charge(len(block) * len(block))
    return any(
        _apart(a.box, b.box) and min(a.box[2], b.box[2]) > max(a.box[0], b.box[0])
        for n, a in enumerate(block)
        for b in block[n + 1 :]
    )


def _display_blocks(
    glyphs: list[Glyph], tokens: list[_Token], budget: LayoutBudget, params: MathParams
) -> list[tuple[int, int]]:
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
        j, box = k, lines[k].box
        while j + 1 < len(lines) and not lines[j + 1].prose:
            nxt, size = lines[j + 1].box, lines[j + 1].size
            reach = params.display_stack_sizes * size
            if nxt[3] < box[1] - reach or nxt[1] > box[3] + reach:  # not stacked on the block
                break
            j, box = j + 1, (min(box[0], nxt[0]), min(box[1], nxt[1]), max(box[2], nxt[2]), max(box[3], nxt[3]))
        block = lines[k : j + 1]
        if any(ln.seed for ln in block) or any(ln.variables for ln in block) and any(ln.relation for ln in block):
            size = max(line.size for line in lines[k : j + 1])
            around = [lines[n].box for n in (k - 1, j + 1) if 0 <= n < len(lines)]
            at = bisect.bisect_left(prose, k)
            text = [lines[n].box for n in prose[max(at - 1, 0) : at + 1]]
            # Set apart from the lines around it, and indented from the text, or spaced off the lines around it,
            # or built of stacked lines (limits, fractions), which a line of a paragraph never is.
            # A word or two of prose ("where", "for all") in a display needs the indent: lines of a paragraph with
            # a formula in them are spaced off and stacked too, when the formula has limits.
            space = params.display_space_sizes * size
            spaced = all(b[1] - box[3] >= space or box[1] - b[3] >= space for b in around)
            wordless = not any(t.prose for t in tokens[lines[k].first : lines[j].last + 1])
            if all(_apart(box, b) for b in around) and (
                wordless
                and (_stacked(block, budget) or spaced or not text)
                or any(box[0] >= b[0] + params.display_indent_sizes * size for b in text)
            ):
                blocks.append((lines[k].first, lines[j].last))
        k = j + 1
    return blocks


def _inline_spans(
    glyphs: list[Glyph], tokens: list[_Token], taken: set[int], params: MathParams
) -> list[tuple[int, int]]:
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
            if not _joins(tokens[b + 1], size, glyphs, tokens[b], far, True, params):
                break
            b += 1
            size = max(size, tokens[b].size) if tokens[b].math else size
        while a - 1 >= 0 and a - 1 not in taken and (not spans or a - 1 > spans[-1][1]):
            far = tokens[a - 2] if a - 2 >= 0 and a - 2 not in taken else None
            if not _joins(tokens[a - 1], size, glyphs, tokens[a], far, False, params):
                break
            a -= 1
        spans.append((a, b))
        k = b + 1
    return spans


def _pieces(glyphs: list[Glyph], first: int, last: int, params: MathParams) -> list[list[int]]:
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
            if back > params.wrap_jump_sizes * size and down and g.box[0] <= start + size:
                pieces.append([])
        if not pieces[-1]:
            start, size = g.box[0], g.size
        pieces[-1].append(k)
        prev, size = g, max(size, g.size)
    return [p for p in pieces if p]
