"""A symlink loop among the inputs is one rejection, not a failed scan."""

from __future__ import annotations

import os
from pathlib import Path

from ocr_pipeline.stages.pdf_inventory import read_group, scan_inputs
from ocr_pipeline.workspace.storage import LocalWorkspace
from tests.support import pdfgen


def test_a_self_referencing_link_is_rejected_and_the_rest_scanned(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    pdfgen.write(folder / "good.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[0]]]))
    os.symlink("s.pdf", folder / "s.pdf")  # `ln -s s.pdf dir/s.pdf`: resolving it loops
    ws = LocalWorkspace(tmp_path / "ws")
    result = scan_inputs([str(folder)], ws, pages_per_group=10)
    assert result.rejected == {"symlink_loop": 1} and result.new_inputs == 2
    rows = {Path(r["source"]).name: r for r in read_group(ws, "g000001")}
    assert rows["good.pdf"]["status"] == "ok" and rows["s.pdf"]["reason"] == "symlink_loop"
