"""olmOCR's request and reply format: prompt text, guided regex, request body builder, strict reply parser."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

import yaml

# olmOCR's build_no_anchoring_v4_yaml_prompt(), verbatim: the model was fine-tuned on exactly this text.
PROMPT_TEXT = (
    "Attached is one page of a document that you must process. "
    "Just return the plain text representation of this document as if you were reading it naturally. "
    "Convert equations to LateX and tables to HTML.\n"
    "If there are any figures or charts, label them with the following markdown syntax "
    "![Alt text describing the contents of the figure](page_startx_starty_width_height.png)\n"
    "Return your output as markdown, with a front matter section on top specifying values for the "
    "primary_language, is_rotation_valid, rotation_correction, is_table, and is_diagram parameters."
)

# olmOCR's guided-decoding regex (pipeline.py), verbatim: vLLM constrains the front matter to it.
GUIDED_REGEX = (
    r"---\nprimary_language: (?:[a-z]{2}|null)\nis_rotation_valid: (?:True|False|true|false)\n"
    r"rotation_correction: (?:0|90|180|270)\nis_table: (?:True|False|true|false)\n"
    r"is_diagram: (?:True|False|true|false)\n(?:---|---\n[\s\S]+)"
)

MAX_TOKENS = 8000
MODEL_MAX_CONTEXT = 16384
# Later attempts sample hotter to escape the repetition loops that end in finish_reason "length".
TEMPERATURE_BY_ATTEMPT = (0.1, 0.1, 0.2, 0.3, 0.5, 0.8, 0.9, 1.0)
FRONT_MATTER_KEYS = ("primary_language", "is_rotation_valid", "rotation_correction", "is_table", "is_diagram")
VALID_ROTATIONS = (0, 90, 180, 270)


class ReplyError(ValueError):
    """A reply the model gave that cannot be used: the attempt counts as failed and is retried."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind


@dataclass(frozen=True)
class PageReply:
    """One parsed model reply: the front matter, the page text and the token usage."""

    primary_language: str | None
    is_rotation_valid: bool
    rotation_correction: int
    is_table: bool
    is_diagram: bool
    text: str
    input_tokens: int
    output_tokens: int


def temperature_for(attempt: int) -> float:
    """The sampling temperature for a 0-based attempt number (the last value repeats)."""
    return TEMPERATURE_BY_ATTEMPT[min(max(attempt, 0), len(TEMPERATURE_BY_ATTEMPT) - 1)]


def build_request(png: bytes, *, model: str, attempt: int = 0, guided_decoding: bool = False) -> dict[str, Any]:
    """The /v1/chat/completions body olmOCR sends for one page image: prompt first, then the PNG."""
    image_url = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    body: dict[str, Any] = {
        "model": model,
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": PROMPT_TEXT},
                    {"type": "image_url", "image_url": {"url": image_url}},
                ],
            }
        ],
        "max_tokens": MAX_TOKENS,
        "temperature": temperature_for(attempt),
    }
    if guided_decoding:
        # vLLM before 0.11 reads `guided_regex`; 0.11+ reads `structured_outputs` and ignores the old field
        # (seen on 0.32: "output will NOT be constrained"). Each version ignores the field it does not know.
        body["guided_regex"] = GUIDED_REGEX
        body["structured_outputs"] = {"regex": GUIDED_REGEX}
    return body


# The readable part of PROMPT_VERSION: olmOCR's prompt family (build_no_anchoring_v4_yaml_prompt).
PROMPT_FAMILY = "olmocr-v4-yaml"


def prompt_version() -> str:
    """`olmocr-v4-yaml-<hash>`: a digest of every request this module builds and of the reply limits it applies.

    It is part of the page-memo key, so a change to the prompt, the regex, the sampling or the body's shape
    re-requests every page instead of mixing replies to two different requests; no one has to remember a bump.
    """
    # The bodies for every attempt, with and without guided decoding, minus the page and the model (both keyed
    # separately): exactly the bytes this module decides.
    bodies = [
        build_request(b"", model="", attempt=attempt, guided_decoding=guided)
        for attempt in range(len(TEMPERATURE_BY_ATTEMPT))
        for guided in (False, True)
    ]
    reading = {"max_context": MODEL_MAX_CONTEXT, "keys": FRONT_MATTER_KEYS, "rotations": VALID_ROTATIONS}
    shaping = json.dumps({"requests": bodies, "reply": reading}, sort_keys=True)
    return f"{PROMPT_FAMILY}-{hashlib.sha256(shaping.encode()).hexdigest()[:12]}"


