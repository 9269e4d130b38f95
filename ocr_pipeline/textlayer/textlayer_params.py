"""The thresholds a PDF's text layer is read and judged with: glyphs into runs and words, and the trust verdict.

One frozen, documented parameter object (layout/param_fields.py): each field's meaning and unit in its metadata;
where the values came from is in docs/decisions.md, "Where the layout thresholds came from". Glyph heights
are the two neighbouring glyphs' box heights; sizes are font sizes.
"""

from __future__ import annotations

from dataclasses import dataclass

from ocr_pipeline.layout.param_fields import check_values, doc_field


@dataclass(frozen=True)
class TextLayerParams:
    """Thresholds of glyphs.py (runs, scripts), word_gaps.py (breaks on unspaced lines), glyph_bounds.py (how many
    characters are read) and reader.py (ruling lines, the verdict)."""

    # Runs and words (glyphs.py): a run gap separates columns and table cells pdfium placed on one text line.
    run_gap_heights: float = doc_field(1.2, "glyph heights: a wider gap starts a new run")
    word_gap_heights: float = doc_field(0.22, "glyph heights: a wider gap inside a run, with no space, is a word break")
    # Sub- and superscripts in prose: small capitals are not dropped, a small subscript may be dropped only a little
    # (a formula's symbols are told by math_params.MathParams.script_ratio, measured on formulas).
    script_size_ratio: float = doc_field(0.8, "base size share: a smaller glyph, raised or lowered, is a script")
    script_shift: float = doc_field(0.2, "base size share: a superscript's baseline is raised more than this")
    subscript_shift: float = doc_field(0.04, "base size share: a subscript's baseline is lowered more than this")
    # The letters after a drop capital drawn on its text line are the paragraph's first line, no superscript of it.
    drop_cap_size_ratio: float = doc_field(0.45, "size share: a glyph under this share of the one before starts a run")
    # A math font's minus spans two lines; stretched so, its run would join the line below and interleave the two.
    tall_box_sizes: float = doc_field(1.5, "font sizes: a taller loose box with a letter's ink gets a letter's extent")

    # Word breaks on a line pdfium gave no space to compare with (word_gaps.py): two clear groups of gaps.
    lone_word_gap_heights: float = doc_field(0.05, "glyph heights: word gaps stand this far above the typical gap")
    min_jump_heights: float = doc_field(0.04, "glyph heights: ... and this far above the widest letter gap")
    min_standout_heights: float = doc_field(0.05, "glyph heights: never a break closer to the line's letter gap")
    noise_spreads: float = doc_field(3.0, "median deviations: a break stands this far above the letter gaps' scatter")
    spaced_share: float = doc_field(0.5, "gap share: ... and at this share of the narrowest spaced gap on the line")
    min_letter_gaps: int = doc_field(3, "gaps: fewer unspaced pairs than this and the fixed limit decides")
    min_lone_gaps: int = doc_field(8, "gaps: a line without spaces is split from its own gaps with this many")

    # The trust verdict (reader.py): whether a page's text layer can replace OCR.
    min_chars: int = doc_field(40, "characters: fewer visible ones may be a scan with a stamp, or a figure page")
    min_scan_image_share: float = doc_field(0.5, "page area share: a page this covered by images may be a scan")
    min_chars_per_a4_over_scan: int = doc_field(800, "characters per A4 (500,000 pt2): ... and needs this much text")
    max_bad_share: float = doc_field(0.03, "character share: replacement, control and private-use ones, at most")
    min_alnum_share: float = doc_field(0.45, "character share: letters and digits among visible ones, at least")
    max_single_char_word_share: float = doc_field(0.45, 'word share: one-letter words ("T h e  q u i c k"), at most')
    max_long_word_share: float = doc_field(0.15, 'word share: words over 25 characters ("Thequickbrownfox"), at most')
    vowel_share_range: tuple[float, float] = doc_field((0.27, 0.6), "letter share: Latin text's vowels lie in this")
    max_fragment_share: float = doc_field(0.1, 'lower-case word share: broken-word pieces ("mo re to ugh"), at most')
    min_fragment_words: int = doc_field(50, "words: fewer lower-case words than this judge no broken words")
    rule_thickness: float = doc_field(2.5, "points: a path object this thin is a ruling line")

    # How many characters a page is read with (glyph_bounds.py): the repairs cost a dozen pdfium calls a character
    # (1-2 s at the bound), the densest page of ../shared/data holds about 12,000; past the second bound a page
    # (loose boxes, runs and the simple reading order at about 10 us a character) is cut, noted.
    max_repaired_glyphs: int = doc_field(100_000, "characters: a page of more is read with loose boxes, no repairs")
    max_page_chars: int = doc_field(250_000, "characters: the rest of a page past this many is left out")

    def __post_init__(self) -> None:
        check_values(
            self,
            shares=(
                "script_size_ratio",
                "drop_cap_size_ratio",
                "spaced_share",
                "min_scan_image_share",
                "max_bad_share",
                "min_alnum_share",
                "max_single_char_word_share",
                "max_long_word_share",
                "vowel_share_range",
                "max_fragment_share",
            ),
            # A line's letter gap is the median of at least one.
            positive=["min_letter_gaps"],
            ordered=[("word_gap_heights", "run_gap_heights"), ("max_repaired_glyphs", "max_page_chars")],
        )


# The documented defaults every text layer is read with (reading_params.READING_PARAMS holds them).
TEXT_LAYER_PARAMS = TextLayerParams()
