"""olmOCR parity of the request body and the strict reply parser."""

from __future__ import annotations

import base64
import hashlib
import re

import pytest

from ocr_pipeline.engines.vlm import prompts
from ocr_pipeline.engines.vlm.prompts import (
    GUIDED_REGEX,
    MAX_TOKENS,
    PROMPT_TEXT,
    PROMPT_VERSION,
    ReplyError,
    build_request,
    parse_content,
    parse_reply,
)
from tests.support.pages import draw_page
from tests.support.vlm_protocol import OLMOCR_PROMPT, OLMOCR_REGEX, RecordedRequest, build_reply

FRONT = (
    "primary_language: {lang}\nis_rotation_valid: True\nrotation_correction: 0\nis_table: False\nis_diagram: False\n"
)


def reply(content: str, finish: str = "stop", prompt: int = 1000, completion: int = 50) -> dict:
    usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    return {"choices": [{"message": {"content": content}, "finish_reason": finish}], "usage": usage}


def test_prompt_and_regex_match_olmocr_verbatim() -> None:
    assert PROMPT_TEXT == OLMOCR_PROMPT
    assert GUIDED_REGEX == OLMOCR_REGEX
    # olmOCR's own spelling, typo included: the model was trained on it.
    assert "Convert equations to LateX and tables to HTML.\n" in PROMPT_TEXT
    assert PROMPT_TEXT.startswith("Attached is one page of a document that you must process. ")
    assert hashlib.sha256(PROMPT_TEXT.encode()).hexdigest() == hashlib.sha256(OLMOCR_PROMPT.encode()).hexdigest()
    assert PROMPT_VERSION


@pytest.mark.parametrize(
    ("attempt", "temperature"),
    [(0, 0.1), (1, 0.1), (2, 0.2), (3, 0.3), (4, 0.5), (5, 0.8), (6, 0.9), (7, 1.0), (9, 1.0)],
)
def test_build_request_shape(attempt: int, temperature: float) -> None:
    png = draw_page(1, longest=200, lines=2)
    body = build_request(png, model="olmocr", attempt=attempt)
    assert set(body) == {"model", "messages", "max_tokens", "temperature"}
    assert body["model"] == "olmocr" and body["max_tokens"] == MAX_TOKENS == 8000
    assert body["temperature"] == temperature
    (message,) = body["messages"]
    assert message["role"] == "user"
    text_item, image_item = message["content"]  # prompt first, then the image, as olmOCR sends it
    assert text_item == {"type": "text", "text": PROMPT_TEXT}
    assert image_item["type"] == "image_url"
    url = image_item["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == png


def test_guided_regex_only_when_asked() -> None:
    png = draw_page(1, longest=200, lines=2)
    assert build_request(png, model="m", guided_decoding=True)["guided_regex"] == GUIDED_REGEX
    assert "guided_regex" not in build_request(png, model="m")


def test_guided_regex_accepts_the_reply_format() -> None:
    rec = RecordedRequest(index=0, page_key="k", width=900, height=1288, model="m")
    content = build_reply(rec, None, 0, "Hello world", "en")["choices"][0]["message"]["content"]
    assert re.fullmatch(GUIDED_REGEX, content)
    assert re.fullmatch(GUIDED_REGEX, "---\n" + FRONT.format(lang="null") + "---")


def test_parse_good_reply() -> None:
    page = parse_reply(reply("---\n" + FRONT.format(lang="en") + "---\n# Title\n\nBody text.\n", prompt=1700))
    assert page.text == "# Title\n\nBody text."
    assert page.primary_language == "en" and page.is_rotation_valid and page.rotation_correction == 0
    assert (page.input_tokens, page.output_tokens) == (1700, 50)


@pytest.mark.parametrize(("raw", "expected"), [("null", None), ("None", None), ("no", "no"), ("de", "de")])
def test_language_values(raw: str, expected: str | None) -> None:
    fields, text = parse_content("---\n" + FRONT.format(lang=raw) + "---")
    assert fields["primary_language"] == expected
    assert text == ""


@pytest.mark.parametrize(
    "content",
    [
        "Just the text, no front matter",
        "---\nprimary_language: en\n",  # never closed
        "---\n" + FRONT.format(lang="en").replace("is_diagram: False\n", "") + "---\ntext",  # missing key
        "---\n" + FRONT.format(lang="en") + "confidence: 0.9\n---\ntext",  # extra key
        "---\n" + FRONT.format(lang="en").replace("rotation_correction: 0", "rotation_correction: 45") + "---\n",
        "---\n" + FRONT.format(lang="en").replace("is_table: False", "is_table: maybe") + "---\n",
        "---\n: : [unbalanced\n---\ntext",
    ],
)
def test_bad_front_matter_is_a_failed_attempt(content: str) -> None:
    with pytest.raises(ReplyError) as info:
        parse_reply(reply(content))
    assert info.value.kind == "front_matter"


def test_finish_reason_and_context_limits() -> None:
    good = "---\n" + FRONT.format(lang="en") + "---\ntext"
    with pytest.raises(ReplyError) as info:
        parse_reply(reply(good, finish="length"))
    assert info.value.kind == "finish_reason"
    with pytest.raises(ReplyError) as info:
        parse_reply(reply(good, prompt=10000, completion=6385))
    assert info.value.kind == "context"
    assert parse_reply(reply(good, prompt=10000, completion=6384)).text == "text"
    with pytest.raises(ReplyError):
        parse_reply({"choices": []})


def test_the_prompt_version_follows_the_prompt_and_the_request_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    # The memo key holds PROMPT_VERSION: any change to what is sent must change it, without a hand-made bump.
    assert re.fullmatch(r"olmocr-v4-yaml-[0-9a-f]{12}", PROMPT_VERSION)
    assert prompts.prompt_version() == PROMPT_VERSION  # stable: the same module gives the same version
    changes = {
        "PROMPT_TEXT": PROMPT_TEXT.replace("LateX", "LaTeX"),
        "GUIDED_REGEX": GUIDED_REGEX + "?",
        "MAX_TOKENS": MAX_TOKENS + 1,
        "TEMPERATURE_BY_ATTEMPT": (0.0, *prompts.TEMPERATURE_BY_ATTEMPT[1:]),
        "MODEL_MAX_CONTEXT": prompts.MODEL_MAX_CONTEXT * 2,
    }
    seen = {PROMPT_VERSION}
    for name, value in changes.items():
        with monkeypatch.context() as patch:
            patch.setattr(prompts, name, value)
            version = prompts.prompt_version()
        assert version.startswith("olmocr-v4-yaml-") and version not in seen, name
        seen.add(version)
    assert prompts.prompt_version() == PROMPT_VERSION  # and back once the prompt is olmOCR's again
