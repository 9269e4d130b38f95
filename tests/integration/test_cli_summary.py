"""The end of `ocr-pipeline run`: its summary's numbers agree with the outputs, and the log it points to says so."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from ocr_pipeline.workspace.keys import partial_key
from ocr_pipeline.workspace.tables import read_gzip_jsonl
from tests.integration.test_input_isolation import half_broken_pdf
from tests.support.builders import pdfgen


def test_a_successful_run_logs_what_it_did_and_counts_the_pages_of_rejected_documents(tmp_path: Path) -> None:
    pdfgen.write(tmp_path / "in" / "half_broken.pdf", half_broken_pdf())
    pdfgen.write(tmp_path / "in" / "good.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[2]]]))
    ws = tmp_path / "ws"
    proc = subprocess.run(
        [sys.executable, "-m", "ocr_pipeline.cli", "run", str(ws), "--pdfs", str(tmp_path / "in"), "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout

    # half_broken.pdf is rejected for its fallback page: the summary counts that page rather than "0 fallback".
    [partial] = read_gzip_jsonl((ws / partial_key("g000001")).read_bytes())
    pages, fallback = len(partial["attributes"]["pdf_page_numbers"]), partial["metadata"]["total-fallback-pages"]
    assert (pages, fallback) == (2, 1)
    assert "rejected:       1 (too_many_fallback_pages=1)" in out
    rejected_pages = f"{pages} in documents rejected for fallback pages ({fallback} fallback)"
    assert f"pages:          1 (0 fallback), and {rejected_pages}" in out

    # The log the summary points to has the run in it, not an empty file.
    match = re.search(r"^log:\s+(\S+)$", out, re.M)
    assert match, out
    text = Path(match.group(1)).read_text()
    assert "inventory of" in text and "group g000001: 1 documents, 1 rejected {'too_many_fallback_pages': 1}" in text
    assert "summary: documents:      1" in text and "summary: rejected:       1 (too_many_fallback_pages=1)" in text
