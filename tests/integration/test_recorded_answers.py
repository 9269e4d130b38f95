"""A real model's answers replayed through the whole pipeline: olmOCR's own Markdown for the real old scans, and
pdf-parse-bench's ground truth (LaTeX formulas and tables) for born-digital pages, served back by the test server
page by page (matched by page image). Every page is delivered as recorded, and only the true degenerate answer
(olmOCR's answer to old scan 92 writes its last sentence twice, on every attempt) is flagged: it costs its document,
and the group ships."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ocr_pipeline.local_run import run_local
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.workspace.keys import dolma_key, ocr_key, rejected_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import read_gzip_jsonl, read_jsonl, read_rows
from tests.support.recorded_answers import RecordedPage, recorded_answers, recorded_pages
from tests.support.shared_data import HISTORY, PARSE_BENCH
from tests.support.vlm_server import VlmTestServer

SCANS = HISTORY / "old_scans"
pytestmark = pytest.mark.shared_data
# The one recorded answer that is a true model failure: its last 29-word sentence is written twice.
DEGENERATE = "92"
BORN_DIGITAL = 12  # pages of each pdf-parse-bench set replayed beside the scans


def _truth_answers(folder: Path, out: Path) -> None:
    """pdf-parse-bench's ground truth of the first pages of a set, as recorded answers beside copies of their PDFs."""
    for truth in sorted((folder / "ground_truth").glob("*.json"))[:BORN_DIGITAL]:
        stem = f"{folder.name}-{truth.stem}"
        shutil.copy(folder / "pdfs" / f"{truth.stem}.pdf", out / "pdfs" / f"{stem}.pdf")
        blocks = json.loads(truth.read_text(encoding="utf-8"))
        text = "\n\n".join(str(b["data"]) for b in blocks)
        (out / "answers" / f"{stem}_pg1_repeat1.md").write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[RecordedPage]]:
    """The inputs (old scans with an olmOCR answer, born-digital pages with ground truth) and their answers."""
    root = tmp_path_factory.mktemp("replay")
    (root / "pdfs").mkdir()
    (root / "answers").mkdir()
    for answer in sorted((SCANS / "olmocr_pipeline").glob("*_pg1_repeat1.md")):
        stem = answer.name.removesuffix("_pg1_repeat1.md")
        shutil.copy(SCANS / "pdfs" / f"{stem}.pdf", root / "pdfs" / f"{stem}.pdf")
        shutil.copy(answer, root / "answers" / answer.name)
    for name in ("2026-q1-formulas-only", "2026-q1-tables-only"):
        _truth_answers(PARSE_BENCH / name, root)
    pages = recorded_pages(root / "pdfs", root / "answers")
    assert len(pages) == len(list((root / "answers").glob("*.md")))  # every answer found its page
    return root, pages


def test_recorded_answers_are_delivered_as_recorded_and_only_the_true_failure_is_flagged(
    replay: tuple[Path, list[RecordedPage]], tmp_path: Path
) -> None:
    root, pages = replay
    with VlmTestServer(model="olmocr", text_for=recorded_answers(pages)) as server:
        settings = PipelineSettings(
            workspace=str(tmp_path / "ws"), pdfs=[str(root / "pdfs")], server=server.url, model="olmocr",
            pages_per_group=500,
        )  # fmt: skip
        summary = run_local(settings, show_progress=False, verbose=False)
    assert summary.ok and summary.failed_groups == []
    ws = LocalWorkspace(settings.workspace)
    recorded = {page.pdf.name: page.answer.strip() for page in pages}
    rows = read_rows(ws, ocr_key("g000001"))
    assert len(rows) == len(pages)
    flagged = {}
    for row in rows:
        name = Path(row["source"]).name
        quality = json.loads(row["quality"])
        if row["is_fallback"]:
            continue
        assert row["text"] == recorded[name], name  # HTML, LaTeX and all, untouched
        assert row["attempts"] == 1, name
        flags = [k for k in ("degenerate", "duplicate_paragraph", "truncated", "blank_text", "invented_text",
                             "wrong_language") if quality.get(k)]  # fmt: skip
        if flags:
            flagged[name] = flags
    assert flagged == {}
    [failed] = [row for row in rows if row["is_fallback"]]
    assert Path(failed["source"]).stem == DEGENERATE and json.loads(failed["quality"])["duplicate_paragraph"]
    # The group ships: every other document, and the failed one in the ledger with its page and cause.
    docs = read_gzip_jsonl(ws.read_bytes(dolma_key("g000001")))
    assert {Path(d["metadata"]["Source-File"]).name: d["text"] for d in docs} == {
        name: text for name, text in recorded.items() if Path(name).stem != DEGENERATE
    }
    [line] = read_jsonl(ws, rejected_key("g000001"))
    assert Path(line["source"]).stem == DEGENERATE and line["reason"] == "too_many_fallback_pages"
    assert "page 1: degenerate answer: duplicated paragraph: 29 words written twice" in line["detail"]
