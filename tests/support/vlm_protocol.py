"""The request rules and reply format the fake VLM server checks and speaks (olmOCR parity, independently)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import struct
import time
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from tests.support.vlm_answers import TOKEN_LIMIT, failure_answer

OLMOCR_PROMPT = (
    "Attached is one page of a document that you must process. Just return the plain text representation "
    "of this document as if you were reading it naturally. Convert equations to LateX and tables to HTML.\n"
    "If there are any figures or charts, label them with the following markdown syntax ![Alt text describing "
    "the contents of the figure](page_startx_starty_width_height.png)\nReturn your output as markdown, "
    "with a front matter section on top specifying values for the primary_language, is_rotation_valid, "
    "rotation_correction, is_table, and is_diagram parameters."
)
OLMOCR_REGEX = (
    "---\\nprimary_language: (?:[a-z]{2}|null)\\nis_rotation_valid: (?:True|False|true|false)\\n"
    "rotation_correction: (?:0|90|180|270)\\nis_table: (?:True|False|true|false)\\n"
    "is_diagram: (?:True|False|true|false)\\n(?:---|---\\n[\\s\\S]+)"
)
ALLOWED_TEMPERATURES = (0.1, 0.2, 0.3, 0.5, 0.8, 0.9, 1.0)
ALLOWED_KEYS = {"model", "messages", "max_tokens", "temperature", "guided_regex", "structured_outputs"}
FAULT_KINDS = ("status", "429", "slow", "drop", "garbage", "length", "missing_key", "over_context", "rotate")
# The model's own failures (tests/support/vlm_answers.py): a well-formed reply whose text is not the page's.
MODEL_FAILURES = (
    "loop", "truncated", "language", "blank_text", "unrelated", "line_loop", "block_loop", "repeated_paragraph",
    "invented",
)  # fmt: skip


@dataclass(frozen=True)
class Fault:
    """One injected misbehaviour for one request; see FAULT_KINDS."""

    kind: str
    status: int = 503
    retry_after: float | None = None
    delay_s: float = 0.0
    correction: int = 90
    language: str = "de"  # "language": the answer's language, "de" or "ru"
    finish: str = "length"  # "loop": the finish_reason (a loop stopped by the token limit, or one the model ended)

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS + MODEL_FAILURES:
            raise ValueError(f"unknown fault kind {self.kind!r}; one of {FAULT_KINDS + MODEL_FAILURES}")


@dataclass
class RecordedRequest:
    """What the server saw and did for one chat-completion request."""

    index: int
    page_key: str = ""
    page_request: int = 0  # how many earlier requests carried the same page
    temperature: float | None = None
    model: str | None = None
    authorization: str | None = None
    guided_regex: bool = False
    width: int = 0
    height: int = 0
    image_sha: str = ""
    marker_correction: int | None = None
    fault: str | None = None
    status: int | None = None
    violations: list[str] = field(default_factory=list)
    started: float = 0.0
    finished: float = 0.0


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk without decoding it; raises ValueError if not a PNG."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    return struct.unpack(">II", png[16:24])


def page_key(png: bytes) -> str:
    """A rotation-invariant page identity: the hash of the decoded pixel histogram."""
    with Image.open(io.BytesIO(png)) as img:
        return hist_key(img.convert("L"))


def default_text(key: str) -> str:
    """Deterministic page text derived from the page key."""
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
    body = " ".join(words[int(c, 16) % len(words)] for c in key)
    return f"# Page {key}\n\n{body}.\n\nThe quick brown fox jumps over the lazy dog."


def bytes_key(png: bytes) -> str:
    """The key of a page by its PNG bytes (the server's --key-by-bytes: cheaper, not rotation-safe)."""
    return hashlib.sha1(png).hexdigest()[:16]


def hist_key(image: Image.Image) -> str:
    """The rotation-invariant key of a decoded greyscale image."""
    return hashlib.sha1(repr(image.histogram()).encode()).hexdigest()[:16]


def validate_request(
    rec: RecordedRequest, req: Any, *, model: str | None, expect_guided: bool | None, longest_side: int
) -> bytes | None:
    """Check one request against olmOCR's format; fills rec.violations, returns the PNG when readable."""
    v = rec.violations
    if not isinstance(req, dict):
        v.append("body is not a JSON object")
        return None
    if extra := set(req) - ALLOWED_KEYS:
        v.append(f"unexpected body keys {sorted(extra)}")
    rec.model, rec.temperature = req.get("model"), req.get("temperature")
    if model is not None and rec.model != model:
        v.append(f"model {rec.model!r} != {model!r}")
    if req.get("max_tokens") != 8000:
        v.append(f"max_tokens {req.get('max_tokens')!r} != 8000")
    if rec.temperature not in ALLOWED_TEMPERATURES:
        v.append(f"temperature {rec.temperature!r} not in {ALLOWED_TEMPERATURES}")
    rec.guided_regex = "guided_regex" in req
    if rec.guided_regex and req["guided_regex"] != OLMOCR_REGEX:
        v.append("guided_regex differs from olmOCR's")
    # Current vLLM only honours `structured_outputs`: guided requests must carry both spellings.
    structured = req.get("structured_outputs")
    if rec.guided_regex and structured != {"regex": OLMOCR_REGEX}:
        v.append("structured_outputs.regex missing or differs from olmOCR's regex")
    if structured is not None and not rec.guided_regex:
        v.append("structured_outputs sent without guided_regex")
    if expect_guided is not None and rec.guided_regex != expect_guided:
        v.append(f"guided_regex present={rec.guided_regex}, expected {expect_guided}")
    messages = req.get("messages")
    if not (isinstance(messages, list) and len(messages) == 1 and isinstance(messages[0], dict)):
        v.append("messages must be exactly one user message")
        return None
    content = messages[0].get("content")
    if messages[0].get("role") != "user" or not isinstance(content, list) or len(content) != 2:
        v.append("the message must be role=user with a [text, image_url] content list")
        return None
    if content[0] != {"type": "text", "text": OLMOCR_PROMPT}:
        v.append("first content item is not olmOCR's build_no_anchoring_v4_yaml_prompt text")
    url = (content[1].get("image_url") or {}).get("url", "") if content[1].get("type") == "image_url" else ""
    if not url.startswith("data:image/png;base64,"):
        v.append("second content item is not a data:image/png;base64 image_url")
        return None
    try:
        png = base64.b64decode(url[len("data:image/png;base64,") :], validate=True)
        rec.width, rec.height = png_size(png)
    except (binascii.Error, ValueError, struct.error):
        v.append("image is not a base64 PNG")
        return None
    if max(rec.width, rec.height) != longest_side:
        v.append(f"image longest side {max(rec.width, rec.height)} != {longest_side}")
    rec.image_sha = bytes_key(png)
    return png


def build_reply(
    rec: RecordedRequest, fault: Fault | None, rotation: int, text: str, language: str | None
) -> dict[str, Any]:
    """olmOCR's reply for one page: front matter, text, realistic usage; shaped by the fault if any."""
    failure = failure_answer(fault.kind, text, fault.language) if fault else None
    if failure is not None:
        text, language = failure
    lang = language or "null"
    front = f"primary_language: {lang}\nis_rotation_valid: {rotation == 0}\nrotation_correction: {rotation}\n"
    front += "is_table: False\n" + ("" if fault and fault.kind == "missing_key" else "is_diagram: False\n")
    content = f"---\n{front}---\n{text}"
    if fault and fault.kind == "garbage":
        content = "Sure! Here is the page:\n" + text
    # Qwen2.5-VL spends one token per 28x28 patch, plus the prompt's ~120 tokens.
    prompt_tokens = 120 + -(-rec.width // 28) * -(-rec.height // 28)
    completion_tokens = 40 + len(text) // 4
    # Cut at max_tokens: the server's own word, as vLLM reports it.
    cut = fault is not None and (
        fault.kind in ("length", "truncated") or (fault.kind == "loop" and fault.finish == "length")
    )
    if cut:
        completion_tokens = TOKEN_LIMIT
    if fault and fault.kind == "over_context":
        completion_tokens = 16384
    finish = "length" if cut else "stop"
    return {
        "id": f"chatcmpl-{rec.index}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": rec.model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }
