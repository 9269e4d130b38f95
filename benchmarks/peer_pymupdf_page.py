"""pymupdf4llm 2.0 with PyMuPDF Layout on PDFs, page by page: the peer of benchmarks/bench_peer_pymupdf.py.

    PEER_PYTHON benchmarks/peer_pymupdf_page.py [--no-ocr] OUT_DIR PDF [PDF ...]
    PEER_PYTHON benchmarks/peer_pymupdf_page.py --versions

It runs in a venv of its own, never the project's (PyMuPDF is AGPL: a yardstick, not a dependency), for example

    python3 -m venv /tmp/pymupdf-venv && /tmp/pymupdf-venv/bin/pip install pymupdf==2.0 rapidocr==3.10.0

pymupdf 2.0 holds pymupdf4llm 2.0 and PyMuPDF Layout 2.0 (the `pymupdf4llm==2.0` and `pymupdf-layout==2.0` wheels are
empty packages it requires); rapidocr is the OCR engine pymupdf4llm picks first for pages it decides to OCR (the
same version, with the same bundled PP-OCRv6 small models, as the CPU engine).

Layout: `import pymupdf4llm` imports `pymupdf.layout`, whose `activate()` loads the bundled ONNX layout model and sets
`pymupdf._get_layout`; pymupdf4llm then runs in layout mode (`pymupdf4llm._use_layout`). This script calls
`pymupdf4llm.use_layout(True)` anyway, fails when either is not set, and counts the calls of the layout model on
each page: a page with 0 calls was not read with Layout.

Each page: `pymupdf4llm.to_markdown(doc, pages=[i], header=False, footer=False)`: the page headers and footers its
layout model finds are left out, as the CPU engine leaves out furniture. Written as OUT_DIR/<stem>_pg<n>_repeat1.md
(the layout olmOCR-Bench reads); `--no-ocr` passes `use_ocr=False` (text layers only). Prints one JSON line to
stdout per PDF: {"pdf": name, "pages": [[page, "text_layer" or "ocr", seconds, layout calls]], "error": message or
null}; pymupdf4llm's own messages go to stderr.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

VERSIONED = ("pymupdf", "pymupdf4llm", "pymupdf-layout", "rapidocr", "onnxruntime")


def versions() -> dict[str, str]:
    """The installed versions of the packages the peer's answers depend on."""
    found = {}
    for name in VERSIONED:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "absent"
    return found


class Counted:
    """A callable that counts its calls (the layout model, the OCR function) and passes everything through."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.inner(*args, **kwargs)


def read_pdf(pdf: Path, out: Path, layout: Counted, ocr: Counted | None, use_ocr: bool) -> dict:
    """Every page of one PDF to Markdown; seconds, OCR or not, and layout-model calls per page."""
    import pymupdf
    import pymupdf4llm

    pages: list[list[Any]] = []
    error = None
    start = time.perf_counter()
    try:
        doc = pymupdf.open(pdf)
    except Exception as exc:  # noqa: BLE001 - a PDF the peer cannot open counts as writing nothing
        (out / f"{pdf.stem}_pg1_repeat1.md").write_text("")
        return {"pdf": pdf.name, "pages": [[1, "text_layer", time.perf_counter() - start, 0]], "error": str(exc)}
    with doc:
        for i in range(doc.page_count):
            layout.calls, ocr_before = 0, ocr.calls if ocr else 0
            try:
                md = pymupdf4llm.to_markdown(
                    doc, pages=[i], header=False, footer=False, use_ocr=use_ocr, ocr_function=ocr
                )
            except Exception as exc:  # noqa: BLE001 - counted as an empty page, and the message is kept
                md, error = "", f"page {i + 1}: {exc}"
            kind = "ocr" if ocr and ocr.calls > ocr_before else "text_layer"
            pages.append([i + 1, kind, time.perf_counter() - start, layout.calls])
            (out / f"{pdf.stem}_pg{i + 1}_repeat1.md").write_text(md if isinstance(md, str) else "")
            start = time.perf_counter()
    return {"pdf": pdf.name, "pages": pages, "error": error}


def main(argv: list[str]) -> int:
    """Read the PDFs named on the command line, or print the versions with --versions."""
    if argv[:1] == ["--versions"]:
        print(json.dumps(versions()))
        return 0
    use_ocr = argv[:1] != ["--no-ocr"]
    argv = argv if use_ocr else argv[1:]
    out, pdfs = Path(argv[0]), [Path(p) for p in argv[1:]]
    out.mkdir(parents=True, exist_ok=True)
    report = sys.stdout
    with contextlib.redirect_stdout(sys.stderr):
        import pymupdf
        import pymupdf4llm
        from pymupdf4llm.helpers.document_layout import select_ocr_function

        pymupdf4llm.use_layout(True)
        if not (pymupdf4llm._use_layout and callable(pymupdf._get_layout)):
            print("PyMuPDF Layout is not active: pymupdf.layout did not load", file=sys.stderr)
            return 2
        layout = Counted(pymupdf._get_layout)
        pymupdf._get_layout = layout  # looked up at each call, so every page's layout run is counted
        found = select_ocr_function()
        ocr = Counted(found) if callable(found) else None
        for pdf in pdfs:
            print(json.dumps(read_pdf(pdf, out, layout, ocr, use_ocr)), file=report, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
