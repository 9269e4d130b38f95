"""Formulas as LaTeX: the layout rules on boxes, the finding rules on glyphs, and pages drawn in TeX-named fonts."""

from __future__ import annotations

from dataclasses import replace

import pypdfium2 as pdfium

from ocr_pipeline.textlayer.glyphs import Glyph
from ocr_pipeline.textlayer.math.latex import _items, latex_formulas, outside_math
from ocr_pipeline.textlayer.math.layout import build, build_rows
from ocr_pipeline.textlayer.math.math_params import MATH_PARAMS
from ocr_pipeline.textlayer.math.rows import FractionBar, Item, display_latex
from ocr_pipeline.textlayer.math.symbols import decode_extension, is_math_font, symbol_latex
from ocr_pipeline.textlayer.reader import extract_page_text, write_scripts
from ocr_pipeline.textlayer.reading_params import READING_PARAMS, ReadingParams
from tests.support.builders.math_pdfs import glyph, page, rule, text_line


def _it(latex: str, x: float, y: float, size: float = 10.0, width: float = 5.0) -> Item:
    """A symbol on baseline y (its box from a fifth of the size below to three quarters above)."""
    return Item(latex, x, y - 0.2 * size, x + width, y + 0.75 * size, size, y)


# Every inline formula as LaTeX, not only those plain text cannot hold (the product's "stacked").
EVERY_INLINE = replace(MATH_PARAMS, inline="all")


def _text(ops: str, params: ReadingParams = READING_PARAMS) -> str:
    doc = pdfium.PdfDocument(page(ops))
    try:
        return extract_page_text(doc[0], params=params)
    finally:
        doc.close()


# --- the layout of one formula, on boxes -------------------------------------------------------------------------


def test_scripts_by_size_and_baseline() -> None:
    items = [_it("x", 0, 100), _it("2", 5, 104, 7), _it("+", 12, 100), _it("a", 18, 100), _it("i", 23, 98, 7)]
    assert build(items, []) == "x^{2}+a_{i}"


def test_sub_and_superscript_on_one_base_and_nested_scripts() -> None:
    items = [_it("x", 0, 100), _it("i", 5, 98, 7), _it("2", 5, 104, 7), _it("=", 12, 100), _it("e", 20, 100)]
    items += [_it("x", 25, 104, 7), _it("2", 29, 107, 5)]
    assert build(items, []) == "x_{i}^{2}=e^{x^{2}}"


def test_fraction_from_a_rule_with_stacks_above_and_below() -> None:
    items = [_it("y", 0, 100), _it("=", 8, 100), _it("a", 20, 108), _it("b", 20, 93)]
    assert build(items, [FractionBar(18, 102.3, 27, 102.7)]) == "y=\\frac{a}{b}"


def test_nested_fraction_innermost_first() -> None:
    items = [_it("1", 20, 113), _it("1", 14, 95), _it("+", 20, 95), _it("x", 30, 100, 7), _it("2", 30, 92, 7)]
    rules = [FractionBar(12, 108, 40, 108.4), FractionBar(29, 97.3, 35, 97.7)]
    assert build(items, rules) == "\\frac{1}{1+\\frac{x}{2}}"


def test_radical_sign_with_its_rule() -> None:
    items = [_it("\\surd", 0, 98, 10, 8), _it("x", 9, 100), _it("+", 15, 100), _it("1", 22, 100)]
    assert build(items, [FractionBar(8, 105.3, 28, 105.7)]) == "\\sqrt{x+1}"


def test_big_operator_limits_above_and_below() -> None:
    items = [_it("\\sum", 0, 96, 10, 12), _it("i", 2, 85, 7), _it("=", 4, 85, 7), _it("1", 8, 85, 7)]
    items += [_it("n", 4, 110, 7), _it("x", 14, 100), _it("i", 19, 98, 7)]
    assert build(items, []) == "\\sum_{i=1}^{n}x_{i}"


def test_primes_written_as_apostrophes() -> None:
    assert (
        build([_it("f", 0, 100), _it("'", 5, 104, 7), _it("(", 9, 100), _it("x", 13, 100), _it(")", 18, 100)], [])
        == "f'(x)"
    )


