"""The PDF reader child's memory cap: a document past it is a `memory_exceeded` rejection naming its page, the child
is replaced, and the rest of the group goes on to its documents, as after a crash."""

from __future__ import annotations

import json
import resource
import struct
import zlib
from pathlib import Path

import pytest

from ocr_pipeline.engines.factory import cpu_engine
from ocr_pipeline.pdf.sandbox import memory as sandbox_memory
from ocr_pipeline.pdf.sandbox.parent import PdfSandbox, SandboxAborted, default_command
from ocr_pipeline.settings import DEFAULT_PDF_MEMORY_MB, PipelineSettings
from ocr_pipeline.stages.dolma_shards import build_group_shard
from ocr_pipeline.stages.filtered_pdfs import filter_group
from ocr_pipeline.stages.page_images import render_group
from ocr_pipeline.stages.pdf_inventory import scan_inputs
from ocr_pipeline.stages.vlm_ocr_outputs import ocr_with_engine
from ocr_pipeline.workspace.keys import dolma_key, rejected_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from tests.support.builders import pdfgen
from tests.support.builders.bounds_pdfs import lines_pdf

# Well above what the child needs for an ordinary document (about 250 MiB of data with the layout model loaded),
# well below what pdfium needs to lay out a page of five million characters (about 900 MiB).
SMALL_CAP_MB = 400


def _huge_page_pdf() -> bytes:
    """A 25 kB PDF whose one page holds five million characters: pdfium's text page alone takes ~800 MB."""
    return lines_pdf(500, 10_000, 1.0, 1.5)


def _huge_png(path: Path, side: int = 8000) -> Path:
    """A PNG of a few hundred kB that decodes to `side`² RGB pixels (192 MB at 8000)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    packer = zlib.compressobj(9)
    row = b"\x00" * (3 * side + 1)
    data = b"".join(packer.compress(row) for _ in range(side)) + packer.flush()
    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b""))
    return path


def test_a_pdf_past_the_cap_is_rejected_with_its_page_and_the_group_goes_on(tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    pdfgen.write(inputs / "a_huge.pdf", _huge_page_pdf())
    pdfgen.write(inputs / "b_plain.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[0]], [pdfgen.SENTENCES[1]]]))
    ws = LocalWorkspace(tmp_path / "ws")
    [group] = scan_inputs([str(inputs)], ws, pages_per_group=1000).new_groups
    filter_group(ws, group, apply_filter=False)
    result = render_group(ws, group, 300, pdf_memory_mb=SMALL_CAP_MB)
    assert result.rejected == {"memory_exceeded": 1} and result.documents == 1 and result.pages == 2
    [rejection] = result.rejections
    assert rejection.source.endswith("a_huge.pdf") and rejection.stage == "render"
    assert (
        rejection.detail == f"the PDF reader needed more than its {SMALL_CAP_MB} MiB on page 1 (setting pdf_memory_mb)"
    )
    # The rest of the pipeline treats it as any render rejection: in the ledger, not in the shard.
    ocr_with_engine(ws, group, cpu_engine(PipelineSettings(workspace=str(ws.root))), 300)
    build_group_shard(ws, group, max_page_error_rate=0.5, markdown=False)
    ledger = [json.loads(line) for line in ws.read_bytes(rejected_key(group)).decode().splitlines()]
    assert [(r["source"].endswith("a_huge.pdf"), r["reason"]) for r in ledger] == [(True, "memory_exceeded")]
    shard = zlib.decompress(ws.read_bytes(dolma_key(group)), 16 + zlib.MAX_WBITS).decode()
    assert "b_plain.pdf" in shard and "a_huge.pdf" not in shard


def test_memory_python_runs_out_of_is_the_same_rejection_and_the_child_is_replaced(tmp_path: Path) -> None:
    # An image input whose decode (Pillow, Python's side of the child) does not fit: MemoryError, not an abort.
    # 432 MB of pixels against a cap of 350 MiB, which an ordinary page (about 250 MiB with the layout model) fits.
    png = _huge_png(tmp_path / "huge.png", side=12000)
    plain = pdfgen.write(tmp_path / "plain.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[2]]]))
    with PdfSandbox(memory_mb=350) as sandbox:
        with pytest.raises(SandboxAborted) as info:
            list(sandbox.render("image", str(png), 300, timeout_s=60))
        assert info.value.reason == "memory_exceeded" and "on page 1" in info.value.detail
        assert sandbox._proc is None  # the child that ran out is gone; the next input gets a new one
        [row] = list(sandbox.render("pdf", str(plain), 300, timeout_s=60))
        assert row["text_layer"] == pdfgen.SENTENCES[2]


def test_the_child_runs_under_the_cap_the_setting_gives(tmp_path: Path) -> None:
    assert PipelineSettings(workspace="w").pdf_memory_mb == DEFAULT_PDF_MEMORY_MB == 2048
    assert default_command(0)[-2:] == ["--memory-mb", "0"]
    pdf = pdfgen.write(tmp_path / "a.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[0]]]))
    own, _ = resource.getrlimit(resource.RLIMIT_DATA)  # what a child without a cap inherits
    inherited = "unlimited" if own == resource.RLIM_INFINITY else str(own)
    for memory_mb, limit in ((DEFAULT_PDF_MEMORY_MB, str(DEFAULT_PDF_MEMORY_MB * 2**20)), (0, inherited)):
        with PdfSandbox(memory_mb=memory_mb) as sandbox:
            assert sandbox.probe("pdf", str(pdf))["page_count"] == 1
            assert sandbox._proc is not None
            pid = sandbox._proc.pid
            data = next(line for line in Path(f"/proc/{pid}/limits").read_text().splitlines() if "data" in line)
            assert data.split()[3] == limit
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            assert b"OPENBLAS_NUM_THREADS=1" in environ


def test_what_a_dead_child_means() -> None:
    assert sandbox_memory.died_of_memory(-6, 2048) and not sandbox_memory.died_of_memory(-6, 0)
    assert not sandbox_memory.died_of_memory(-11, 2048) and not sandbox_memory.died_of_memory(1, 2048)
    assert sandbox_memory.detail(64, None) == "the PDF reader needed more than its 64 MiB (setting pdf_memory_mb)"


def test_the_cap_counts_what_the_child_holds_not_an_allocators_reservation(tmp_path: Path) -> None:
    # pyarrow's mimalloc maps 1 GiB of writable memory when the first batch is written: under the default cap that
    # would be half of it gone before a page needs any. The child runs pyarrow on the system allocator.
    pdf = pdfgen.write(tmp_path / "a.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[0]]]))
    with PdfSandbox() as sandbox:
        assert len(list(sandbox.render("pdf", str(pdf), 300, timeout_s=60))) == 1
        assert sandbox._proc is not None
        status = Path(f"/proc/{sandbox._proc.pid}/status").read_text()
    data_kib = int(next(line for line in status.splitlines() if line.startswith("VmData:")).split()[1])
    assert data_kib < 400 * 1024
