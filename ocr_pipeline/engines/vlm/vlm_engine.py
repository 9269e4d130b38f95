"""The VLM OCR engine: olmOCR's per-page retry loop against an OpenAI server, pages rendered just in time."""

from __future__ import annotations

import asyncio
import io
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from PIL import Image

from ocr_pipeline.engines.vlm.answer_judge import AnswerJudge
from ocr_pipeline.engines.vlm.client import BackoffPolicy, RequestFailedError, VlmClient
from ocr_pipeline.engines.vlm.prompts import PROMPT_VERSION, ReplyError, build_request, parse_reply
from ocr_pipeline.records import PageInput, PageResult
from ocr_pipeline.settings import DEFAULT_MAX_PAGE_RETRIES

log = logging.getLogger(__name__)

# olmOCR turns the image with PIL's ROTATE_<correction> for a reply's rotation_correction; the model was
# trained against that pipeline, so the same mapping is kept here.
_TRANSPOSE = {
    90: Image.Transpose.ROTATE_90,
    180: Image.Transpose.ROTATE_180,
    270: Image.Transpose.ROTATE_270,
}


def rotate_png(png: bytes, degrees: int) -> bytes:
    """The PNG turned as olmOCR turns it for a rotation_correction of `degrees` (0 returns it unchanged)."""
    if degrees % 360 == 0:
        return png
    with Image.open(io.BytesIO(png)) as img:
        out = io.BytesIO()
        img.transpose(_TRANSPOSE[degrees % 360]).save(out, format="PNG")
    return out.getvalue()


