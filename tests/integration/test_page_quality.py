"""A server that loops on one page: the engine retries it, falls back, and the run's OCR manifest and its Dolma
shard flag that page, and only that one."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path

import pytest

from ocr_pipeline.local_run import run_local
from ocr_pipeline.quality.attributes import PREFIX
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.workspace.keys import dolma_key, ocr_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import read_gzip_jsonl, read_rows
from tests.support.builders import pdfgen
from tests.support.oracle import right_answers
from tests.support.vlm_server import VlmTestServer, default_text

REPO = Path(__file__).resolve().parents[2]

LOOP = "The committee met again and adjourned. " * 150


class LoopOnSecondPage:
    """Answers a repetition loop for the second distinct page image it is asked about, the page's own words else."""

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers  # right answers: the other pages read well, as the test means them to
        self.keys: list[str] = []
        self.lock = threading.Lock()

    def __call__(self, key: str) -> str:
        with self.lock:
            if key not in self.keys:
                self.keys.append(key)
            looped = self.keys.index(key) == 1
        return LOOP if looped else self.answers.get(key, default_text(key))


def _looping_run(tmp_path: Path) -> tuple[LocalWorkspace, str]:
    """A 24-page born-digital document through a server that loops on its second page: the workspace, the group."""
    # 24 pages: one loop is 4 % of the partition, under the blocking degenerate-share gate (5 %), over its warning.
    # Each page's body is its own: the running head ("Page N of the minutes.") is furniture, so a body line shared
    # with other pages would be all the flagged page keeps, and a mix could not tell its text from theirs.
    pages = [[f"Page {i + 1} of the minutes.", f"Item {i + 1}: {pdfgen.SENTENCES[i % 8]}"] for i in range(24)]
    # Born-digital: the looping page falls back to its text layer, so it is a fallback (not an error page that
    # blocks the partition).
    pdfgen.write(tmp_path / "in" / "minutes.pdf", pdfgen.text_pdf(pages))
    with VlmTestServer(model="olmocr-test", text_for=LoopOnSecondPage(right_answers(tmp_path / "in"))) as server:
        settings = PipelineSettings(
            workspace=str(tmp_path / "ws"), pdfs=[str(tmp_path / "in")], server=server.url, model="olmocr-test",
            max_page_error_rate=0.5,
        )  # fmt: skip
        summary = run_local(settings, show_progress=False)
    assert summary.ok
    ws = LocalWorkspace(settings.workspace)
    [group] = [k.rsplit("/", 1)[1].split(".")[0] for k in ws.list("manifests/ocr/")]
    return ws, group


def test_a_looping_page_is_flagged_in_the_manifest_and_the_dolma_attributes(tmp_path: Path) -> None:
    ws, group = _looping_run(tmp_path)
    rows = {r["page_num"]: r for r in read_rows(ws, ocr_key(group))}
    quality = {p: json.loads(r["quality"]) for p, r in rows.items()}
    assert sorted(quality) == list(range(1, 25))
    degenerate = [p for p, q in quality.items() if q["degenerate"]]
    assert len(degenerate) == 1
    # Retried on every attempt, then the text layer: the verdict is the engine's answers', not the layer's.
    looped = rows[degenerate[0]]
    assert looped["is_fallback"] and looped["attempts"] == 8
    assert "degenerate answer: repetition loop" in looped["error"]
    assert json.loads(looped["extra"])["retried_for"] == ["repetition loop"] * 8
    assert quality[degenerate[0]]["repetition"] < 0.5  # the stored text is the layer's, no loop

    [doc] = read_gzip_jsonl(ws.read_bytes(dolma_key(group)))
    spans = doc["attributes"]["pdf_page_numbers"]
    flags = doc["attributes"][PREFIX + "degenerate"]
    assert [s[:2] for s in flags] == [s[:2] for s in spans]  # one span per page, the same offsets
    [(start, end, _)] = [s for s in flags if s[2] == 1]
    assert "The committee met again" not in doc["text"]
    assert doc["text"][start:end].strip()  # the layer's text, flagged for a mix filter to drop
    assert [s[2] for s in doc["attributes"][PREFIX + "flagged"]].count(1) == 1


def _dolma() -> str | None:
    """allenai's `dolma` CLI: OCR_PIPELINE_TEST_DOLMA, else .venv-dolma/ beside the checkout (`.ci/run` builds it)."""
    found = os.environ.get("OCR_PIPELINE_TEST_DOLMA") or str(REPO / ".venv-dolma" / "bin" / "dolma")
    return found if Path(found).is_file() else None


def test_dolma_mix_drops_the_flagged_page_and_keeps_the_others(tmp_path: Path) -> None:
    dolma = _dolma()
    if dolma is None:  # its pins (boto3 1.28, numpy < 2) cannot share the project's venv: CI builds its own
        pytest.skip("allenai's dolma toolkit is not installed (.venv-dolma/bin/dolma or OCR_PIPELINE_TEST_DOLMA)")
    ws, group = _looping_run(tmp_path)
    [doc] = read_gzip_jsonl(ws.read_bytes(dolma_key(group)))
    [(start, end, _)] = [s for s in doc["attributes"][PREFIX + "flagged"] if s[2] == 1]
    flagged_text = doc["text"][start:end]
    # The stream reads the shard as written (attributes inline); the span filter is docs/quality.md's.
    config = {
        "streams": [
            {
                "name": "ocr",
                "documents": [str(ws.local_path(dolma_key(group)))],
                "attributes": [],
                "output": {"path": str(tmp_path / "mixed"), "max_size_in_bytes": 100_000_000},
                "span_replacement": [{"span": f"$.attributes.{PREFIX}flagged", "min_score": 1, "replacement": ""}],
            }
        ],
        "processes": 1,
    }
    (tmp_path / "mix.yaml").write_text(json.dumps(config))  # JSON is YAML
    done = subprocess.run(
        [dolma, "-c", str(tmp_path / "mix.yaml"), "mix"], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-3000:]
    [out] = (tmp_path / "mixed").glob("*.json.gz")
    [mixed] = read_gzip_jsonl(out.read_bytes())
    assert mixed["id"] == doc["id"]
    assert flagged_text.strip() and flagged_text not in mixed["text"]
    assert len(mixed["text"]) == len(doc["text"]) - len(flagged_text)  # only the flagged page went
    for page_start, page_end, page in doc["attributes"]["pdf_page_numbers"]:
        if page_start != start:
            assert doc["text"][page_start:page_end].strip() in mixed["text"], page
