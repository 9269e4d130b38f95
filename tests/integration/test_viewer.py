"""The HTML viewer: each page image beside its text and facts, and the group's rejections with their reasons."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from PIL import Image

from ocr_pipeline.local_run import run_local
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.viewer import plural
from tests.support.browser import chromium_path
from tests.support.builders import pdfgen


def _view(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "ocr_pipeline.cli", "view", str(ws), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=ws.parent)


def test_viewer_shows_pages_beside_text_and_rejections(tmp_path: Path) -> None:
    pdfgen.write(tmp_path / "in" / "a.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[0]], [pdfgen.SENTENCES[1]]]))
    pdfgen.write(tmp_path / "in" / "b<script>.pdf", b"<html>not a pdf</html>")
    ws = tmp_path / "ws"
    assert run_local(PipelineSettings(workspace=str(ws), pdfs=[str(tmp_path / "in")]), show_progress=False).ok
    out = tmp_path / "view.html"
    assert _view(ws, "g000001", "--out", str(out)).returncode == 0
    page = out.read_text()
    assert page.count("data:image/jpeg;base64,") == 2
    flat = " ".join(page.split())  # lines wrap inside sentences
    assert pdfgen.SENTENCES[0] in flat and pdfgen.SENTENCES[1] in flat
    assert "html_not_pdf" in page and "b&lt;script&gt;.pdf" in page and "<script>" not in page
    assert "1 document</h1>" in page and "2 pages" in page and "Rejected (1 input)" in page
    assert "engine cpu" in flat and "language en" in flat
    missing = _view(ws, "g000009")
    assert missing.returncode == 2 and "no Dolma shard" in missing.stderr


def test_viewer_is_written_inside_the_workspace_and_says_when_nothing_was_rejected(tmp_path: Path) -> None:
    sideways = pdfgen.scan_pdf(pdfgen.text_pdf([pdfgen.SENTENCES[2:5]], font_size=16), rotate_content=90, dpi=110)
    pdfgen.write(tmp_path / "in" / "sideways.pdf", sideways)
    ws = tmp_path / "ws"
    assert run_local(PipelineSettings(workspace=str(ws), pdfs=[str(tmp_path / "in")]), show_progress=False).ok
    done = _view(ws, "g000001")
    assert done.returncode == 0
    written = ws / "view" / "g000001.html"
    assert done.stdout.strip() == f"wrote {written.resolve()}"
    assert not (tmp_path / "g000001.html").exists()  # never into the current folder
    page = written.read_text()
    assert "no rejections" in page and "1 page ·" in page
    assert "read rotated 90°" in page or "read rotated 270°" in page  # the reviewer sees it was turned


def test_plural() -> None:
    assert [plural(n, "page") for n in (0, 1, 2)] == ["0 pages", "1 page", "2 pages"]


CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]


def test_viewer_renders_in_headless_chromium(tmp_path: Path) -> None:
    pdfgen.write(tmp_path / "in" / "a.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[0]], [pdfgen.SENTENCES[1]]]))
    pdfgen.write(tmp_path / "in" / "broken.pdf", b"%PDF-1.7 truncated")
    ws = tmp_path / "ws"
    assert run_local(PipelineSettings(workspace=str(ws), pdfs=[str(tmp_path / "in")]), show_progress=False).ok
    assert _view(ws, "g000001").returncode == 0
    url = (ws / "view" / "g000001.html").resolve().as_uri()
    base = [chromium_path(), *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([*base, "--dump-dom", url], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "Work group g000001: 1 document" in dom.stdout and "Rejected (1 input)" in dom.stdout
    shot = tmp_path / "shot.png"
    args = [*base, f"--screenshot={shot}", "--window-size=1200,900", url]
    assert subprocess.run(args, capture_output=True, timeout=120).returncode == 0
    with Image.open(shot) as img:
        grey = img.convert("L")
        # The page image sits on the left half: a rendered thumbnail has dark text pixels there, a broken
        # image or an empty page would not.
        left = grey.crop((0, 0, 600, 900))
        dark = sum(left.histogram()[:100])
    assert dark > 500, f"only {dark} dark pixels where the page image should be"