class VlmEngine:
    """OCR engine that reads each page with a vision-language model served over the OpenAI API."""

    name = "vlm"

    def __init__(
        self,
        server: str,
        model: str,
        api_key: str | None = None,
        max_page_retries: int = DEFAULT_MAX_PAGE_RETRIES,
        guided_decoding: bool = False,
        max_concurrent_requests: int = 64,
        request_timeout_s: float = 600.0,
        backoff: BackoffPolicy | None = None,
        read_ahead: int | None = None,
    ) -> None:
        self.server = server
        self.model = model
        self._api_key = api_key  # kept private and out of repr/logs
        self.max_page_retries = max(1, max_page_retries)
        self.guided_decoding = guided_decoding
        self.max_concurrent_requests = max_concurrent_requests
        self.request_timeout_s = request_timeout_s
        self.backoff = backoff or BackoffPolicy()
        # Pages rendered ahead of a free request slot, so the server never waits on rendering.
        self.read_ahead = read_ahead if read_ahead is not None else max(2, max_concurrent_requests // 4)
        self.prompt_version = PROMPT_VERSION
        self._client: VlmClient | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return f"VlmEngine(server={self.server!r}, model={self.model!r})"

    def _get_client(self) -> VlmClient:
        # httpx connections belong to one event loop: a new loop (another asyncio.run) needs a new client.
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            self._client = VlmClient(
                self.server,
                api_key=self._api_key,
                max_concurrent_requests=self.max_concurrent_requests,
                request_timeout_s=self.request_timeout_s,
                backoff=self.backoff,
            )
            self._client_loop = loop
        return self._client

    async def aclose(self) -> None:
        """Close the HTTP connections (call from the loop that used them)."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def __aenter__(self) -> VlmEngine:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def _fallback(self, page: PageInput, error: str, attempts: int, started: float, **extra: Any) -> PageResult:
        return PageResult(
            source_hash=page.source_hash,
            page_num=page.page_num,
            text=page.text_layer,
            engine=self.name,
            model=self.model,
            is_fallback=True,
            attempts=attempts,
            error=error,
            elapsed_s=time.monotonic() - started,
            extra=dict(extra, prompt_version=self.prompt_version),
        )

    def _withheld(
        self, page: PageInput, attempts: int, started: float, errors: list[str], retried_for: list[str], **extra: Any
    ) -> PageResult:
        """The page without the model's answers, judged degenerate: its text layer (none), no error, not a fallback."""
        log.warning("page %s/%d: answers withheld: %s", page.source_hash, page.page_num, retried_for[-1])
        return PageResult(
            source_hash=page.source_hash,
            page_num=page.page_num,
            text=page.text_layer,
            engine=self.name,
            model=self.model,
            attempts=attempts,
            elapsed_s=time.monotonic() - started,
            extra=dict(extra, prompt_version=self.prompt_version, retry_reasons=errors, retried_for=retried_for,
                       withheld=retried_for[-1]),
        )  # fmt: skip

    async def aocr_page(self, page: PageInput) -> PageResult:
        """Read one page, retrying as olmOCR does; falls back to the text layer instead of raising.

        A reply that parses but is degenerate (a repetition loop, a duplicated paragraph, cut at the token limit,
        more text than the page's print holds, another language than the trusted text layer: see
        quality.degenerate) counts as a failed attempt too; `extra["retried_for"]` lists each such reason. Invented
        text costs at most INVENTED_TEXT_ATTEMPTS attempts, after which the page is answered without it
        (`extra["withheld"]`): it holds next to no print, so there is nothing to lose.
        """
        started = time.monotonic()
        if not page.png:
            return self._fallback(page, "no page image to send", 0, started)
        client = self._get_client()
        rotation = 0  # cumulative correction applied to the image so far
        errors: list[str] = []
        judge = AnswerJudge(page)  # one reason per attempt whose reply parsed but was degenerate
        spent_in = spent_out = 0
        finish: str | None = None  # the last reply's finish_reason, for the page's truncation signal
        for attempt in range(self.max_page_retries):
            # PNG decode/encode is CPU work: keep it off the event loop that drives every other request.
            png = page.png if rotation == 0 else await asyncio.to_thread(rotate_png, page.png, rotation)
            body = build_request(png, model=self.model, attempt=attempt, guided_decoding=self.guided_decoding)
            del png
            try:
                response = await client.chat_completion(body)
            except RequestFailedError as exc:
                errors.append(f"attempt {attempt + 1}: {exc}")
                continue
            finally:
                del body
            finish = _finish_reason(response)
            usage = response.get("usage") or {}
            spent_in += int(usage.get("prompt_tokens") or 0)
            spent_out += int(usage.get("completion_tokens") or 0)
            try:
                reply = parse_reply(response)
            except ReplyError as exc:
                errors.append(f"attempt {attempt + 1}: {exc}")
                continue
            # Like olmOCR, the last attempt's reply is kept even if the model still calls the page rotated.
            if not reply.is_rotation_valid and attempt < self.max_page_retries - 1:
                rotation = (rotation + reply.rotation_correction) % 360
                errors.append(f"attempt {attempt + 1}: rotation invalid, turning by {rotation}")
                continue
            # A degenerate answer costs an attempt like a bad parse; the last one falls back (answer_judge).
            if (reason := await judge.reason(reply.text, finish)) is not None:
                errors.append(f"attempt {attempt + 1}: degenerate answer: {reason}")
                if judge.withhold:
                    spent = dict(spent_input_tokens=spent_in, spent_output_tokens=spent_out, finish_reason=finish)
                    return self._withheld(page, attempt + 1, started, errors, judge.reasons, **spent)
                continue
            return PageResult(
                source_hash=page.source_hash,
                page_num=page.page_num,
                text=reply.text,
                primary_language=reply.primary_language,
                is_rotation_valid=reply.is_rotation_valid,
                rotation_correction=rotation,
                is_table=reply.is_table,
                is_diagram=reply.is_diagram,
                engine=self.name,
                model=self.model,
                input_tokens=reply.input_tokens,
                output_tokens=reply.output_tokens,
                attempts=attempt + 1,
                elapsed_s=time.monotonic() - started,
                extra={
                    "prompt_version": self.prompt_version,
                    "spent_input_tokens": spent_in,
                    "spent_output_tokens": spent_out,
                    "retry_reasons": errors,
                    "retried_for": judge.reasons,
                    "finish_reason": finish,
                },
            )
        log.warning("page %s/%d fell back to its text layer: %s", page.source_hash, page.page_num, errors[-1:])
        return self._fallback(
            page,
            errors[-1] if errors else "no attempt made",
            self.max_page_retries,
            started,
            spent_input_tokens=spent_in,
            spent_output_tokens=spent_out,
            retry_reasons=errors,
            retried_for=judge.reasons,
            finish_reason=finish,
        )

    async def run_pages(
        self,
        page_factories: Iterable[Callable[[], PageInput]],
        on_result: Callable[[PageResult], None],
    ) -> None:
        """OCR every page, rendering each just in time; a server-level failure cancels the rest and raises."""
        # Bounds pages alive at once (rendered image held) to the request slots plus a small read-ahead,
        # however many factories wait: memory stays flat.
        slots = asyncio.Semaphore(self.max_concurrent_requests + self.read_ahead)
        tasks: set[asyncio.Task[None]] = set()
        failure: list[BaseException] = []

        failed = asyncio.Event()

        async def one(factory: Callable[[], PageInput]) -> None:
            try:
                page = await asyncio.to_thread(factory)
                result = await self.aocr_page(page)
                del page
                on_result(result)
            except Exception as exc:  # noqa: BLE001 - kept for run_pages to raise once the others are cancelled
                failure.append(exc)
                failed.set()
            finally:
                slots.release()

        try:
            for factory in page_factories:
                await slots.acquire()
                if failed.is_set():
                    slots.release()
                    break
                task = asyncio.create_task(one(factory))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
            if tasks:
                # Either every page finishes, or the first failure stops the run early.
                stopper = asyncio.create_task(failed.wait())
                everything = asyncio.gather(*tasks, return_exceptions=True)
                waiters: set[asyncio.Future[Any]] = {stopper, everything}
                await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
                stopper.cancel()
        finally:
            pending = [t for t in tasks if not t.done()]
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        if failure:
            raise failure[0]


def _finish_reason(response: dict[str, Any]) -> str | None:
    """The reply's `choices[0].finish_reason` when it has one (a malformed reply is parse_reply's to reject)."""
    try:
        reason = response["choices"][0].get("finish_reason")
    except (KeyError, IndexError, TypeError, AttributeError):
        return None
    return reason if isinstance(reason, str) else None
