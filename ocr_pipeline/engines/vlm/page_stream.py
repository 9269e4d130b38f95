"""Pages sent to the VLM server as they render: a background event loop the render loop hands pages to."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future

from ocr_pipeline.engines.vlm.client import VlmClientError
from ocr_pipeline.engines.vlm.vlm_engine import VlmEngine
from ocr_pipeline.records import PageInput, PageResult

# Page images queued beyond the server's slots, in bytes, for all the streams of this process together (the
# CLI overlaps several groups' streams): past it a page is left for its group's OCR step to send, so rendering
# never waits on the server (its time limits stay honest) and memory stays bounded however many groups overlap.
DEFAULT_QUEUE_BYTES = 256 * 2**20


class QueueBudget:
    """Bytes of page images the streams sharing it may hold at once."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes, self.used = max_bytes, 0
        self._lock = threading.Lock()

    def take(self, size: int) -> bool:
        """Reserve `size` bytes; False when that would pass the budget."""
        with self._lock:
            if self.used + size > self.max_bytes:
                return False
            self.used += size
            return True

    def give(self, size: int) -> None:
        """Return bytes taken earlier."""
        with self._lock:
            self.used -= size


PROCESS_QUEUE_BUDGET = QueueBudget(DEFAULT_QUEUE_BYTES)


class PageStream:
    """Sends offered pages through a VlmEngine on its own thread; results are kept by (content hash, page)."""

    def __init__(
        self,
        engine: VlmEngine,
        on_result: Callable[[PageResult], object] | None = None,
        budget: QueueBudget = PROCESS_QUEUE_BUDGET,
    ) -> None:
        self.engine, self.on_result, self.budget = engine, on_result, budget
        self.results: dict[tuple[str, int], PageResult] = {}
        self.accepted = self.refused = 0
        self.failure: BaseException | None = None
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._futures: list[Future[None]] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="vlm-page-stream", daemon=True)
        self._thread.start()

    def offer(self, page: PageInput) -> bool:
        """Queue the page for the server; False when the queue is full or the server failed (the caller sends it)."""
        size = len(page.png or b"")
        with self._lock:
            if self.failure is not None or not self.budget.take(size):
                self.refused += 1
                return False
            self.accepted += 1
        self._futures.append(asyncio.run_coroutine_threadsafe(self._one(page, size), self._loop))
        return True

    async def _one(self, page: PageInput, size: int) -> None:
        try:
            if self.failure is not None:
                return  # the server already failed: the OCR step sends this page and reports the cause
            result = await self.engine.aocr_page(page)
        except VlmClientError as exc:
            # A server-level failure: the page stays unanswered, the OCR step meets (and reports) the same cause.
            self.failure = exc
            return
        finally:
            self.budget.give(size)
        if self.on_result is not None:
            self.on_result(result)
        self.results[(result.source_hash, result.page_num)] = result

    def wait(self) -> dict[tuple[str, int], PageResult]:
        """Block until every accepted page has its answer (or was given up), then close the loop."""
        for future in self._futures:
            future.result()
        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(self.engine.aclose(), self._loop).result()
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()
        return self.results

    @property
    def seconds(self) -> float:
        """Seconds since the stream opened."""
        return time.monotonic() - self.started
