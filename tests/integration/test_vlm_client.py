"""The async client against the fake server over real HTTP: bounds, back-off, readiness, auth."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator

import pytest

from ocr_pipeline.engines.vlm.client import (
    BackoffPolicy,
    RequestFailedError,
    ServerNotReadyError,
    ServerUnavailableError,
    VlmClient,
    api_base,
    parse_retry_after,
    pool_sizes,
    wait_for_server,
)
from ocr_pipeline.engines.vlm.prompts import build_request
from tests.support import Fault, VlmTestServer, draw_page
from tests.support.vlm_protocol import png_size

FAST = BackoffPolicy(base_s=0.01, max_s=0.05, max_retries=4)
PNG = draw_page(7, lines=3)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server() -> Iterator[VlmTestServer]:
    with VlmTestServer(model="m", key_by_histogram=False) as srv:
        yield srv


def call(url: str, body: dict | None = None, **kwargs: object) -> dict:
    async def go() -> dict:
        async with VlmClient(url, backoff=FAST, **kwargs) as client:  # type: ignore[arg-type]  # options vary
            return await client.chat_completion(body or build_request(PNG, model="m"))

    return asyncio.run(go())


def test_ok_and_bearer_token_sent() -> None:
    with VlmTestServer(model="m", api_key="s3cret") as srv:
        reply = call(srv.url, api_key="s3cret")
        assert reply["choices"][0]["finish_reason"] == "stop"
        assert srv.requests[0].authorization == "Bearer s3cret"
        assert srv.violations == []
        # A wrong key is a 4xx: not retried, surfaced at once.
        with pytest.raises(RequestFailedError) as info:
            call(srv.url, api_key="wrong")
        assert info.value.status == 401
        assert [r.status for r in srv.requests] == [200, 401]
        assert "s3cret" not in repr(VlmClient(srv.url, api_key="s3cret"))


@pytest.mark.parametrize("fault", [Fault("status", status=503), Fault("status", status=500), Fault("drop")])
def test_transient_failures_are_retried(server: VlmTestServer, fault: Fault) -> None:
    server.schedule = lambda index, key, n: fault if index < 2 else None
    assert call(server.url)["choices"][0]["finish_reason"] == "stop"
    assert [r.fault for r in server.requests] == [fault.kind, fault.kind, None]


def test_retry_after_is_honoured(server: VlmTestServer) -> None:
    server.schedule = lambda index, key, n: Fault("429", retry_after=0.4) if index == 0 else None
    call(server.url)
    first, second = server.requests
    assert first.status == 429 and second.status == 200
    assert second.started - first.finished >= 0.38


def test_timeout_is_retried(server: VlmTestServer) -> None:
    # The slow reply would take 5 s; the client gives up on it at 0.3 s and retries (margin for a busy CI box).
    server.schedule = lambda index, key, n: Fault("slow", delay_s=5.0) if index == 0 else None
    start = time.monotonic()
    call(server.url, request_timeout_s=0.3)
    assert time.monotonic() - start < 3.0
    assert len(server.requests) == 2


def test_persistent_5xx_is_a_request_failure(server: VlmTestServer) -> None:
    server.schedule = lambda index, key, n: Fault("status", status=500)
    with pytest.raises(RequestFailedError):
        call(server.url)
    assert len(server.requests) == FAST.max_retries + 1


def test_refused_connections_mean_server_unavailable() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(ServerUnavailableError) as info:
        call(url)
    assert url in str(info.value)


def test_in_flight_bounded_by_semaphore() -> None:
    with VlmTestServer(service_time_s=0.05, key_by_histogram=False) as srv:

        async def go() -> None:
            async with VlmClient(srv.url, max_concurrent_requests=3, backoff=FAST) as client:
                body = build_request(PNG, model="m")
                await asyncio.gather(*(client.chat_completion(body) for _ in range(12)))

        asyncio.run(go())
        assert srv.max_in_flight == 3
        assert len(srv.completed()) == 12


def test_requests_spread_over_small_pools_keep_the_bound() -> None:
    # 20 slots are three pools (7, 7, 6): every slot is used at once, never one more.
    assert pool_sizes(20) == [7, 7, 6] and pool_sizes(64) == [8] * 8 and pool_sizes(3) == [3]
    with VlmTestServer(service_time_s=0.1, key_by_histogram=False) as srv:

        async def go() -> None:
            async with VlmClient(srv.url, max_concurrent_requests=20, backoff=FAST) as client:
                body = build_request(PNG, model="m")
                await asyncio.gather(*(client.chat_completion(body) for _ in range(60)))
                assert client.in_flight == 0 and client._slots.qsize() == 20

        asyncio.run(go())
        assert srv.max_in_flight == 20
        assert len(srv.completed()) == 60


def test_capacity_queues_the_rest() -> None:
    with VlmTestServer(capacity=2, service_time_s=0.1, key_by_histogram=False) as srv:

        async def go() -> None:
            async with VlmClient(srv.url, max_concurrent_requests=8, backoff=FAST) as client:
                body = build_request(PNG, model="m")
                await asyncio.gather(*(client.chat_completion(body) for _ in range(6)))

        start = time.monotonic()
        asyncio.run(go())
        assert srv.max_in_flight == 2
        assert time.monotonic() - start >= 0.29  # three rounds of 0.1 s


def test_wait_for_server_ready_and_never_ready(server: VlmTestServer) -> None:
    assert asyncio.run(wait_for_server(server.url, 2)) == ["m"]
    server.models_status = 503
    with pytest.raises(ServerNotReadyError, match=r"http://127\.0\.0\.1:\d+/v1/models"):
        asyncio.run(wait_for_server(server.url, 0.3, poll_s=0.05))
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(ServerNotReadyError) as info:
        asyncio.run(wait_for_server(url, 0.3, poll_s=0.05))
    assert f"{url}/models" in str(info.value) and "not ready" in str(info.value)


def test_helpers() -> None:
    assert api_base("http://h:1") == "http://h:1/v1"
    assert api_base("http://h:1/v1/") == "http://h:1/v1"
    assert api_base("https://api.deepinfra.com/v1/openai") == "https://api.deepinfra.com/v1/openai"
    assert parse_retry_after("2.5") == 2.5
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    policy = BackoffPolicy(base_s=1, max_s=8)
    assert all(0.5 <= policy.delay(0) <= 1 for _ in range(50))
    assert all(4 <= policy.delay(10) <= 8 for _ in range(50))
    assert policy.delay(0, retry_after=5) == 5
    assert png_size(PNG) == (911, 1288)
