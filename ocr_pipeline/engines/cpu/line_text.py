"""Repairs of the recogniser's line text that hold for any scan, whatever its words.

PP-OCR's recogniser is trained mostly on text where a comma or full stop is set tight against the next word, so on
typewritten and printed English it often drops the space after punctuation ("you,and", "here.We"). A comma or
semicolon is followed by a space before a word in running text; a full stop, colon, question or exclamation mark
before a capitalised word (a capital then a small letter) ends a sentence or an abbreviation ("Hon.Theodore"),
both of which a space follows. Digits ("1,000", "3.5", "10:30") and runs of initials ("U.S.A.") are left alone.
"""

from __future__ import annotations

import re

# A comma or semicolon glued to the letter after it.
_COMMA = re.compile(r"(?<=\w)([,;])(?=[^\W\d_])")
# A stop glued to a capitalised word: capital then small letter, so initials and acronyms stay as they are.
_STOP = re.compile(r"(?<=[^\W\d_]{2})([.:!?])(?=[^\W\d_a-z][a-z])")


def space_after_punctuation(text: str) -> str:
    """`text` with the space the recogniser dropped after a comma, semicolon or sentence stop put back."""
    return _STOP.sub(r"\1 ", _COMMA.sub(r"\1 ", text))
