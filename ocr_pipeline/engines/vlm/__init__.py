"""The vision-language-model OCR engine: olmOCR-exact requests to any OpenAI-compatible server."""

from ocr_pipeline.engines.vlm.client import (
    BackoffPolicy,
    RequestFailedError,
    ServerNotReadyError,
    ServerUnavailableError,
    VlmClient,
    VlmClientError,
    wait_for_server,
)
from ocr_pipeline.engines.vlm.prompts import (
    GUIDED_REGEX,
    PROMPT_TEXT,
    PROMPT_VERSION,
    PageReply,
    ReplyError,
    build_request,
    parse_reply,
)
from ocr_pipeline.engines.vlm.vlm_engine import VlmEngine, rotate_png

__all__ = [
    "GUIDED_REGEX",
    "PROMPT_TEXT",
    "PROMPT_VERSION",
    "BackoffPolicy",
    "PageReply",
    "ReplyError",
    "RequestFailedError",
    "ServerNotReadyError",
    "ServerUnavailableError",
    "VlmClient",
    "VlmClientError",
    "VlmEngine",
    "build_request",
    "parse_reply",
    "rotate_png",
    "wait_for_server",
]