def test_lines_of_an_aligned_display_come_apart() -> None:
    rows = build_rows([_it("a", 0, 100), _it("=", 6, 100), _it("1", 14, 100), _it("b", 0, 80), _it("=", 6, 80)], [])
    assert [[it.latex for it in row] for row in rows] == [["a", "=", "1"], ["b", "="]]


# --- fonts and symbols -----------------------------------------------------------------------------------------


def test_math_fonts_told_by_name() -> None:
    math = "CMMI10 CMSY7 CMEX10 EUEX10 MSBM10 LMMathItalic10-Regular rtxmi txsy Kp--M-Italic EURM10 CambriaMath"
    math += " MathDesign-CH-Regular-MathItalic-10 STIXMathCalligraphy-Regular LibertinusT1Math"
    text = "Times-Roman LMRoman10-Regular NimbusRomNo9L-ReguItal MathDesign-CH-Regular-OT1-10 Kp-Regular"
    text += " Kp-Expert-Regular rtxr SymbolMT Arial-BoldMT"
    assert all(is_math_font(name) for name in math.split())
    assert not any(is_math_font(name) for name in text.split())


def test_extension_and_symbol_font_codes_read_as_tex_encodes_them() -> None:
    assert decode_extension("CMEX10", "X") == "\u2211"  # the display sum
    assert decode_extension("LMMathExtension10-Regular", "\x10") == "("
    assert decode_extension("txsy", "7") == "\u21a6"  # \mapsto's bar
    assert decode_extension("CMSY10", "A") == "A"  # calligraphic letters stay letters
    assert decode_extension("CMR10", "X") == "X"


def test_symbols_and_accents_as_commands() -> None:
    assert symbol_latex("\u03b1") == "\\alpha"
    assert symbol_latex("\u03c6") == "\\varphi" and symbol_latex("\u03d5") == "\\phi"
    assert symbol_latex("\u2264") == "\\leq"
    assert symbol_latex("X\u0302") == "\\hat{X}"
    assert symbol_latex("\u0101") == "\\bar{a}"


# --- finding formulas among a page's glyphs ----------------------------------------------------------------------


def _word(x: float, y: float, text: str, font: str = "Times-Roman", size: float = 10.0) -> list[Glyph]:
    boxes = [(x + 5 * k, y - 0.2 * size, x + 5 * k + 5, y + 0.8 * size) for k in range(len(text))]
    return [Glyph(c, box, size, baseline=y, font=font) for c, box in zip(text, boxes, strict=True)]


def _space() -> Glyph:
    return Glyph(" ", None)


def test_inline_formula_in_prose_and_prose_left_alone() -> None:
    glyphs = [*_word(0, 100, "with"), _space(), *_word(25, 100, "x", "CMMI10"), *_word(30, 104, "2", size=7)]
    glyphs += [
        _space(),
        *_word(40, 100, "+"),
        _space(),
        *_word(50, 100, "y", "CMMI10"),
        _space(),
        *_word(60, 100, "end"),
    ]
    out = latex_formulas(glyphs, [], 200.0, params=EVERY_INLINE)
    assert "".join(g.text for g in out) == "with $x^{2}+y$ end"


def test_chemistry_in_the_text_font_stays_plain() -> None:
    glyphs = [*_word(0, 100, "Eu"), *_word(10, 104, "3+", size=7), _space(), *_word(25, 100, "ions")]
    assert latex_formulas(glyphs, [], 200.0) is glyphs


def test_a_lone_symbol_stays_plain() -> None:
    glyphs = [*_word(0, 100, "the"), _space(), *_word(20, 100, "x", "CMMI10"), _space(), *_word(30, 100, "axis")]
    assert "".join(g.text for g in latex_formulas(glyphs, [], 200.0)) == "the x axis"


def test_math_marks_kept_when_scripts_are_written_apart() -> None:
    assert write_scripts("m^{2} and $x^{2}$ and $$a_{i}$$") == "m 2 and $x^{2}$ and $$a_{i}$$"
    assert outside_math("a $b$ c", str.upper) == "A $b$ C"


# --- whole pages ---------------------------------------------------------------------------------------------


