"""Shared fixtures: small corpora of real PDFs with known text, bad inputs included."""

from __future__ import annotations

import io
import os
import signal
import tarfile
from pathlib import Path

import pytest

from tests.support.builders import pdfgen
from tests.support.builders.pdfgen import add_tar_member
from tests.support.shared_data import shared_data_present, where

REPO = Path(__file__).resolve().parents[1]
# Child processes (the fake vLLM, the sandbox's misbehaving children, the VLM test server) import tests.support too:
# the repository root goes on their PYTHONPATH as pytest puts it on ours.
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
# A suite started as a background job inherits an ignored SIGINT; Dagster's interrupt set-up, run in-process by the
# tests, copies SIGINT's disposition onto SIGTERM, and every process a test starts afterwards would ignore SIGTERM
# (a fake vLLM stopped only by SIGKILL after its 30 s grace, a worker that outlives its parent). The suite runs as a
# foreground command does, however it is started.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
if signal.getsignal(signal.SIGTERM) is signal.SIG_IGN:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip a test marked `shared_data`, saying where the data was looked for, when the real documents are absent."""
    if item.get_closest_marker("shared_data") and not shared_data_present():
        pytest.skip(f"shared_data: no real documents at {where()}")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say how many tests went unrun for lack of the real documents: a skip in the counts alone is easy to miss."""
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if "shared_data" in getattr(r, "keywords", {})]
    if skipped:
        terminalreporter.write_line(
            f"{len(skipped)} tests marked shared_data were skipped: no real documents at {where()}", yellow=True
        )


@pytest.fixture
def mixed_corpus(tmp_path: Path) -> Path:
    """A folder of good inputs (born-digital, multi-page, two-column, a scan) and every kind of bad one."""
    root = tmp_path / "corpus"
    born = pdfgen.text_pdf([pdfgen.SENTENCES[:3], pdfgen.SENTENCES[3:6]])
    pdfgen.write(root / "report.pdf", born)
    pdfgen.write(root / "nested" / "columns.pdf", pdfgen.two_column_pdf(pdfgen.SENTENCES[:3], pdfgen.SENTENCES[3:6]))
    pdfgen.write(root / "scan.pdf", pdfgen.scan_pdf(pdfgen.text_pdf([pdfgen.SENTENCES[6:8]], font_size=16), dpi=110))
    pdfgen.write(root / "copy_of_report.pdf", born)
    pdfgen.write(root / "zero.pdf", b"")
    pdfgen.write(root / "truncated.pdf", born[: len(born) // 3])
    pdfgen.write(root / "random.pdf", bytes(range(256)) * 8)
    pdfgen.write(root / "page.pdf", b"<!DOCTYPE html><html><body>Not a PDF</body></html>")
    pdfgen.write(root / "locked.pdf", pdfgen.encrypted_pdf(born, user_password="s3cret"))
    pdfgen.write(root / "open_encrypted.pdf", pdfgen.encrypted_pdf(pdfgen.text_pdf([[pdfgen.SENTENCES[7]]]), ""))
    pdfgen.write(root / "huge.pdf", pdfgen.huge_page_pdf())
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:gz") as tar:
        add_tar_member(tar, "inner/letter.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[5]]]))
        add_tar_member(tar, "../escape.pdf", born)
    pdfgen.write(root / "bundle.tar.gz", archive.getvalue())
    return root
