"""Warm reader children: a closed sandbox's idle child serves the next sandbox; a suspect child never does."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ocr_pipeline.pdf.sandbox import spares as sandbox_spares
from ocr_pipeline.pdf.sandbox.parent import PdfSandbox, SandboxAborted, default_command, prestart_reader
from tests.support.builders import pdfgen

MISBEHAVING = [sys.executable, "-m", "tests.support.render_children"]


@pytest.fixture(autouse=True)
def no_spares_left() -> Iterator[None]:
    sandbox_spares._stop_spares()
    yield
    sandbox_spares._stop_spares()


def _pdf(tmp_path: Path, pages: int = 2) -> str:
    body = pdfgen.text_pdf([[pdfgen.SENTENCES[i % len(pdfgen.SENTENCES)]] for i in range(pages)])
    return str(pdfgen.write(tmp_path / f"p{pages}.pdf", body))


def test_the_next_sandbox_takes_the_idle_child_of_the_last(tmp_path: Path) -> None:
    pdf = _pdf(tmp_path)
    with PdfSandbox() as first:
        assert len(list(first.render("pdf", pdf, 400, timeout_s=60))) == 2
        child = first._proc
    assert child is not None and child.poll() is None  # kept, not stopped
    with PdfSandbox() as second:
        assert second.probe("pdf", pdf)["page_count"] == 2
        assert second._proc is child


def test_prestart_hands_its_child_to_the_first_sandbox(tmp_path: Path) -> None:
    prestart_reader()
    prestart_reader()  # one waiting is enough
    [(command, child)] = sandbox_spares._spares
    assert list(command) == default_command()
    with PdfSandbox() as sandbox:
        assert sandbox.probe("pdf", _pdf(tmp_path))["page_count"] == 2
        assert sandbox._proc is child


def test_a_child_left_mid_render_is_killed_not_kept(tmp_path: Path) -> None:
    with PdfSandbox() as sandbox:
        rows = sandbox.render("pdf", _pdf(tmp_path, 20), 400, timeout_s=60)
        next(rows)  # the child is still sending this document's batches
        child = sandbox._proc
    assert child is not None and child.poll() is not None
    assert sandbox_spares._spares == []


def test_a_child_that_timed_out_is_never_kept(tmp_path: Path) -> None:
    with PdfSandbox(MISBEHAVING + ["hang"]) as sandbox, pytest.raises(SandboxAborted):
        list(sandbox.render("pdf", "x.pdf", 400, timeout_s=1))
    assert sandbox_spares._spares == []


def test_spares_are_bounded_and_stopped_at_exit(tmp_path: Path) -> None:
    pdf = _pdf(tmp_path)
    sandboxes = [PdfSandbox() for _ in range(sandbox_spares.MAX_SPARES + 2)]
    children = []
    for sandbox in sandboxes:  # all open at once: each starts its own child
        sandbox.probe("pdf", pdf)
        children.append(sandbox._proc)
    for sandbox in sandboxes:
        sandbox.close()
    assert len(sandbox_spares._spares) == sandbox_spares.MAX_SPARES
    kept = [proc for _, proc in sandbox_spares._spares]
    assert all(p.poll() is None for p in kept)
    assert all(p.poll() is not None for p in children if p not in kept)
    sandbox_spares._stop_spares()
    assert all(p.poll() is not None for p in kept)
