"""What a right model answers on the shipped canary pages: each page's reference Markdown, by server page key.

The test VLM server falls back on these for a page its test gave no text for, so every test server reads the
canary's pages right (as a right model does) unless a test tells it otherwise. The pages are rendered with the
canary's own code (ocr_pipeline.canary.evaluate.render_pages), so the keys are those of the images it sends.
"""

from __future__ import annotations

import threading
from pathlib import Path

from ocr_pipeline.canary.bench_set import load_bench_set, shipped_tests_file
from ocr_pipeline.canary.evaluate import render_pages
from ocr_pipeline.settings import DEFAULT_TARGET_LONGEST_IMAGE_DIM
from tests.support.vlm_protocol import bytes_key, page_key

_lock = threading.Lock()
_answers: dict[int, dict[str, str]] = {}


def reference_answers() -> dict[str, str]:
    """Each canary page's reference Markdown by page name (<pdf stem>_pg1)."""
    folder = shipped_tests_file().parent / "reference"
    return {f"{path.stem}_pg1": path.read_text(encoding="utf-8") for path in sorted(folder.glob("*.md"))}


def canary_answers(target_dim: int = DEFAULT_TARGET_LONGEST_IMAGE_DIM) -> dict[str, str]:
    """Reference Markdown keyed by both server keys of each rendered canary page (histogram and PNG hash)."""
    with _lock:  # the server asks from worker threads; the pages are rendered once per process
        if target_dim not in _answers:
            bench = load_bench_set(shipped_tests_file())
            inputs, _ = render_pages(bench, target_dim)
            references = reference_answers()
            answers: dict[str, str] = {}
            for page, rendered in inputs.items():
                assert rendered.png is not None
                text = references[f"{Path(page.pdf).stem}_pg{page.page}"]
                answers[page_key(rendered.png)] = text
                answers[bytes_key(rendered.png)] = text
            _answers[target_dim] = answers
        return _answers[target_dim]
