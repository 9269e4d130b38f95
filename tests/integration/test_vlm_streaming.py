"""Pages streamed to the VLM server while page_images renders them: same outputs, each page sent once, crash-safe."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest

from ocr_pipeline.engines.vlm.page_stream import PageStream, QueueBudget
from ocr_pipeline.engines.vlm.vlm_engine import VlmEngine
from ocr_pipeline.local_run import run_local
from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.stages import ocr_stream
from ocr_pipeline.stages.pdf_inventory import list_groups
from ocr_pipeline.stages.vlm_ocr_outputs import page_input
from ocr_pipeline.workspace.commit import pending_groups
from ocr_pipeline.workspace.keys import dolma_key, ocr_key, pages_key, rejected_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import read_rows
from tests.support.builders import corpora, pdfgen
from tests.support.oracle import right_answers
from tests.support.vlm_server import VlmTestServer

PAGES = (1, 3, 12)


def _corpus(root: Path) -> Path:
    """The mixed corpus in root/in; its folder, for the server's right answers (tests.support.oracle)."""
    for name, body in corpora.mixed_pdfs(PAGES).items():
        (root / "in").mkdir(parents=True, exist_ok=True)
        (root / "in" / name).write_bytes(body)
    return root / "in"


def _run(root: Path, name: str, server: VlmTestServer) -> tuple[LocalWorkspace, str]:
    settings = PipelineSettings(workspace=str(root / name), pdfs=[str(root / "in")], server=server.url)
    summary = run_local(settings, show_progress=False, verbose=False)
    ws = LocalWorkspace(settings.workspace)
    [group] = list_groups(ws)
    assert summary.ok, summary.causes
    return ws, group


def _outputs(ws: LocalWorkspace, group: str) -> tuple[bytes, bytes, list[dict[str, object]]]:
    ocr = [{k: v for k, v in r.items() if k != "elapsed_s"} for r in read_rows(ws, ocr_key(group))]
    return ws.read_bytes(dolma_key(group)), ws.read_bytes(rejected_key(group)), ocr


def test_streamed_run_writes_the_same_outputs_and_sends_each_page_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with VlmTestServer(text_for=right_answers(_corpus(tmp_path))) as server:
        monkeypatch.setenv("OCR_PIPELINE_STREAM_PAGES", "0")
        plain_ws, group = _run(tmp_path, "plain", server)
        sent_plain = len(server.requests)
        monkeypatch.setenv("OCR_PIPELINE_STREAM_PAGES", "1")
        streamed_ws, streamed_group = _run(tmp_path, "streamed", server)
        streamed = server.requests[sent_plain:]
    assert sent_plain == len(streamed) == sum(PAGES)
    assert set(Counter(r.page_key for r in streamed).values()) == {1}  # no page sent twice, none lost
    assert streamed_group == group
    assert _outputs(streamed_ws, group) == _outputs(plain_ws, group)
    # It did stream: the first page left before page_images published the group's pages.
    published = streamed_ws.local_path(pages_key(group)).stat().st_mtime  # type: ignore[union-attr]  # local: a path
    first_sent = min(r.started for r in streamed) + time.time() - time.monotonic()
    assert first_sent < published


def test_a_crash_mid_stream_leaves_the_group_pending_and_the_rerun_sends_only_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Crash(BaseException):
        """Not an Exception: no per-document handler catches it; the step fails as a crashed process would."""

    answers = right_answers(_corpus(tmp_path))
    offered = 0
    real_offer = ocr_stream.GroupStream.offer_row

    def crash_after_five(self: ocr_stream.GroupStream, row: dict[str, object]) -> None:
        nonlocal offered
        offered += 1
        if offered > 5:
            raise Crash("mid-stream")
        real_offer(self, row)

    with VlmTestServer(text_for=answers) as server:
        settings = PipelineSettings(workspace=str(tmp_path / "ws"), pdfs=[str(tmp_path / "in")], server=server.url)
        monkeypatch.setattr(ocr_stream.GroupStream, "offer_row", crash_after_five)
        summary = run_local(settings, show_progress=False, verbose=False)
        ws = LocalWorkspace(settings.workspace)
        [group] = list_groups(ws)
        assert summary.failed_groups == [group] and pending_groups(ws, [group]) == [group]
        assert not ws.exists(pages_key(group)) and not ws.exists(dolma_key(group))
        assert len(server.requests) == 5  # answered before the crash: kept in the memo

        monkeypatch.setattr(ocr_stream.GroupStream, "offer_row", real_offer)
        assert run_local(settings, show_progress=False, verbose=False).ok
        assert pending_groups(ws, [group]) == []
        assert len(server.requests) == sum(PAGES)
        assert set(Counter(r.page_key for r in server.requests).values()) == {1}
    ocr = read_rows(ws, ocr_key(group))
    assert len(ocr) == sum(PAGES) and sum(r["memo_hit"] for r in ocr) == 5


def test_overlapping_streams_share_one_byte_budget(tmp_path: Path) -> None:
    """Several groups stream at once in the CLI: their queued page images count against one budget, not one each."""
    pdf = tmp_path / "three.pdf"
    pdf.write_bytes(pdfgen.text_pdf([[s] for s in pdfgen.SENTENCES[:3]]))
    rows = [{**row, "sha256": "h", "source": "three.pdf"} for row in document_pages("pdf", str(pdf), 600)]
    first, second, third = (page_input(row) for row in rows)
    budget = QueueBudget(len(first.png or b"") + len(second.png or b""))
    # Answers are held until a third request arrives (or 3 s pass): the first stream's bytes stay taken meanwhile.
    with VlmTestServer(longest_side=600, hold_until_requests=3, hold_timeout_s=3) as server:
        a = PageStream(VlmEngine(server.url, "m"), budget=budget)
        b = PageStream(VlmEngine(server.url, "m"), budget=budget)
        assert a.offer(first) and a.offer(second)
        assert not b.offer(third) and b.refused == 1  # the other stream's pages fill the shared budget
        assert len(a.wait()) == 2 and budget.used == 0
        assert b.offer(third)
        assert len(b.wait()) == 1 and budget.used == 0
