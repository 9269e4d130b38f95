"""A server that loops on one page: the run's OCR manifest and its Dolma shard flag that page, and only that one."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from ocr_pipeline.local_run import run_local
from ocr_pipeline.quality.attributes import PREFIX
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.workspace.keys import dolma_key, ocr_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import read_gzip_jsonl, read_rows
from tests.support import pdfgen
from tests.support.vlm_server import VlmTestServer, default_text

LOOP = "The committee met again and adjourned. " * 150


class LoopOnSecondPage:
    """Answers a repetition loop for the second distinct page image it is asked about, olmOCR's default else."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        self.lock = threading.Lock()

    def __call__(self, key: str) -> str:
        with self.lock:
            if key not in self.keys:
                self.keys.append(key)
            looped = self.keys.index(key) == 1
        return LOOP if looped else default_text(key)


def test_a_looping_page_is_flagged_in_the_manifest_and_the_dolma_attributes(tmp_path: Path) -> None:
    pages = [[pdfgen.SENTENCES[i]] for i in range(3)]
    pdfgen.write(tmp_path / "in" / "three.pdf", pdfgen.scan_pdf(pdfgen.text_pdf(pages), dpi=60))
    with VlmTestServer(model="olmocr-test", text_for=LoopOnSecondPage()) as server:
        settings = PipelineSettings(
            workspace=str(tmp_path / "ws"), pdfs=[str(tmp_path / "in")], server=server.url, model="olmocr-test"
        )
        summary = run_local(settings, show_progress=False)
    assert summary.ok
    ws = LocalWorkspace(settings.workspace)
    [group] = [k.rsplit("/", 1)[1].split(".")[0] for k in ws.list("manifests/ocr/")]
    quality = {r["page_num"]: json.loads(r["quality"]) for r in read_rows(ws, ocr_key(group))}
    assert sorted(quality) == [1, 2, 3]
    degenerate = [p for p, q in quality.items() if q["degenerate"]]
    assert len(degenerate) == 1 and quality[degenerate[0]]["repetition"] > 0.9

    [doc] = read_gzip_jsonl(ws.read_bytes(dolma_key(group)))
    spans = doc["attributes"]["pdf_page_numbers"]
    flags = doc["attributes"][PREFIX + "degenerate"]
    assert [s[:2] for s in flags] == [s[:2] for s in spans]  # one span per page, the same offsets
    [(start, end, _)] = [s for s in flags if s[2] == 1]
    assert "adjourned. The committee met again" in doc["text"][start:end]
    assert [s[2] for s in doc["attributes"][PREFIX + "flagged"]].count(1) == 1
