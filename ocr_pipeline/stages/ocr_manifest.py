"""The OCR stage's counts of one group (its manifest's columns: workspace/manifest_schemas.py)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class OcrResult:
    """Counts, tokens and speed of one group's OCR."""

    pages: int = 0
    memo_hits: int = 0
    # Pages read from their text layer by `route auto` (memo hits included), and pages the engine read in this run.
    routed_pages: int = 0
    engine_pages: int = 0
    fallback_pages: int = 0
    error_pages: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0
    languages: dict[str, int] = field(default_factory=dict)

    @property
    def pages_per_second(self) -> float:
        """Pages done per wall-clock second (memo hits included)."""
        return self.pages / self.seconds if self.seconds > 0 else 0.0
