"""The VLM engine page by page against the fake server: every fault, rotation, fallback, just-in-time rendering."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from ocr_pipeline.engines.vlm import BackoffPolicy, ServerUnavailableError, VlmEngine
from ocr_pipeline.engines.vlm.client import VlmClient
from ocr_pipeline.engines.vlm.prompts import build_request, temperature_for
from ocr_pipeline.records import PageInput, PageResult
from tests.support import Fault, VlmTestServer, page_input, page_key
from tests.support.builders.pdfgen import SENTENCES
from tests.support.vlm_answers import GERMAN, RUSSIAN
from tests.support.vlm_protocol import default_text

FAST = BackoffPolicy(base_s=0.01, max_s=0.05, max_retries=3)
MODEL = "allenai/olmOCR-2-7B-1025-FP8"


@pytest.fixture
def server() -> Iterator[VlmTestServer]:
    with VlmTestServer(model=MODEL, api_key="k", expect_guided=True, check_rotation_marker=True) as srv:
        yield srv


def engine(srv: VlmTestServer, **kwargs: object) -> VlmEngine:
    opts: dict = {"api_key": "k", "guided_decoding": True, "backoff": FAST, **kwargs}
    return VlmEngine(srv.url, MODEL, **opts)


def run(srv: VlmTestServer, pages: list[PageInput], **kwargs: object) -> dict[int, PageResult]:
    results: list[PageResult] = []

    async def go() -> None:
        async with engine(srv, **kwargs) as eng:
            await eng.run_pages([lambda p=p: p for p in pages], results.append)

    asyncio.run(go())
    assert len(results) == len(pages)
    return {r.page_num: r for r in results}


def requests_for(srv: VlmTestServer, page: PageInput) -> list:
    key = page_key(page.png or b"")
    return [r for r in srv.requests if r.page_key == key]


def test_clean_pages_parity_and_tokens(server: VlmTestServer) -> None:
    pages = [page_input(i) for i in range(1, 4)]
    results = run(server, pages)
    assert server.violations == []
    for page in pages:
        result = results[page.page_num]
        (req,) = requests_for(server, page)
        assert not result.is_fallback and result.attempts == 1 and result.error is None
        assert result.text.startswith(f"# Page {req.page_key}")
        assert result.primary_language == "en" and result.engine == "vlm" and result.model == MODEL
        assert result.input_tokens == 120 + math.ceil(page.width / 28) * math.ceil(page.height / 28)
        assert result.output_tokens > 40
        assert req.temperature == 0.1 and req.guided_regex and req.authorization == "Bearer k"


# (fault plan for the page, expected attempts, expected temperatures of the requests)
RECOVERED = {
    "garbage_yaml": ([Fault("garbage"), Fault("garbage")], 3, [0.1, 0.1, 0.2]),
    "finish_length": ([Fault("length")], 2, [0.1, 0.1]),
    "missing_key": ([Fault("missing_key")], 2, [0.1, 0.1]),
    "over_context": ([Fault("over_context")], 2, [0.1, 0.1]),
    # transport-level faults are retried with back-off and cost no page attempt
    "http_500": ([Fault("status", status=500), Fault("status", status=502)], 1, [0.1, 0.1, 0.1]),
    "http_429": ([Fault("429", retry_after=0.05)], 1, [0.1, 0.1]),
    "dropped": ([Fault("drop")], 1, [0.1, 0.1]),
    "slow": ([Fault("slow", delay_s=0.2)], 1, [0.1]),
}


@pytest.mark.parametrize("case", sorted(RECOVERED))
def test_fault_then_success(server: VlmTestServer, case: str) -> None:
    plan, attempts, temperatures = RECOVERED[case]
    faulty, clean = page_input(11, text_layer="layer"), page_input(12)
    server.faults = {page_key(faulty.png or b""): plan}
    results = run(server, [faulty, clean])
    assert server.violations == []
    assert results[faulty.page_num].is_fallback is False
    assert results[faulty.page_num].attempts == attempts
    assert [r.temperature for r in requests_for(server, faulty)] == temperatures
    assert results[clean.page_num].attempts == 1 and not results[clean.page_num].is_fallback


def test_exhausted_attempts_fall_back_to_text_layer(server: VlmTestServer) -> None:
    bad, good = page_input(21, text_layer="the PDF's own text"), page_input(22, text_layer="unused")
    server.faults = {page_key(bad.png or b""): [Fault("garbage")] * 8}
    results = run(server, [bad, good])
    fallback = results[bad.page_num]
    assert fallback.is_fallback and fallback.text == "the PDF's own text"
    assert fallback.attempts == 8 and "front_matter" in (fallback.error or "")
    assert fallback.primary_language is None and fallback.engine == "vlm"
    assert [r.temperature for r in requests_for(server, bad)] == [0.1, 0.1, 0.2, 0.3, 0.5, 0.8, 0.9, 1.0]
    assert not results[good.page_num].is_fallback


def test_max_page_retries_is_respected(server: VlmTestServer) -> None:
    bad = page_input(23, text_layer="t")
    server.faults = {page_key(bad.png or b""): [Fault("length")] * 8}
    result = run(server, [bad], max_page_retries=3)[bad.page_num]
    assert result.is_fallback and result.attempts == 3 and len(requests_for(server, bad)) == 3


@pytest.mark.parametrize(("turned", "correction"), [(90, 270), (180, 180), (270, 90)])
def test_rotation_invalid_page_is_turned_and_retried(server: VlmTestServer, turned: int, correction: int) -> None:
    page = page_input(31, turned=turned)
    result = run(server, [page])[page.page_num]
    first, second = requests_for(server, page)
    assert first.marker_correction == correction  # the server saw the page sideways
    assert second.marker_correction == 0  # the retry carried the page upright
    assert (second.width, second.height) == (
        (first.height, first.width) if turned != 180 else (first.width, first.height)
    )
    assert result.rotation_correction == correction and result.is_rotation_valid and result.attempts == 2
    assert not result.is_fallback


def test_cumulative_rotation_and_last_attempt_kept(server: VlmTestServer) -> None:
    page = page_input(32, turned=0)
    # The model keeps asking for 90 more: corrections add up (90, 180, 270, 0) and the last reply is kept.
    server.faults = {page_key(page.png or b""): [Fault("rotate", correction=90)] * 8}
    result = run(server, [page], max_page_retries=4)[page.page_num]
    assert [r.marker_correction for r in requests_for(server, page)] == [0, 270, 180, 90]
    assert not result.is_fallback and result.attempts == 4 and result.is_rotation_valid is False


def test_page_without_image_falls_back() -> None:
    with VlmTestServer() as srv:
        page = PageInput("h", 1, None, text_layer="text only")
        result = run(srv, [page])[1]
        assert result.is_fallback and result.text == "text only" and srv.requests == []


def test_server_down_raises_instead_of_silent_fallback() -> None:
    srv = VlmTestServer().start()
    srv.stop()
    with pytest.raises(ServerUnavailableError):
        run(srv, [page_input(41)])


def test_pages_rendered_just_in_time() -> None:
    with VlmTestServer(capacity=2, service_time_s=0.02, key_by_histogram=False) as srv:
        lock = threading.Lock()
        state = {"rendered": 0, "done": 0, "peak_alive": 0}

        def factory(i: int) -> PageInput:
            with lock:
                state["rendered"] += 1
                state["peak_alive"] = max(state["peak_alive"], state["rendered"] - state["done"])
            return page_input(i, lines=2)

        def on_result(result: PageResult) -> None:
            with lock:
                state["done"] += 1

        async def go() -> None:
            async with VlmEngine(srv.url, "m", max_concurrent_requests=2, read_ahead=1, backoff=FAST) as eng:
                await eng.run_pages((lambda i=i: factory(i) for i in range(40)), on_result)

        asyncio.run(go())
        assert state["done"] == 40 and srv.violations == []
        assert state["peak_alive"] <= 3  # request slots + read-ahead, however many pages wait
        assert srv.max_in_flight == 2


# -- degenerate answers: parsed fine, yet no transcription -------------------------------------------------------
LOOP = "The committee met again and adjourned. " * 150  # a loop olmOCR models fall into, well under max_tokens
ENGLISH = " ".join(SENTENCES)  # an English page's text layer, long enough to judge an answer's language by
OPEN_TABLE = "<table><tr><td>Year</td><td>Total</td></tr><tr><td>2019</td><td>4"  # cut inside a table


class BadFirst:
    """Answers `bad` for a page's first `times` replies and olmOCR-like default text after (a stateful text_for)."""

    def __init__(self, bad: str, times: int) -> None:
        self.bad, self.times = bad, times
        self.calls: Counter[str] = Counter()
        self.lock = threading.Lock()  # the server answers from its own thread

    def __call__(self, key: str) -> str:
        with self.lock:
            self.calls[key] += 1
            return self.bad if self.calls[key] <= self.times else default_text(key)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every body the engine hands its client, copied as it was at send time (httpx serialises that dict)."""
    bodies: list[dict[str, Any]] = []
    original = VlmClient.chat_completion

    async def recording(self: VlmClient, body: dict[str, Any]) -> dict[str, Any]:
        bodies.append(json.loads(json.dumps(body)))
        return await original(self, body)

    monkeypatch.setattr(VlmClient, "chat_completion", recording)
    return bodies


@pytest.mark.parametrize(
    ("bad", "times", "reason"),
    [
        (LOOP, 1, "repetition loop"),
        (LOOP, 2, "repetition loop"),
        (GERMAN, 1, "wrong language: de, the text layer's en"),
        (RUSSIAN, 2, "wrong language: cyrillic script, the text layer's latin"),
    ],
)
def test_a_degenerate_answer_is_retried_at_the_next_temperature(
    server: VlmTestServer, sent: list[dict[str, Any]], bad: str, times: int, reason: str
) -> None:
    # The page's own words, trusted: what the answer's language is judged against.
    page = dataclasses.replace(page_input(51, text_layer=ENGLISH), text_layer_trusted=True)
    server.text_for = BadFirst(bad, times)
    result = run(server, [page])[page.page_num]
    assert server.violations == []
    requests = requests_for(server, page)
    assert not result.is_fallback and result.error is None
    assert result.text == default_text(requests[-1].page_key)  # the good answer, not the loop
    assert result.attempts == times + 1 and len(requests) == times + 1
    assert [r.temperature for r in requests] == [temperature_for(a) for a in range(times + 1)]
    assert result.extra["retried_for"] == [reason] * times
    # Each retry is olmOCR's request for that attempt, byte for byte, exactly as after a failed parse.
    for attempt, body in enumerate(sent):
        expected = build_request(page.png or b"", model=MODEL, attempt=attempt, guided_decoding=True)
        assert json.dumps(body) == json.dumps(expected)


def test_another_language_is_kept_without_a_trusted_layer(server: VlmTestServer) -> None:
    # An untrusted layer (a scan's hidden OCR, broken encodings) is no evidence of the page's language.
    page = page_input(55, text_layer=ENGLISH)
    server.text_for = BadFirst(GERMAN, 1)
    result = run(server, [page])[page.page_num]
    assert not result.is_fallback and result.attempts == 1 and result.text == GERMAN


def test_an_answer_ending_inside_a_table_is_kept_not_retried(server: VlmTestServer) -> None:
    # A page can end inside a table or formula that runs on to the next one: flagged by the signals, never retried.
    page = page_input(54, text_layer="layer")
    server.text_for = BadFirst(OPEN_TABLE, 1)
    result = run(server, [page])[page.page_num]
    assert not result.is_fallback and result.attempts == 1 and result.text == OPEN_TABLE
    assert result.extra["retried_for"] == []


def test_a_page_that_loops_on_every_attempt_falls_back_flagged(server: VlmTestServer) -> None:
    looping, good = page_input(52, text_layer="the PDF's own text"), page_input(53)
    server.text_for = lambda key: LOOP if key == page_key(looping.png or b"") else default_text(key)
    results = run(server, [looping, good])
    fallback = results[looping.page_num]
    assert fallback.is_fallback and fallback.text == "the PDF's own text" and fallback.attempts == 8
    assert fallback.error == "attempt 8: degenerate answer: repetition loop"
    assert fallback.extra["retried_for"] == ["repetition loop"] * 8
    assert [r.temperature for r in requests_for(server, looping)] == [temperature_for(a) for a in range(8)]
    assert not results[good.page_num].is_fallback and results[good.page_num].attempts == 1


def test_a_normal_page_is_sent_once_with_olmocrs_first_request(
    server: VlmTestServer, sent: list[dict[str, Any]]
) -> None:
    page = page_input(54)
    result = run(server, [page])[page.page_num]
    assert server.violations == []
    assert not result.is_fallback and result.attempts == 1 and result.extra["retried_for"] == []
    (body,) = sent
    expected = build_request(page.png or b"", model=MODEL, attempt=0, guided_decoding=True)
    assert json.dumps(body) == json.dumps(expected)