def test_display_fraction_with_greek_on_a_page() -> None:
    ops = text_line(20, 250, "Some words of prose run here.") + text_line(20, 236, "More words of prose here.")
    ops += glyph("M", 10, 150, 200, "\xe1") + glyph("T", 10, 158, 200, "=")  # alpha =
    ops += glyph("M", 10, 172, 208, "x") + rule(170, 203, 180) + glyph("M", 10, 172, 193, "y")
    ops += text_line(20, 170, "And prose again after it.")
    lines = _text(ops).splitlines()
    assert "$$\\alpha=\\frac{x}{y}$$" in lines
    assert "And prose again after it." in lines


def test_display_sum_with_limits_and_a_radical() -> None:
    # The extension font's sum is drawn with its ink around the line's axis; its limits above and below it.
    ops = text_line(20, 250, "Words before the display.")
    ops += glyph("E", 10, 150, 198, "X") + glyph("M", 7, 150, 190, "i") + glyph("T", 7, 153, 190, "=")
    ops += glyph("T", 7, 157, 190, "1") + glyph("M", 7, 152, 207, "n")  # sum_{i=1}^{n}
    ops += glyph("S", 10, 166, 198, "\xe1") + rule(171, 206.5, 187) + glyph("M", 10, 172, 200, "x")
    ops += glyph("M", 7, 177, 197, "i")  # sqrt{x_i}
    ops += text_line(20, 160, "Words after the display.")
    assert "$$\\sum_{i=1}^{n}\\sqrt{x_{i}}$$" in _text(ops).splitlines()


def test_inline_formula_and_chemistry_on_a_page() -> None:
    ops = text_line(20, 250, "Ions of Eu") + glyph("T", 7, 70, 254, "3+") + text_line(82, 250, "glow")
    ops += text_line(20, 230, "and") + glyph("M", 10, 40, 230, "x") + glyph("T", 7, 45, 234, "2")
    ops += glyph("T", 10, 52, 230, "+") + glyph("M", 10, 60, 230, "y") + text_line(70, 230, "holds")
    lines = _text(ops, replace(READING_PARAMS, math=EVERY_INLINE)).splitlines()
    assert lines[0] == "Ions of Eu 3+ glow"
    assert lines[1] == "and $x^{2}+y$ holds"


# --- more structures -------------------------------------------------------------------------------------------


def test_binomial_and_matrix_between_big_delimiters() -> None:
    def big(latex: str, x: float) -> Item:
        return Item(latex, x, 90, x + 4, 112, 10.0)

    binom = [_it("y", 0, 100), _it("=", 6, 100), big("(", 14), _it("n", 19, 105), _it("k", 19, 95), big(")", 25)]
    assert build(binom, []) == "y=\\binom{n}{k}"
    matrix = [big("[", 0), _it("a", 6, 105), _it("b", 20, 105), _it("c", 6, 95), _it("d", 20, 95), big("]", 27)]
    assert build(matrix, []) == "\\begin{bmatrix}a & b \\\\ c & d\\end{bmatrix}"


def test_aligned_display_aligns_at_each_lines_first_relation() -> None:
    lines = build_rows([_it("a", 0, 100), _it("=", 6, 100), _it("1", 14, 100), _it("b", 0, 80), _it("=", 6, 80)], [])
    lines[1].append(_it("2", 14, 80))
    assert display_latex(lines) == "\\begin{aligned}a&=1 \\\\ b&=2\\end{aligned}"
    assert display_latex([[_it("a", 0, 100)], [_it("b", 0, 80)]]) == "\\begin{gathered}a \\\\ b\\end{gathered}"


def test_glyph_runs_read_as_one_symbol() -> None:
    dots = [_word(0, 100, "x", "CMMI10")[0], *_word(8, 100, "...", "CMMI10"), _word(26, 100, "y", "CMMI10")[0]]
    arrow = [*_word(0, 80, "f", "CMMI10"), Glyph("\u2212", (6, 78, 12, 88), 10.0, baseline=80, font="CMSY10")]
    arrow += [Glyph("\u2192", (11.5, 78, 20, 88), 10.0, baseline=80, font="CMSY10"), *_word(21, 80, "g", "CMMI10")]
    brace = [Glyph("{", (0, 70, 5, 85), 10.0, font="CMEX10"), Glyph("{", (0, 85.5, 5, 100), 10.0, font="CMEX10")]
    assert [it.latex for it in _items(dots, list(range(len(dots))))] == ["x", "\\ldots", "y"]
    assert [it.latex for it in _items(arrow, list(range(len(arrow))))] == ["f", "\\longrightarrow", "g"]
    assert [(it.latex, it.y0, it.y1) for it in _items(brace, [0, 1])] == [("\\{", 70, 100)]


