"""Facts of an input wherever it lives (local, archive member, S3), read in the PDF sandbox."""

from __future__ import annotations

from typing import Any

from ocr_pipeline.inputs.fetch import InputMissing, InputTooLarge, open_input
from ocr_pipeline.pdf.probe import InputFacts, probe_path
from ocr_pipeline.pdf.sandbox.parent import PdfSandbox, SandboxAborted
from ocr_pipeline.workspace.storage import Workspace


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
