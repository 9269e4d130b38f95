"""The HTML viewer: each page image beside its text, and the group's rejections with their reasons."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ocr_pipeline.local_run import run_local
from ocr_pipeline.settings import PipelineSettings
from tests.support import pdfgen


def test_viewer_shows_pages_beside_text_and_rejections(tmp_path: Path) -> None:
    pdfgen.write(tmp_path / "in" / "a.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[0]], [pdfgen.SENTENCES[1]]]))
    pdfgen.write(tmp_path / "in" / "b<script>.pdf", b"<html>not a pdf</html>")
    ws = tmp_path / "ws"
    assert run_local(PipelineSettings(workspace=str(ws), pdfs=[str(tmp_path / "in")]), show_progress=False).ok
    out = tmp_path / "view.html"
    cmd = [sys.executable, "-m", "ocr_pipeline.cli", "view", str(ws), "g000001", "--out", str(out)]
    assert subprocess.run(cmd, capture_output=True, timeout=120).returncode == 0
    page = out.read_text()
    assert page.count("data:image/jpeg;base64,") == 2
    flat = " ".join(page.split())  # lines wrap inside sentences
    assert pdfgen.SENTENCES[0] in flat and pdfgen.SENTENCES[1] in flat
    assert "html_not_pdf" in page and "b&lt;script&gt;.pdf" in page and "<script>" not in page
    missing = subprocess.run([*cmd[:-3], "g000009"], capture_output=True, text=True, timeout=120)
    assert missing.returncode == 2 and "no Dolma shard" in missing.stderr
