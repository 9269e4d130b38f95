"""Dolma documents: olmOCR's fields, spans covering the text, stable ids and byte-identical shards."""

from __future__ import annotations

from pathlib import Path

from ocr_pipeline.records import PageResult
from ocr_pipeline.stages.dolma_documents import build_document, document_id, document_markdown
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import gzip_jsonl, jsonl_bytes, read_gzip_jsonl, read_jsonl


def _pages() -> list[PageResult]:
    return [
        PageResult("h", 2, "Second page.", primary_language="en", engine="cpu", model="m", is_fallback=True),
        PageResult("h", 1, "First page.", primary_language="en", engine="cpu", model="m", input_tokens=5),
        PageResult("h", 3, "", primary_language=None, engine="cpu", model="m", rotation_correction=90),
    ]


def test_document_fields_and_spans() -> None:
    doc = build_document("s3://b/x.pdf", _pages(), added="2026-11-29", total_pages=3)
    assert set(doc) == {"id", "text", "source", "added", "created", "metadata", "attributes"}
    assert doc["text"] == "First page.\nSecond page.\n"
    spans = doc["attributes"]["pdf_page_numbers"]
    assert spans == [[0, 12, 1], [12, 25, 2], [25, 25, 3]]
    assert doc["text"][spans[1][0] : spans[1][1]] == "Second page.\n"
    meta = doc["metadata"]
    assert meta["Source-File"] == "s3://b/x.pdf" and meta["pdf-total-pages"] == 3
    assert meta["total-fallback-pages"] == 1 and meta["total-input-tokens"] == 5
    assert doc["attributes"]["rotation_correction"] == [0, 0, 90]
    assert doc["attributes"]["primary_language"] == ["en", "en", None]
    assert doc["id"] == document_id("s3://b/x.pdf") != document_id("s3://b/y.pdf")


def test_shards_are_byte_identical_and_round_trip() -> None:
    docs = [build_document(f"x{i}.pdf", _pages(), added="2026-11-29", total_pages=3) for i in range(3)]
    assert gzip_jsonl(docs) == gzip_jsonl(docs)
    assert read_gzip_jsonl(gzip_jsonl(docs)) == docs


def test_markdown_keeps_page_breaks() -> None:
    doc = build_document("x.pdf", _pages(), added="2026-11-29", total_pages=3)
    assert document_markdown(doc) == "First page.\n\nSecond page.\n"


def test_a_shard_whose_text_holds_line_separators_reads_back_whole(tmp_path: Path) -> None:
    # U+2028 and U+0085 are written raw (ensure_ascii off): str.splitlines would cut the document's line there.
    docs = [{"id": "a", "text": "one\u2028two\u0085three\rfour"}, {"id": "b", "text": "plain"}]
    assert read_gzip_jsonl(gzip_jsonl(docs)) == docs
    ws = LocalWorkspace(str(tmp_path))
    ws.write_bytes("ledger.jsonl", jsonl_bytes(docs))
    assert read_jsonl(ws, "ledger.jsonl") == docs
