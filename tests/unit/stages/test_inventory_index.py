"""The inventory's seen-index: rescans skip what is known, crashes lose nothing, parts are compacted."""

from __future__ import annotations

from pathlib import Path

import pytest

from ocr_pipeline.stages import inventory_index
from ocr_pipeline.stages.inventory_index import INDEX_PREFIX, append_index, read_known_rows
from ocr_pipeline.stages.pdf_inventory import list_groups, scan_inputs
from ocr_pipeline.workspace.storage import LocalWorkspace
from tests.support.builders import pdfgen


def _pdf(folder: Path, name: str) -> None:
    pdfgen.write(folder / name, pdfgen.text_pdf([[f"This is the document called {name}, one page long."]]))


def test_rescans_use_the_index_and_find_only_new_inputs(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path / "ws")
    for i in range(3):
        _pdf(tmp_path / "in", f"a{i}.pdf")
    first = scan_inputs([str(tmp_path / "in")], ws, pages_per_group=1)
    assert first.new_groups == ["g000001", "g000002", "g000003"]
    assert len(list(ws.list(INDEX_PREFIX))) == 1
    # Without the group manifests' help: the index alone answers what is known.
    assert {Path(r["source"]).name for r in read_known_rows(ws, list_groups(ws))} == {"a0.pdf", "a1.pdf", "a2.pdf"}
    _pdf(tmp_path / "in", "b.pdf")
    second = scan_inputs([str(tmp_path / "in")], ws, pages_per_group=1)
    assert second.new_groups == ["g000004"] and second.new_inputs == 1 and second.already_known == 3


def test_a_scan_that_died_midway_neither_hides_nor_repeats_inputs(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path / "ws")
    _pdf(tmp_path / "in", "a.pdf")
    scan_inputs([str(tmp_path / "in")], ws, pages_per_group=1)
    # An index part whose group file was never written (the scan died in between) does not count...
    append_index(ws, [{"source": str((tmp_path / "in" / "c.pdf").resolve()), "sha256": "x", "etag": "",
                       "size": 1, "status": "ok", "group": "g000009"}])  # fmt: skip
    _pdf(tmp_path / "in", "c.pdf")
    again = scan_inputs([str(tmp_path / "in")], ws, pages_per_group=1)
    assert again.new_inputs == 1 and again.new_groups == ["g000002"]
    # ...and a group file the index does not cover is read directly.
    for key in list(ws.list(INDEX_PREFIX)):
        ws.delete(key)
    assert scan_inputs([str(tmp_path / "in")], ws, pages_per_group=1).new_inputs == 0


def test_parts_are_compacted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inventory_index, "MAX_PARTS", 3)
    ws = LocalWorkspace(tmp_path / "ws")
    for i in range(5):
        _pdf(tmp_path / "in", f"d{i}.pdf")
        scan_inputs([str(tmp_path / "in")], ws, pages_per_group=1)
    assert len(list(ws.list(INDEX_PREFIX))) <= 3
    assert len(read_known_rows(ws, list_groups(ws))) == 5
