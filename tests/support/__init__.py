"""Test doubles usable from tests and benchmarks: an OpenAI-compatible fake VLM server and synthetic pages."""

from __future__ import annotations

from importlib import import_module
from typing import Any

# Imported lazily so `python -m tests.support.vlm_server` does not find itself half-imported.
_EXPORTS = {
    "Fault": "vlm_protocol",
    "RecordedRequest": "vlm_protocol",
    "page_key": "vlm_protocol",
    "VlmTestServer": "vlm_server",
    "draw_page": "pages",
    "marker_correction": "pages",
    "page_input": "pages",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Resolve the public names on first use."""
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
