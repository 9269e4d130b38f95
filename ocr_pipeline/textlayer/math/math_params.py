"""The thresholds a text layer's formulas are found and built with, and which inline formulas are written as LaTeX.

One frozen, documented parameter object (layout/param_fields.py): each field's meaning and unit in its metadata;
where the values came from is in docs/decisions.md. Sizes are the symbols' font sizes: a gap of "2 sizes" is
twice the size the glyphs beside it are set at.
"""

from __future__ import annotations

from dataclasses import dataclass

from ocr_pipeline.layout.param_fields import check_values, doc_field

# Which inline formulas are written as LaTeX (MathParams.inline).
INLINE_FORMS = ("stacked", "all", "none")


@dataclass(frozen=True)
class MathParams:
    """Thresholds of find.py (where formulas are), layout.py and rows.py (their LaTeX) and latex.py (what is kept)."""

    # A formula's scripts and stacks (numerators, limits) are set smaller than its symbols; prose's scripts are told
    # by TextLayerParams.script_size_ratio (0.8), which keeps small capitals out.
    script_ratio: float = doc_field(0.85, "size share: a symbol or word no bigger than this is script-sized")
    sup_shift: float = doc_field(0.18, "base size share: a superscript's baseline rises at least this")
    sub_shift: float = doc_field(0.04, "base size share: a subscript's baseline falls at least this")
    # TeX's second-level scripts (5 pt in a 10 pt text, 6 in 12) get no smaller.
    smallest_script: float = doc_field(6.5, "points: at this size or below a script's script is told by shift alone")
    # Finding formulas (find.py).
    wrap_jump_sizes: float = doc_field(5.0, "sizes: an inline formula jumping back further wraps to the next line")
    display_stack_sizes: float = doc_field(1.5, "sizes: lines of a display stand within this of each other")
    display_space_sizes: float = doc_field(0.6, "sizes: a display stands off the lines above and below at least this")
    display_indent_sizes: float = doc_field(1.0, "sizes: a display starts right of the text line before at least this")
    # Building them (layout.py, latex.py).
    stack_reach_sizes: float = doc_field(0.9, "sizes: a stack sits within this of the rule or operator it belongs to")
    cell_gap_sizes: float = doc_field(0.8, "sizes: a wider gap parts two cells of a matrix line")
    label_gap_sizes: float = doc_field(2.0, "sizes: an equation number stands right of its display at least this")
    min_symbols: int = doc_field(3, "glyphs: an inline formula of fewer stays as it is (a lone x or alpha)")
    # Building a formula compares its symbols pairwise; the longest on pdf-parse-bench's formula pages holds 113.
    max_formula_glyphs: int = doc_field(2000, "glyphs: a formula piece of more stays as its glyphs, noted")
    # Plain text cannot hold a fraction, a radical, a binomial or a matrix; a formula of scripts and symbols inside a
    # sentence reads as pdftotext writes it ("x i", "Eu 3+"), as olmOCR-Bench's multi-column ground truth writes it:
    # in LaTeX such formulas cost 9 of its 552 tests (docs/decisions.md).
    inline: str = doc_field("stacked", "form: inline formulas as LaTeX, 'stacked' ones only, 'all' or 'none'")

    def __post_init__(self) -> None:
        check_values(self, shares=["script_ratio"])
        if self.inline not in INLINE_FORMS:
            raise ValueError(f"MathParams.inline is {self.inline!r}: one of {', '.join(INLINE_FORMS)}")


# The documented defaults every text layer's formulas are read with (reading_params.READING_PARAMS holds them).
MATH_PARAMS = MathParams()