def test_letters_of_math_fonts_by_family() -> None:
    def one(text: str, font: str) -> str:
        return _items(_word(0, 100, text, font), list(range(len(text))))[0].latex

    assert one("R", "MSBM10") == "\\mathbb{R}" and one("g", "EUFM10") == "\\mathfrak{g}"
    assert one("C", "LMMathSymbols10-Regular") == "\\mathcal{C}"
    assert one("\u03c6", "Kp--M-Italic") == "\\phi" and one("\u03c6", "LMMathItalic10-Regular") == "\\varphi"
    assert one("log", "LibertinusT1Math") == "\\log"  # a Unicode math font's upright letters spell operator names
    assert one("\U0001d465", "LibertinusT1Math") == "x" and one("\U0001d431", "STIXMath") == "\\mathbf{x}"


def test_a_word_broken_at_the_line_end_is_prose() -> None:
    glyphs = [*_word(0, 100, "x", "CMMI10"), _space(), *_word(10, 100, "+", "CMSY10"), _space()]
    glyphs += [*_word(20, 100, "y", "CMMI10"), _space(), *_word(30, 100, "Re"), Glyph("\x02", None), Glyph("\n", None)]
    glyphs += _word(0, 88, "turn")
    out = "".join(g.text for g in latex_formulas(glyphs, [], 200.0, params=EVERY_INLINE))
    assert out.startswith("$x+y$ Re")


def test_an_inline_formula_read_as_two_lines_stays_as_it_was() -> None:
    glyphs = [*_word(0, 100, "and"), _space(), *_word(20, 100, "x", "CMMI10"), *_word(25, 100, "=")]
    glyphs += [*_word(30, 100, "y", "CMMI10"), *_word(30, 85, "z", "CMMI10"), _space(), *_word(45, 100, "so")]
    assert latex_formulas(glyphs, [], 200.0) == glyphs


def test_names_and_prose_with_a_math_symbol_start_no_formula() -> None:
    glyphs = [*_word(0, 100, "IFN"), *_word(15, 100, "\u03b3", "MinionMathItalic"), _space(), *_word(25, 100, "rose")]
    glyphs += [_space(), *_word(50, 100, "high"), *_word(70, 100, "\u2010", "MathematicalPi-One")]
    glyphs += [*_word(75, 100, "impact"), _space(), *_word(110, 100, "MOUSSA"), *_word(140, 100, "\u2217", "CMSY10")]
    assert latex_formulas(glyphs, [], 200.0) == glyphs


def test_inline_formulas_as_latex_only_when_plain_text_cannot_hold_them() -> None:
    # By default a formula inside a sentence stays as pdftotext writes it unless it stacks (a fraction here).
    glyphs = [*_word(0, 100, "with"), _space(), *_word(25, 100, "x", "CMMI10"), *_word(30, 104, "2", size=7)]
    glyphs += [
        _space(),
        *_word(40, 100, "+"),
        _space(),
        *_word(50, 100, "y", "CMMI10"),
        _space(),
        *_word(60, 100, "so"),
    ]
    glyphs += [_space(), *_word(80, 100, "a", "CMMI10"), _space(), *_word(88, 100, "=", "CMR10"), _space()]
    glyphs += [*_word(96, 105, "1", size=7), *_word(96, 96, "n", "CMMI10", 7), _space(), *_word(110, 100, "holds")]
    bar = FractionBar(95, 200 - 101, 102, 200 - 100.5)  # as table_html gives rules: y grows downwards
    out = latex_formulas(glyphs, [bar], 200.0)
    assert "".join(g.text for g in out) == "with x2 + y so $a=\\frac{1}{n}$ holds"


