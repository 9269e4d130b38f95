"""What a page yields about whether its text layer can stand in for the model: measured once, when it is read.

The page rows carry it as JSON (`route_evidence`), so the decision (decide.py) can be made again with other
parameters without reading the PDF again, and the manifest can show why each page went where it went.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any


@dataclass(frozen=True)
class RouteEvidence:
    """One page's evidence, from its text layer, its PDF objects, its rendered pixels and its layout."""

    # (a) the layer: the reader's trust verdict, characters no font maps, and words of a language
    trusted: bool = False
    trust_reason: str = ""
    bad_chars: int = 0  # replacement, private-use and control characters, and (cid:NN) codes
    words: int = 0  # words of two letters or more
    language: str | None = None  # the language whose function words were counted (None: no list for it)
    function_word_share: float = 0.0
    # (b) the ink: text drawn invisibly (a scanner's OCR layer), images, raster text outside the layer's glyphs
    invisible_chars: int = 0
    image_share: float = 0.0
    ink_pixels: int = 0
    uncovered_ink_pixels: int = 0
    raster_text_lines: int = 0
    # (c) the layout: tables and formulas the reader wrote, lines it kept at the page's edges, bounds that fired
    tables: int = 0
    formulas: int = 0
    # Kept lines near the top or bottom edge (edges.edge_candidates: text, y, gap, width), judged by decide.py.
    edge_lines: list[dict[str, Any]] = field(default_factory=list)
    layout_notes: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        """The evidence as the page row stores it."""
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | None) -> RouteEvidence | None:
        """The stored evidence, or None where the row has none (read without routing, or before the column)."""
        if not text:
            return None
        data: dict[str, Any] = json.loads(text)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})
