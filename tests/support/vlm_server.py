"""An OpenAI-compatible fake of a vLLM olmOCR server: real HTTP, parity checks, fault injection, capacity."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PIL import Image

from tests.support.canary_oracle import canary_answers
from tests.support.pages import marker_correction
from tests.support.request_gate import RequestGate
from tests.support.vlm_protocol import (
    Fault,
    RecordedRequest,
    build_reply,
    default_text,
    hist_key,
    validate_request,
)

__all__ = ["Fault", "RecordedRequest", "VlmTestServer", "main"]


class VlmTestServer:
    """Serves GET /v1/models and POST /v1/chat/completions on 127.0.0.1 in a background thread."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        model: str | None = None,
        api_key: str | None = None,
        expect_guided: bool | None = None,
        longest_side: int = 1288,
        capacity: int | None = None,
        service_time_s: float = 0.0,
        text_for: Callable[[str], str] | Mapping[str, str] | None = None,
        faults: Mapping[str, Sequence[Fault | None]] | None = None,
        schedule: Callable[[int, str, int], Fault | None] | None = None,
        check_rotation_marker: bool = False,
        key_by_histogram: bool = True,
        language: str | None = "en",
        hold_until_requests: int | None = None,
        hold_timeout_s: float = 30.0,
        canary_right: bool = True,
    ) -> None:
        self.host, self.port, self.model, self.api_key = host, port, model, api_key
        self.expect_guided, self.longest_side = expect_guided, longest_side
        self.capacity, self.service_time_s = capacity, service_time_s
        self.text_for, self.faults, self.schedule = text_for, dict(faults or {}), schedule
        self.check_rotation_marker, self.key_by_histogram, self.language = (
            check_rotation_marker,
            key_by_histogram,
            language,
        )
        self.canary_right = canary_right  # False: canary pages get text_for's (or the default) answer too
        self.models_status = 200  # set to 503 to look "still loading"
        self.models_calls = 0
        # Each completion waits (before a slot) until this many arrived in all, or hold_timeout_s: see RequestGate.
        self.gate = RequestGate(hold_until_requests, hold_timeout_s) if hold_until_requests else None
        self.requests: list[RecordedRequest] = []
        self.in_flight = self.max_in_flight = 0
        # Wall-clock (time.time) marks and slot-seconds, for benchmarks in another process (GET /stats).
        self.first_request_at: float | None = None
        self.last_reply_at: float | None = None
        self.busy_slot_s = 0.0
        self._page_counts: Counter[str] = Counter()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.base_events.Server | None = None
        self._slots: asyncio.Semaphore | None = None

    @property
    def url(self) -> str:
        """Base URL, e.g. http://127.0.0.1:PORT (clients append /v1/...)."""
        return f"http://{self.host}:{self.port}"

    @property
    def violations(self) -> list[tuple[int, str]]:
        """Every parity violation seen, as (request index, message)."""
        return [(r.index, v) for r in self.requests for v in r.violations]

    @property
    def holds_timed_out(self) -> int:
        """Completion requests whose hold at the gate timed out (0 without a gate)."""
        return self.gate.timed_out if self.gate else 0

    def completed(self) -> list[RecordedRequest]:
        """Requests answered 200."""
        return [r for r in self.requests if r.status == 200]

    # -- lifecycle ---------------------------------------------------------------------------------
    def start(self) -> VlmTestServer:
        """Start serving in a daemon thread; returns once the port is bound."""
        ready = threading.Event()
        self._loop = asyncio.new_event_loop()

        def run() -> None:
            asyncio.set_event_loop(self._loop)
            self._slots = asyncio.Semaphore(self.capacity) if self.capacity else None
            self._server = self._loop.run_until_complete(
                asyncio.start_server(self._handle, self.host, self.port, backlog=1024)
            )
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, name="vlm-test-server", daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        """Close the listening socket and every open connection, then end the thread."""
        if not self._loop or not self._thread:
            return

        async def shutdown() -> None:
            assert self._server is not None
            self._server.close()
            for task in [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]:
                task.cancel()

        asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._thread = None

    def __enter__(self) -> VlmTestServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def serve_forever(self) -> None:
        """Start and block until interrupted (for the CLI)."""
        self.start()
        print(f"READY {self.url}", flush=True)
        try:
            while self._thread and self._thread.is_alive():
                time.sleep(0.5)
        except KeyboardInterrupt:
            self.stop()

    # -- HTTP --------------------------------------------------------------------------------------
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                line = await reader.readline()
                if not line:
                    return
                method, path = line.decode("latin-1").split(" ")[:2]
                headers: dict[str, str] = {}
                while (h := await reader.readline()) not in (b"\r\n", b"\n", b""):
                    k, _, v = h.decode("latin-1").partition(":")
                    headers[k.strip().lower()] = v.strip()
                size = int(headers.get("content-length") or 0)
                body = await reader.readexactly(size) if size else b""
                answer = await self._dispatch(method, path.split("?")[0], headers, body)
                if answer is None:  # injected dropped connection: no status line at all
                    writer.transport.abort()
                    return
                status, payload, extra = answer
                data = json.dumps(payload).encode()
                head = f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n"
                head += f"Content-Length: {len(data)}\r\n"
                head += "".join(f"{k}: {v}\r\n" for k, v in extra.items()) + "\r\n"
                writer.write(head.encode("latin-1") + data)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, ValueError, asyncio.CancelledError):
            writer.transport.abort()
        finally:
            writer.close()

    async def _dispatch(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, Any, dict[str, str]] | None:
        if method == "GET" and path == "/v1/models":
            self.models_calls += 1
            data = [{"id": self.model or "olmocr", "object": "model", "max_model_len": 16384}]
            return self.models_status, {"object": "list", "data": data}, {}
        if method == "POST" and path == "/v1/chat/completions":
            return await self._complete(headers, body)
        if method == "GET" and path == "/stats":
            return 200, self.stats(), {}
        return 404, {"error": {"message": f"no route {method} {path}"}}, {}

    def stats(self) -> dict[str, Any]:
        """Completions served, wall-clock first request and last reply, slot-seconds, model lists, timed-out holds."""
        return {
            "requests": len(self.requests),
            "completed": len(self.completed()),
            "first_request_at": self.first_request_at,
            "last_reply_at": self.last_reply_at,
            "busy_slot_s": self.busy_slot_s,
            "capacity": self.capacity,
            "service_time_s": self.service_time_s,
            "models_calls": self.models_calls,
            "holds_timed_out": self.holds_timed_out,
        }

    def _text(self, key: str) -> str:
        if isinstance(self.text_for, Mapping):
            text = self.text_for.get(key)
        else:
            text = self.text_for(key) if self.text_for is not None else None
        if text is None and self.canary_right:
            # The canary's pages are read right, as a right model reads them; a test of a wrong model says so.
            text = canary_answers().get(key)
        return default_text(key) if text is None else text

    async def _complete(self, headers: dict[str, str], body: bytes) -> tuple[int, Any, dict[str, str]] | None:
        rec = RecordedRequest(index=len(self.requests), authorization=headers.get("authorization"))
        self.requests.append(rec)
        if self.gate:
            self.gate.arrive()
        if self.first_request_at is None:
            self.first_request_at = time.time()
        rec.started = time.monotonic()
        try:
            return await self._complete_recorded(rec, body)
        finally:
            rec.finished = time.monotonic()

    async def _complete_recorded(self, rec: RecordedRequest, body: bytes) -> tuple[int, Any, dict[str, str]] | None:
        if self.api_key and rec.authorization != f"Bearer {self.api_key}":
            rec.status = 401
            return 401, {"error": {"message": "invalid or missing bearer token"}}, {}
        try:
            req = json.loads(body)
            png = validate_request(
                rec, req, model=self.model, expect_guided=self.expect_guided, longest_side=self.longest_side
            )
        except ValueError:
            rec.violations.append("body is not JSON")
            png = None
        image = None
        if png is not None and (self.key_by_histogram or self.check_rotation_marker):
            image = await asyncio.to_thread(lambda: Image.open(io.BytesIO(png)).convert("L"))
        if rec.violations:
            rec.status = 400
            return 400, {"error": {"message": "; ".join(rec.violations)}}, {}
        assert png is not None
        rec.page_key = hist_key(image) if image is not None and self.key_by_histogram else rec.image_sha
        rec.page_request = self._page_counts[rec.page_key]
        self._page_counts[rec.page_key] += 1
        planned = self.faults.get(rec.page_key, ())
        fault = planned[rec.page_request] if rec.page_request < len(planned) else None
        if fault is None and self.schedule is not None:
            fault = self.schedule(rec.index, rec.page_key, rec.page_request)
        rec.fault = fault.kind if fault else None
        # Errors a busy server gives at the door, before a batch slot is spent.
        if fault and fault.kind == "429":
            rec.status = 429
            extra = {"Retry-After": f"{fault.retry_after:g}"} if fault.retry_after is not None else {}
            return 429, {"error": {"message": "too many requests"}}, extra
        if fault and fault.kind == "status":
            rec.status = fault.status
            return fault.status, {"error": {"message": f"injected {fault.status}"}}, {}
        if self.gate:
            await self.gate.hold()
        if self._slots is not None:
            await self._slots.acquire()
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        slot_taken = time.monotonic()
        try:
            await asyncio.sleep(self.service_time_s + (fault.delay_s if fault else 0.0))
            if fault and fault.kind == "drop":
                return None
            rotation = fault.correction if fault and fault.kind == "rotate" else 0
            if self.check_rotation_marker and image is not None:
                rec.marker_correction = marker_correction(image)
                rotation = rotation or (rec.marker_correction or 0)
            rec.status = 200
            # In a thread: the first miss renders the canary's pages (canary_oracle), which must not stall the loop.
            text = await asyncio.to_thread(self._text, rec.page_key)
            return 200, build_reply(rec, fault, rotation, text, self.language), {}
        finally:
            self.busy_slot_s += time.monotonic() - slot_taken
            self.last_reply_at = time.time()
            self.in_flight -= 1
            if self._slots is not None:
                self._slots.release()


def main(argv: Sequence[str] | None = None) -> None:
    """CLI: python -m tests.support.vlm_server --port 8000 --capacity 16 --service-time 0.05."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--model", default=None, help="required model name (default: accept any)")
    p.add_argument("--api-key", default=None)
    p.add_argument("--capacity", type=int, default=None, help="requests served at once; the rest queue")
    p.add_argument("--service-time", type=float, default=0.0, help="seconds each request holds a slot")
    p.add_argument("--text-from", default=None, help="JSON file mapping page key to reply text")
    p.add_argument("--key-by-bytes", action="store_true", help="key pages by PNG hash (cheaper, not rotation-safe)")
    p.add_argument("--check-rotation-marker", action="store_true")
    args = p.parse_args(argv)
    text_for = None
    if args.text_from:
        with open(args.text_from, encoding="utf-8") as f:
            text_for = json.load(f)
    VlmTestServer(
        host=args.host,
        port=args.port,
        model=args.model,
        api_key=args.api_key,
        capacity=args.capacity,
        service_time_s=args.service_time,
        text_for=text_for,
        key_by_histogram=not args.key_by_bytes,
        check_rotation_marker=args.check_rotation_marker,
    ).serve_forever()


if __name__ == "__main__":
    main()