def test_a_display_of_italic_text_letters_and_operators() -> None:
    # txfonts sets math letters in the text's italic and "+", "=" in the text font: the line is still a display, on
    # a page with a math font (an alpha in the prose here); a page without any holds no formulas.
    ops = text_line(20, 250, "Words before the display.") + text_line(20, 236, "More words before")
    ops += glyph("M", 10, 110, 236, "\xe1")
    ops += glyph("I", 10, 150, 200, "ax") + glyph("T", 7, 160, 204, "2") + glyph("T", 10, 166, 200, "+")
    ops += glyph("T", 10, 174, 200, "1") + glyph("T", 10, 182, 200, "=") + glyph("I", 10, 190, 200, "y")
    ops += glyph("T", 7, 195, 204, "2") + text_line(20, 170, "Words after the display.")
    assert "$$ax^{2}+1=y^{2}$$" in _text(ops).splitlines()


def test_small_symbols_over_a_relation_and_script_words() -> None:
    items = [_it("R", 0, 100), _it("2", 6, 104, 7), _it("\\mathrm{def}", 11, 107, 7, 9), _it("=", 12, 100, 10, 7)]
    items.append(_it("x", 22, 100))
    assert build(items, []) == "R^{2}\\overset{\\mathrm{def}}{=}x"


def test_font_codes_for_delimiter_pieces_and_extra_symbols() -> None:
    assert [decode_extension("CMEX10", c) for c in "\u23a7\u23aa\u23a9\u239b\u23a4"] == ["{", "{", "{", "(", "]"]
    assert decode_extension("txsyc", ",") == "\u2260" and decode_extension("Times-Roman", ",") == ","


def test_a_scripts_script_at_the_smallest_size() -> None:
    # TeX's second-level scripts stay at 5 pt: j_1 inside x_{j_1} is told by its drop alone.
    items = [_it("x", 0, 100), _it("j", 5, 98.6, 5), _it("1", 8, 97, 5)]
    assert build(items, []) == "x_{j_{1}}"


def test_bold_letters_of_different_sizes_are_no_word() -> None:
    glyphs = [*_word(0, 100, "r", "CMBX10"), *_word(5, 98, "x", "CMBX10", 7), *_word(10, 100, "M", "CMBX10")]
    assert [it.latex for it in _items(glyphs, [0, 1, 2])] == ["\\mathbf{r}", "\\mathbf{x}", "\\mathbf{M}"]


def test_glyphs_mapped_to_no_character_are_left_out() -> None:
    assert symbol_latex("\ue001") == "" and symbol_latex("\ufffd") == "" and symbol_latex("\u2329") == "\\langle"


def test_a_displays_equation_number_stays_text_beside_it() -> None:
    ops = text_line(20, 250, "Words before the display.") + text_line(20, 236, "More words before it.")
    ops += glyph("M", 10, 150, 200, "x") + glyph("T", 10, 158, 200, "=") + glyph("M", 10, 166, 200, "\xe1")
    ops += glyph("T", 10, 300, 200, "(3)") + text_line(20, 170, "Words after the display.")
    assert "$$x=\\alpha$$ (3)" in _text(ops).splitlines()


def test_an_authors_space_between_ordinary_symbols() -> None:
    # TeX sets no space between two letters: a gap there is the author's (\, \quad); around "=" it is TeX's own.
    items = [_it("p", 0, 100), _it("L", 6.7, 100), _it("=", 14, 100), _it("x", 22, 100), _it("y", 37, 100)]
    assert build(items, []) == "p\\,L=x\\quad y"


def test_scripts_on_a_base_that_has_scripts_or_no_character() -> None:
    # Limits already on an operator, or a glyph mapped to nothing, hold further scripts on an empty base.
    sum_ = Item("\\sum_{k}^{n}", 0, 92, 12, 110, 10.0, 100)
    assert build([sum_, _it("j", 12.5, 97, 7), _it("x", 20, 100)], []) == "\\sum_{k}^{n}{}_{j}x"
    assert build([_it("x", 0, 100), _it("", 5, 100), _it("2", 8, 104, 7)], []) == "x{}^{2}"
