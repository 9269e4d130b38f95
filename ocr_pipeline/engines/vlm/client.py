"""Async client for an OpenAI-compatible /v1/chat/completions endpoint: bounded, retrying, never exits."""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import random
import socket
import time
from dataclasses import dataclass
from typing import Any

import httpx

log = logging.getLogger(__name__)

# Statuses that say "try again later" rather than "this request is wrong".
RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})
# A reply of `max_tokens` tokens is at most this many bytes of JSON (a token is a few characters, a character
# at most six bytes escaped), with room for the envelope: anything longer is not a page's text.
BYTES_PER_TOKEN = 64
MIN_REPLY_BYTES = 256 * 1024
# Error bodies are only shown (truncated), never parsed: read this much of them at most.
ERROR_BODY_BYTES = 16 * 1024
# Connections per httpx pool. httpcore 1.0 scans its connections for every idle one on each request start and end
# (quadratic in the pool's size, with a getpeername call per connection): one pool of 64 cost 12 CPU-ms a request
# at 64 in flight, pools of 8 cost under 1. The client spreads its requests over as many pools as it needs.
CONNECTIONS_PER_POOL = 8


def reply_byte_cap(body: dict[str, Any]) -> int:
    """The most bytes a 200 reply to this request may have, from its `max_tokens`."""
    return max(MIN_REPLY_BYTES, int(body.get("max_tokens") or 8000) * BYTES_PER_TOKEN)


def redact(text: str, secret: str | None) -> str:
    """The text with the secret (an API key a server echoed back) masked."""
    return text.replace(secret, "***") if secret else text


class VlmClientError(Exception):
    """Base class of the errors the VLM client raises."""


class ServerNotReadyError(VlmClientError):
    """The server never answered GET /v1/models within the readiness timeout."""

    def __init__(self, message: str, url: str = "", cause: str = "") -> None:
        super().__init__(message)
        self.url, self.cause = url, cause


class ServerNotOpenAIError(ServerNotReadyError):
    """Something answers at the URL, but not an OpenAI-compatible model list (or it refuses the key)."""


class ServerUnavailableError(VlmClientError):
    """Connection errors or 429s outlasted every back-off retry: the server, not the page, is the problem."""


class ReplyTooLargeError(VlmClientError):
    """A 200 body grew past what `max_tokens` allows (an endless or runaway reply)."""


class RequestFailedError(VlmClientError):
    """The server answered, but not with a usable 200 (a 4xx, or 5xx/timeouts after every retry)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class BackoffPolicy:
    """Exponential back-off with jitter: delay n is base*2**n capped at max, scaled by 0.5-1.0."""

    base_s: float = 1.0
    max_s: float = 60.0
    max_retries: int = 8
    # A server's Retry-After is obeyed even past max_s (it knows its own load), up to this ceiling.
    retry_after_cap_s: float = 300.0

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number `retry` (0-based); a server's Retry-After wins if longer."""
        capped = min(self.max_s, self.base_s * (2**retry))
        # Equal jitter: spreads retries of many pages apart without ever collapsing the wait to zero.
        delay = capped * (0.5 + random.random() / 2)
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.retry_after_cap_s))
        return delay


