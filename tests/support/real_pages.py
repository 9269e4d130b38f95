"""Real page texts with no model loop in them: pdf-parse-bench ground truth and olmOCR-Bench old-scan answers.

Used to show the quality signals flag nothing on honest pages (the false-positive rate) and to time them.
"""

from __future__ import annotations

import json
from pathlib import Path

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def real_page_texts() -> list[tuple[str, str]]:
    """(name, text) of every ground-truth page found under ../shared/data; [] where the data is absent."""
    pages: list[tuple[str, str]] = []
    for path in sorted((SHARED_DATA / "pdf-parse-bench").glob("*/ground_truth/*.json")):
        blocks = json.loads(path.read_text(encoding="utf-8"))
        text = "\n\n".join(str(b.get("data", "")) for b in blocks if isinstance(b, dict))
        pages.append((f"{path.parent.parent.name}/{path.stem}", text))
    for path in sorted((SHARED_DATA / "olmocr-bench-history").glob("*/*/*.md")):
        pages.append((str(path.relative_to(SHARED_DATA)), path.read_text(encoding="utf-8")))
    return pages
