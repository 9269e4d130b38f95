"""One page a model cannot read costs its document, never its group; a broken model still stops the group, the
command says which pages failed and what to do, and a rerun against a fixed server resumes from the memo."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ocr_pipeline.checks.spec import shipped_checks_dir
from ocr_pipeline.engines.vlm.prompts import TEMPERATURE_BY_ATTEMPT
from ocr_pipeline.stages.dolma_documents import FALLBACK_ATTRIBUTE
from ocr_pipeline.workspace.keys import dolma_key, done_key, rejected_key
from ocr_pipeline.workspace.tables import read_gzip_jsonl
from tests.support.builders import pdfgen
from tests.support.oracle import right_answers
from tests.support.recorded_answers import page_keys
from tests.support.vlm_server import VlmTestServer

SCANS = 32  # one-page scanned letters, each its own document
BOOKS = 2  # born-digital documents of four pages
GROUP = "g000001"
# The paragraph a model writes a second time at the end of its answer (29 words, as in olmOCR's own answer to a real
# old scan): on every attempt, whatever the temperature.
PARAGRAPH = (
    "I have been ordered to take the field with the army, and believe I am the first officer of the Army to be "
    "placed in command of the Army."
)


def _letter(i: int) -> str:
    return f"Letter number {i}. " + " ".join(pdfgen.SENTENCES[(i + k) % 8] for k in range(3))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """40 pages: 32 one-page scans (odd names among them) and two born-digital four-page reports."""
    folder = tmp_path_factory.mktemp("one-bad-page") / "in"
    for i in range(SCANS):
        name = f"letter {i:02d} (copy).pdf" if i % 5 == 0 else f"letter_{i:02d}.pdf"
        pdfgen.write(folder / name, pdfgen.scan_pdf(pdfgen.text_pdf([[_letter(i)]], font_size=16), dpi=100))
    for b in range(BOOKS):
        pages = [[f"Report {b} page {p}."] + [pdfgen.SENTENCES[(b + p + k) % 8] for k in range(4)] for p in range(4)]
        pdfgen.write(folder / f"report_{b}.pdf", pdfgen.text_pdf(pages))
    return folder


def _answers(folder: Path, bad: set[int]) -> dict[str, str]:
    """Each page's own words (the reports' layers, the scans' letters); the `bad` letters end with PARAGRAPH twice."""
    answers = right_answers(folder)
    for i in range(SCANS):
        text = _letter(i) + "\n\n" + PARAGRAPH + ("\n\n" + PARAGRAPH if i in bad else "")
        [keys] = page_keys(next(folder.glob(f"letter*{i:02d}*.pdf")))
        answers.update(dict.fromkeys(keys, text))
    return answers


def _run(
    corpus: Path, ws: Path, server: VlmTestServer, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "ocr_pipeline.cli", "run", str(ws), "--pdfs", str(corpus), "--server",
               server.url, "--model", "olmocr", "--pages_per_group", "500", "--quiet"]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=600, env={**os.environ, **(env or {})})


def test_a_page_that_fails_every_attempt_costs_its_document_not_its_group(corpus: Path, tmp_path: Path) -> None:
    with VlmTestServer(model="olmocr", text_for=_answers(corpus, bad={7})) as server:
        proc = _run(corpus, tmp_path / "ws", server)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ws = tmp_path / "ws"
    assert (ws / done_key(GROUP)).exists()
    docs = read_gzip_jsonl((ws / dolma_key(GROUP)).read_bytes())
    assert len(docs) == SCANS - 1 + BOOKS
    assert sum(len(d["attributes"]["pdf_page_numbers"]) for d in docs) == 39
    assert all(span[2] == 0 for d in docs for span in d["attributes"][FALLBACK_ATTRIBUTE])
    [line] = read_jsonl(ws / rejected_key(GROUP))
    assert line["source"].endswith("letter_07.pdf") and line["reason"] == "too_many_fallback_pages"
    assert (
        "1 of 1 pages fell back" in line["detail"]
        and "page 1: degenerate answer: duplicated paragraph" in line["detail"]
    )
    # The bad page was asked at every temperature; every other page once.
    assert "documents:      33" in proc.stdout and "rejected:       1 (too_many_fallback_pages=1)" in proc.stdout


def test_a_broken_model_stops_the_group_names_its_pages_and_a_rerun_resumes(corpus: Path, tmp_path: Path) -> None:
    bad = set(range(0, SCANS, 3))  # 11 of 40 pages: more than bad luck explains
    ws = tmp_path / "ws"
    with VlmTestServer(model="olmocr", text_for=_answers(corpus, bad=bad)) as server:
        proc = _run(corpus, ws, server)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = proc.stdout
    assert f"{GROUP}: stopped by vlm_ocr_outputs degenerate_share_blocking: 11 of 40 pages degenerate" in out
    assert "letter 00 (copy).pdf page 1 (duplicate_paragraph)" in out
    assert "letter_03.pdf page 1 (degenerate answer: duplicated paragraph: 29 words written twice)" in out
    assert "what to do:" in out and "dbt_like_checks/vlm_ocr_outputs.yml:" in out
    assert not (ws / dolma_key(GROUP)).exists()

    # The model fixed: the same command reads only the failed pages again (the others come from the memo).
    with VlmTestServer(model="olmocr", text_for=_answers(corpus, bad=set())) as server:
        proc = _run(corpus, ws, server)
        asked = len(server.completed())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert asked == len(bad)
    assert len(read_gzip_jsonl((ws / dolma_key(GROUP)).read_bytes())) == SCANS + BOOKS


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The lines of a JSONL file."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_rerun_after_the_gate_changed_resumes_from_the_memo(corpus: Path, tmp_path: Path) -> None:
    bad = set(range(0, SCANS, 3))
    ws = tmp_path / "ws"
    with VlmTestServer(model="olmocr", text_for=_answers(corpus, bad=bad)) as server:
        assert _run(corpus, ws, server).returncode == 1
        first = len(server.completed())
        # A team that accepts such a model for this corpus loosens the gates in its own checks folder.
        checks = tmp_path / "checks"
        shutil.copytree(shipped_checks_dir(), checks, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
        yml = checks / "vlm_ocr_outputs.yml"
        yml.write_text(yml.read_text().replace("max: 0.03", "max: 0.3"))
        proc = _run(corpus, ws, server, env={"OCR_PIPELINE_CHECKS_DIR": str(checks)})
        again = len(server.completed()) - first
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # Only the failed pages were asked again (at every temperature); the 29 good ones came from the memo.
    assert again == len(bad) * len(TEMPERATURE_BY_ATTEMPT)
    assert len(read_gzip_jsonl((ws / dolma_key(GROUP)).read_bytes())) == SCANS + BOOKS - len(bad)
    assert f"rejected:       {len(bad)} (too_many_fallback_pages={len(bad)})" in proc.stdout
