"""Test doubles usable from tests and benchmarks: an OpenAI-compatible fake VLM server and synthetic pages."""

from ocr_pipeline.testing.pages import draw_page, marker_correction, page_input
from ocr_pipeline.testing.vlm_protocol import Fault, RecordedRequest, page_key
from ocr_pipeline.testing.vlm_server import VlmTestServer

__all__ = [
    "Fault",
    "RecordedRequest",
    "VlmTestServer",
    "draw_page",
    "marker_correction",
    "page_input",
    "page_key",
]
