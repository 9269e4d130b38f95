"""Truncation: whether an answer was cut off, by the server's word or by how its text ends.

olmOCR's replies are Markdown with HTML tables and LaTeX (`$$ ... $$`, `\\[ ... \\]`): an answer cut at the token
limit often stops inside one of them. Text that simply ends mid-sentence is normal (the sentence goes on on the
next page), so ending inside a word is recorded but does not count as truncated on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_OPEN_TABLE = re.compile(r"<table\b", re.IGNORECASE)
_CLOSE_TABLE = re.compile(r"</table\s*>", re.IGNORECASE)
# Display-math brackets, not `\\[3pt]` (a LaTeX line break with spacing, common inside tables and arrays).
_OPEN_BRACKET = re.compile(r"(?<!\\)\\\[")
_CLOSE_BRACKET = re.compile(r"(?<!\\)\\\]")
# A last line this long that ends in a letter reads as prose stopped mid-word, not as a heading or page number.
PROSE_LINE_MIN = 40


@dataclass(frozen=True)
class Truncation:
    """How an answer ends: the server's finish_reason, open structures, and the verdict."""

    finish_reason: str | None  # the last reply's, when the engine has one (the VLM engine; None for the CPU one)
    open_table: bool  # more <table> than </table>
    open_formula: bool  # an odd number of $$, or more \[ than \]
    ends_mid_word: bool  # the last line is prose ending in a letter, without punctuation
    truncated: bool  # finish_reason "length", or an open table or formula


def truncation(text: str, finish_reason: str | None) -> Truncation:
    """Judge the end of a page's text; `truncated` when the server says so or a table or formula stays open."""
    open_table = len(_OPEN_TABLE.findall(text)) > len(_CLOSE_TABLE.findall(text))
    open_formula = text.count("$$") % 2 == 1 or len(_OPEN_BRACKET.findall(text)) > len(_CLOSE_BRACKET.findall(text))
    stripped = text.rstrip()
    last_line = stripped.rsplit("\n", 1)[-1]
    ends_mid_word = bool(stripped) and stripped[-1].isalpha() and len(last_line) >= PROSE_LINE_MIN
    truncated = finish_reason == "length" or open_table or open_formula
    return Truncation(finish_reason, open_table, open_formula, ends_mid_word, truncated)