PROMPT_VERSION = prompt_version()


# libyaml's safe loader where PyYAML was built with it: the same YAML 1.1 reading as SafeLoader at an eighth of the
# CPU (0.025 against 0.2 ms a reply), which every page's reply pays.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _as_bool(key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise ReplyError("front_matter", f"{key} must be true or false, got {value!r}")


def _language(raw_front_matter: str, value: Any) -> str | None:
    # YAML 1.1 reads a bare `no` (Norwegian) or `on` as a boolean; olmOCR then loses the language.
    # Recover the literal token from the raw line instead.
    if isinstance(value, bool):
        m = re.search(r"^primary_language:\s*(\S+)\s*$", raw_front_matter, re.MULTILINE)
        return m.group(1).strip("'\"") if m else None
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none", "null")):
        return None
    if not isinstance(value, str):
        raise ReplyError("front_matter", f"primary_language must be a string or null, got {value!r}")
    return value.strip()


def parse_content(content: str) -> tuple[dict[str, Any], str]:
    """Split `---\\n<yaml>\\n---\\n<text>` into its fields and text; strict about the five keys."""
    if not content.startswith("---\n"):
        raise ReplyError("front_matter", "reply does not start with a '---' front matter block")
    end = content.find("\n---", 4)
    if end == -1:
        raise ReplyError("front_matter", "front matter block is not closed by '---'")
    raw = content[4:end]
    text = content[end + 4 :].strip()
    try:
        data = yaml.load(raw, Loader=_SAFE_LOADER) or {}
    except yaml.YAMLError as exc:
        raise ReplyError("front_matter", f"front matter is not valid YAML: {' '.join(str(exc).split())}") from exc
    if not isinstance(data, dict):
        raise ReplyError("front_matter", "front matter is not a mapping")
    missing = [k for k in FRONT_MATTER_KEYS if k not in data]
    extra = sorted(str(k) for k in data if k not in FRONT_MATTER_KEYS)
    if missing or extra:
        raise ReplyError("front_matter", f"missing keys {missing}, unexpected keys {extra}")
    rotation = data["rotation_correction"]
    if isinstance(rotation, str) and rotation.strip().isdigit():
        rotation = int(rotation)
    if isinstance(rotation, bool) or rotation not in VALID_ROTATIONS:
        raise ReplyError("front_matter", f"rotation_correction must be one of {VALID_ROTATIONS}")
    fields = {
        "primary_language": _language(raw, data["primary_language"]),
        "is_rotation_valid": _as_bool("is_rotation_valid", data["is_rotation_valid"]),
        "rotation_correction": int(rotation),
        "is_table": _as_bool("is_table", data["is_table"]),
        "is_diagram": _as_bool("is_diagram", data["is_diagram"]),
    }
    return fields, text


def parse_reply(response: dict[str, Any], *, max_context: int = MODEL_MAX_CONTEXT) -> PageReply:
    """Parse a chat-completions JSON reply into a PageReply; raise ReplyError when it is unusable."""
    try:
        choice = response["choices"][0]
        content = choice["message"]["content"]
        usage = response.get("usage") or {}
    except (KeyError, IndexError, TypeError) as exc:
        raise ReplyError("malformed", f"reply lacks choices[0].message.content: {exc!r}") from exc
    input_tokens = int(usage.get("prompt_tokens") or 0)
    output_tokens = int(usage.get("completion_tokens") or 0)
    total = int(usage.get("total_tokens") or input_tokens + output_tokens)
    # Both checks come from olmOCR: a truncated or over-long generation is not a page transcription.
    if total > max_context:
        raise ReplyError("context", f"usage.total_tokens {total} exceeds the model context {max_context}")
    if choice.get("finish_reason") != "stop":
        raise ReplyError("finish_reason", f"finish_reason is {choice.get('finish_reason')!r}, not 'stop'")
    if not isinstance(content, str):
        raise ReplyError("malformed", "message content is not a string")
    fields, text = parse_content(content)
    return PageReply(**fields, text=text, input_tokens=input_tokens, output_tokens=output_tokens)
