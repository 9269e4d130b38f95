"""What is known of one input once its bytes are read: size, content hash, page count, or why it is unusable."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ocr_pipeline.inputs import InputMissing, InputTooLarge, open_input
from ocr_pipeline.pdf_probe import probe_image, probe_pdf, sha256_file
from ocr_pipeline.pdf_sandbox import PdfSandbox, SandboxAborted
from ocr_pipeline.settings import MAX_INPUT_BYTES
from ocr_pipeline.storage import Workspace


@dataclass
class InputFacts:
    """The outcome of reading one input: facts when usable, a rejection reason otherwise."""

    size: int = 0
    sha256: str = ""
    page_count: int = 0
    reason: str | None = None
    detail: str = ""


def probe_path(kind: str, path: str) -> InputFacts:
    """Probe a local file (a PDF, or an image as one page)."""
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        return InputFacts(reason="unreadable", detail=str(exc))
    digest = sha256_file(path) if 0 < size <= MAX_INPUT_BYTES else ""
    probe = probe_image(path) if kind == "image" else probe_pdf(path)
    if not probe.ok:
        return InputFacts(size=size, sha256=digest, reason=probe.reason, detail=probe.detail)
    return InputFacts(size=size, sha256=digest, page_count=probe.page_count)


def probe_location(
    kind: str, location: str, workspace: Workspace, input_client: Any = None, sandbox: PdfSandbox | None = None
) -> InputFacts:
    """Probe an input wherever it lives (in `sandbox`'s child when given); failures are reasons, not exceptions."""
    try:
        with open_input(location, workspace, input_client) as path:
            return InputFacts(**sandbox.probe(kind, path)) if sandbox is not None else probe_path(kind, path)
    except InputMissing as exc:
        return InputFacts(reason="input_missing", detail=str(exc))
    except InputTooLarge as exc:
        return InputFacts(reason="too_large", detail=str(exc))
    except SandboxAborted as exc:  # the PDF hung or crashed the reader
        return InputFacts(reason=exc.reason, detail=exc.detail)
