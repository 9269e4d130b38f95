"""Every VLM request is bounded in time and bytes: a trickling and an endless server only cost a page fallback."""

from __future__ import annotations

import asyncio
import time

import pytest

from ocr_pipeline.engines.vlm.client import BackoffPolicy, RequestFailedError, VlmClient
from ocr_pipeline.engines.vlm.prompts import build_request
from ocr_pipeline.engines.vlm.vlm_engine import VlmEngine
from ocr_pipeline.records import PageInput
from tests.support import draw_page
from tests.support.hostile_http import HostileServer

FAST = BackoffPolicy(base_s=0.01, max_s=0.05, max_retries=1)
PAGE = PageInput("h" * 64, 1, draw_page(3, lines=2), text_layer="the text layer")


def _ocr(url: str, timeout_s: float) -> tuple[object, float]:
    engine = VlmEngine(url, "m", max_page_retries=2, request_timeout_s=timeout_s, backoff=FAST)

    async def go() -> object:
        async with engine:
            return await engine.aocr_page(PAGE)

    start = time.monotonic()
    result = asyncio.run(go())
    return result, time.monotonic() - start


def test_a_trickling_server_hits_the_whole_request_deadline() -> None:
    # One byte every 0.2 s never trips a per-read timeout; the 1 s deadline covers the whole request.
    with HostileServer("trickle", interval_s=0.2) as server:
        result, elapsed = _ocr(server.url, timeout_s=1.0)
    assert result.is_fallback and result.text == "the text layer"  # type: ignore[attr-defined]  # a PageResult
    assert "no complete reply within 1s" in result.error  # type: ignore[attr-defined]  # as above
    assert server.connections == 4  # 2 page attempts x (1 try + 1 retry)
    assert elapsed < 60  # generous: the bound, not a speed, is what is tested


def test_an_endless_body_is_cut_at_the_size_max_tokens_allows() -> None:
    with HostileServer("endless") as server:
        result, _ = _ocr(server.url, timeout_s=120.0)
    assert result.is_fallback and "longer than" in result.error  # type: ignore[attr-defined]  # as above
    # max_tokens 8000 allows 512 KiB; the client stopped reading near there (socket buffers aside).
    assert server.sent_bytes < 64 * 1024 * 1024


def test_a_server_echoing_the_api_key_never_gets_it_stored() -> None:
    async def go() -> None:
        async with VlmClient(server.url, api_key="sk-very-secret", backoff=FAST) as client:
            await client.chat_completion(build_request(PAGE.png or b"", model="m"))

    with HostileServer("echo_401", secret_echo="sk-very-secret") as server, pytest.raises(RequestFailedError) as info:
        asyncio.run(go())
    assert "sk-very-secret" not in str(info.value) and "***" in str(info.value)
