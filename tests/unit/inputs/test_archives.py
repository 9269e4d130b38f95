"""Archives: a per-run expansion budget, long member names refused one by one, copies deleted once done."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from ocr_pipeline.inputs.archives import ARCHIVES_PREFIX, extract_archive
from ocr_pipeline.stages.pdf_inventory import read_group, scan_inputs
from ocr_pipeline.workspace.keys import dolma_key, done_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from tests.support.builders import pdfgen
from tests.support.builders.pdfgen import add_tar_member

MIB = 1024 * 1024


def _archive(path: Path, members: list[tuple[str, bytes]]) -> Path:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name, payload in members:
            add_tar_member(tar, name, payload)
    return pdfgen.write(path, data.getvalue())


def _extracted_bytes(ws_root: Path) -> int:
    folder = ws_root / ARCHIVES_PREFIX
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) if folder.exists() else 0


def test_a_bomb_is_cut_off_at_the_run_budget_and_the_rest_waits(tmp_path: Path) -> None:
    # Eight 4 MiB members of zeros compress to a few KiB: a small archive that expands far past its size.
    bomb = _archive(tmp_path / "in" / "bomb.tar.gz", [(f"m{i}.pdf", bytes(4 * MIB)) for i in range(8)])
    assert bomb.stat().st_size < 200_000
    ws = LocalWorkspace(tmp_path / "ws")
    first = scan_inputs([str(tmp_path / "in")], ws, pages_per_group=100, max_archive_bytes=10 * MIB)
    assert first.rejected == {"not_a_pdf": 2, "archive_budget_exceeded": 1}
    assert _extracted_bytes(tmp_path / "ws") <= 10 * MIB  # nothing beyond the budget was written
    cut = next(r for r in read_group(ws, "g000001") if r["reason"] == "archive_budget_exceeded")
    assert cut["source"].endswith("::m2.pdf") and "budget" in cut["detail"]
    # The members after the cut are read by the next run, with a budget of its own; none is read twice.
    second = scan_inputs([str(tmp_path / "in")], ws, pages_per_group=100, max_archive_bytes=10 * MIB)
    assert second.new_inputs == 3 and second.rejected == {"not_a_pdf": 2, "archive_budget_exceeded": 1}
    sources = [r["source"] for g in ("g000001", "g000002") for r in read_group(ws, g)]
    assert len(sources) == len(set(sources)) == 6


def test_a_name_over_255_bytes_is_refused_alone(tmp_path: Path) -> None:
    good = pdfgen.text_pdf([["hello"]])
    long_name = "d/" + "n" * 300 + ".pdf"
    archive = _archive(tmp_path / "a.tar.gz", [("one.pdf", good), (long_name, good), ("two.pdf", good + b" ")])
    ws = LocalWorkspace(tmp_path / "ws")
    members = {m.source.split("::")[1]: m for m in extract_archive(str(archive), str(archive), ws)}
    assert members[long_name].reason == "name_too_long" and members[long_name].key is None
    assert members["one.pdf"].key and members["two.pdf"].key  # the members after it are still read
    assert ws.exists(members["two.pdf"].key)


def test_copies_are_deleted_once_their_group_is_done_and_never_extracted_again(tmp_path: Path) -> None:
    pdfs = [(f"p{i}.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[i]]])) for i in range(2)]
    _archive(tmp_path / "in" / "batch.tar.gz", pdfs)
    ws = LocalWorkspace(tmp_path / "ws")
    groups = scan_inputs([str(tmp_path / "in")], ws, pages_per_group=1).new_groups
    assert groups == ["g000001", "g000002"] and len(list(ws.list(ARCHIVES_PREFIX))) == 2
    # g000001 done (its marker and shard published), g000002 still pending: only g000001's copy goes.
    ws.write_bytes(dolma_key("g000001"), b"")
    ws.write_bytes(done_key("g000001"), b"{}")
    again = scan_inputs([str(tmp_path / "in")], ws, pages_per_group=1)
    assert again.new_inputs == 0
    [left] = list(ws.list(ARCHIVES_PREFIX))
    assert left == read_group(ws, "g000002")[0]["location"][3:]
    ws.write_bytes(dolma_key("g000002"), b"")
    ws.write_bytes(done_key("g000002"), b"{}")
    scan_inputs([str(tmp_path / "in")], ws, pages_per_group=1)
    assert list(ws.list(ARCHIVES_PREFIX)) == []  # and the rescan did not extract the known members again