def pool_sizes(max_concurrent_requests: int) -> list[int]:
    """Connections of each pool: as many pools of CONNECTIONS_PER_POOL as needed, as even as can be."""
    total = max(1, max_concurrent_requests)
    pools = -(-total // CONNECTIONS_PER_POOL)
    return [total // pools + (i < total % pools) for i in range(pools)]


def api_base(server: str) -> str:
    """The `.../v1` base of a server URL given with or without the /v1 suffix."""
    base = server.rstrip("/")
    if base.endswith("/v1") or base.endswith("/v1/openai"):
        return base
    return base + "/v1"


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or HTTP date), None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class VlmClient:
    """Sends chat-completion requests with at most `max_concurrent_requests` in flight at once."""

    def __init__(
        self,
        server: str,
        *,
        api_key: str | None = None,
        max_concurrent_requests: int = 64,
        request_timeout_s: float = 600.0,
        backoff: BackoffPolicy | None = None,
    ) -> None:
        self.base = api_base(server)
        self.completions_url = self.base + "/chat/completions"
        self.max_concurrent_requests = max_concurrent_requests
        self.backoff = backoff or BackoffPolicy()
        # The whole request, headers to last byte: a server trickling a byte at a time cannot hold a page for ever.
        self.request_timeout_s = request_timeout_s
        self._api_key = api_key
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        # A pool never makes anyone wait (each request holds one of its pool's slots first), so no pool timeout.
        timeout = httpx.Timeout(request_timeout_s, connect=min(30.0, request_timeout_s), pool=None)
        sizes = pool_sizes(max_concurrent_requests)
        # One TLS context for all the pools: each builds its own otherwise, ~30 ms of loading CA certificates.
        tls = httpx.create_ssl_context()
        self._pools = [
            httpx.AsyncClient(
                headers=headers,
                limits=httpx.Limits(max_connections=n, max_keepalive_connections=n),
                timeout=timeout,
                verify=tls,
            )
            for n in sizes
        ]
        # One token per request slot, naming the pool it belongs to, the pools interleaved so load spreads evenly.
        self._slots: asyncio.Queue[int] = asyncio.Queue()
        for _, shard in sorted((k, shard) for shard, n in enumerate(sizes) for k in range(n)):
            self._slots.put_nowait(shard)
        self.in_flight = 0
        self.stats = {"requests": 0, "retries": 0}

    async def __aenter__(self) -> VlmClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pools."""
        for pool in self._pools:
            await pool.aclose()

    def __repr__(self) -> str:  # never show the Authorization header
        return f"VlmClient({self.base!r}, max_concurrent_requests={self.max_concurrent_requests})"

    async def _post(self, pool: httpx.AsyncClient, body: dict[str, Any]) -> tuple[httpx.Response, bytes]:
        """One POST, its body streamed and capped: a 200 past `reply_byte_cap` raises, an error body is cut."""
        cap = reply_byte_cap(body)
        async with pool.stream("POST", self.completions_url, json=body) as response:
            limit = cap if response.status_code == 200 else ERROR_BODY_BYTES
            chunks, size = [], 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > limit:
                    if response.status_code == 200:
                        raise ReplyTooLargeError(f"200 reply longer than {cap} bytes (max_tokens allows no more)")
                    break
                chunks.append(chunk)
        return response, b"".join(chunks)

    async def chat_completion(self, body: dict[str, Any]) -> dict[str, Any]:
        """POST one body; retry transient failures with back-off; return the decoded 200 JSON."""
        retry = 0
        while True:
            retry_after: float | None = None
            shard = await self._slots.get()
            try:
                self.in_flight += 1
                self.stats["requests"] += 1
                try:
                    response, content = await asyncio.wait_for(
                        self._post(self._pools[shard], body), self.request_timeout_s
                    )
                    failure: Exception | None = None
                except asyncio.TimeoutError:
                    # Past the whole-request deadline (a trickling server): retried like any timeout.
                    failure = httpx.TimeoutException(f"no complete reply within {self.request_timeout_s:g}s")
                    response, content = None, b""
                except ReplyTooLargeError as exc:
                    raise RequestFailedError(str(exc), 200) from exc
                except httpx.TimeoutException as exc:
                    failure, response, content = exc, None, b""
                except (httpx.TransportError, OSError) as exc:
                    failure, response, content = exc, None, b""
                finally:
                    self.in_flight -= 1
            finally:
                self._slots.put_nowait(shard)
            if response is not None:
                if response.status_code == 200:
                    try:
                        return json.loads(content)
                    except ValueError as exc:
                        raise RequestFailedError(f"200 reply is not JSON: {exc}", 200) from exc
                if response.status_code not in RETRYABLE_STATUS:
                    text = redact(content.decode("utf-8", "replace")[:300], self._api_key)
                    raise RequestFailedError(f"HTTP {response.status_code}: {text}", response.status_code)
                retry_after = parse_retry_after(response.headers.get("retry-after"))
                failure_text = f"HTTP {response.status_code}"
            else:
                failure_text = f"{type(failure).__name__}: {failure}"
            if retry >= self.backoff.max_retries:
                message = f"{self.completions_url}: gave up after {retry + 1} tries, last: {failure_text}"
                # A server that answers 5xx or times out on this page may be choking on this page alone:
                # the engine then spends a page attempt. Refused connections and 429s are the server's state.
                if (response is not None and response.status_code != 429) or isinstance(
                    failure, httpx.TimeoutException
                ):
                    raise RequestFailedError(message, response.status_code if response else None)
                raise ServerUnavailableError(message)
            delay = self.backoff.delay(retry, retry_after)
            log.warning("VLM request failed (%s); retry %d in %.2fs", failure_text, retry + 1, delay)
            self.stats["retries"] += 1
            retry += 1
            await asyncio.sleep(delay)


def plain_cause(exc: BaseException) -> str:
    """A connection failure in a few words: connection refused, host not found, timed out."""
    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and len(chain) < 8:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    if any(isinstance(e, ConnectionRefusedError) for e in chain) or "connection attempts failed" in str(exc):
        return "connection refused"
    if any(isinstance(e, socket.gaierror) for e in chain) or "name or service not known" in str(exc).lower():
        return "host not found"
    if isinstance(exc, httpx.TimeoutException):
        return "no answer (timed out)"
    return f"{type(exc).__name__}: {exc}"


def _model_ids(response: httpx.Response, url: str) -> list[str]:
    """The model ids of a 200 GET /v1/models reply; ServerNotOpenAIError when it is not an OpenAI model list."""
    try:
        data = response.json().get("data")
        if not isinstance(data, list):
            raise ValueError("no 'data' list")
        return [m.get("id", "") for m in data]
    except (ValueError, AttributeError) as exc:
        cause = f"not an OpenAI-compatible server (GET /v1/models: {str(exc)[:80]})"
        raise ServerNotOpenAIError(f"VLM server at {url}: {cause}", url, cause) from exc


async def wait_for_server(
    server: str, timeout_s: float = 600.0, *, poll_s: float = 0.5, api_key: str | None = None
) -> list[str]:
    """Poll GET /v1/models until it answers 200; return the served model ids or raise ServerNotReadyError.

    Refused connections and 5xx are waited out (a server still loading); a 4xx or a 200 that is not an OpenAI
    model list is another service or a refused key, and fails at once with ServerNotOpenAIError.
    """
    url = api_base(server) + "/models"
    deadline = time.monotonic() + timeout_s
    last = "no answer yet"
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    timeout = httpx.Timeout(max(1.0, min(10.0, timeout_s)))
    async with httpx.AsyncClient(timeout=timeout, headers=headers) as http:
        while True:
            try:
                response = await http.get(url)
                if response.status_code == 200:
                    return _model_ids(response, url)
                if response.status_code in (401, 403):
                    cause = f"refused the API key (HTTP {response.status_code})"
                    raise ServerNotOpenAIError(f"VLM server at {url}: {cause}", url, cause)
                if 400 <= response.status_code < 500:
                    cause = f"not an OpenAI-compatible server (GET /v1/models: HTTP {response.status_code})"
                    raise ServerNotOpenAIError(f"VLM server at {url}: {cause}", url, cause)
                last = f"HTTP {response.status_code}"
            except (httpx.HTTPError, OSError) as exc:
                last = plain_cause(exc)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                message = f"VLM server at {url} was not ready after {timeout_s:g}s (last: {last})"
                raise ServerNotReadyError(message, url, last)
            await asyncio.sleep(min(poll_s, remaining))
