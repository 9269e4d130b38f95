"""A group's outputs as the checks read them (checks/loaders.py): the shard's documents whole, the manifests' columns
but the page images, each column a test in Python reads."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa

from ocr_pipeline.checks.loaders import PartitionData
from ocr_pipeline.workspace.keys import dolma_key, pages_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import write_table

GROUP = "g000001"


def test_a_document_whose_text_holds_a_line_separator_is_read_whole(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path)
    docs = [{"id": "a", "text": "one\u2028two\u0085three\r\nfour"}, {"id": "b", "text": "five"}]
    lines = "".join(json.dumps(doc, ensure_ascii=False) + "\r\n" for doc in docs)
    ws.write_bytes(dolma_key(GROUP), gzip.compress(lines.encode("utf-8") + b"\n  \n"))
    assert PartitionData(ws, GROUP).rows("dolma_shards") == docs


def test_a_manifest_is_read_without_its_images_and_rows_hold_the_columns_asked(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path)
    schema = pa.schema([("source", pa.string()), ("page_num", pa.int32()), ("png", pa.binary()), ("width", pa.int32())])
    rows = [{"source": "/in/a.pdf", "page_num": 1, "png": b"\x89PNG", "width": 995}]
    write_table(ws, pages_key(GROUP), rows, schema)
    data = PartitionData(ws, GROUP)
    assert "png" not in data.table("page_images").column_names
    assert data.rows("page_images", ["source", "page_num", "nope"]) == [{"source": "/in/a.pdf", "page_num": 1}]
    assert data.rows("page_images") == [{"source": "/in/a.pdf", "page_num": 1, "width": 995}]
