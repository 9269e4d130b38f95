"""The OCR engine contract shared by the CPU and VLM engines, and the memo key that names their results."""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Protocol

from ocr_pipeline.records import PageInput, PageResult


class PageEngine(Protocol):
    """Reads one page; never raises for a page-level failure (returns a fallback result instead)."""

    name: str
    model: str

    def ocr_page(self, page: PageInput) -> PageResult:
        """The page's text and attributes."""


def result_settings_key(engine_name: str, model: str, prompt_version: str, target_dim: int) -> str:
    """A short digest of everything that shapes a page result besides the page itself (memo key part)."""
    payload = json.dumps(
        {"engine": engine_name, "model": model, "prompt": prompt_version, "dim": target_dim}, sort_keys=True
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


@functools.lru_cache(maxsize=1)
def make_cpu_engine() -> PageEngine:
    """The embedded CPU engine, one per process: its ONNX models load once, not once per partition."""
    # Imported here to save start-up time: RapidOCR and onnxruntime load only where the CPU engine runs.
    from ocr_pipeline.engines.cpu import CpuEngine

    return CpuEngine()
