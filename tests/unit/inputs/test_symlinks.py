"""A symlink loop among the inputs is one rejection, not a failed scan."""

from __future__ import annotations

import os
from pathlib import Path

from ocr_pipeline.stages.pdf_inventory import read_group, scan_inputs
from ocr_pipeline.workspace.storage import LocalWorkspace
from tests.support.builders import pdfgen


def test_a_self_referencing_link_is_rejected_and_the_rest_scanned(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    pdfgen.write(folder / "good.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[0]]]))
    os.symlink("s.pdf", folder / "s.pdf")  # `ln -s s.pdf dir/s.pdf`: resolving it loops
    ws = LocalWorkspace(tmp_path / "ws")
    result = scan_inputs([str(folder)], ws, pages_per_group=10)
    assert result.rejected == {"symlink_loop": 1} and result.new_inputs == 2
    rows = {Path(r["source"]).name: r for r in read_group(ws, "g000001")}
    assert rows["good.pdf"]["status"] == "ok" and rows["s.pdf"]["reason"] == "symlink_loop"


def test_a_link_out_of_the_input_folder_is_refused_without_copying_its_bytes(tmp_path: Path) -> None:
    secret = tmp_path / "outside" / "passwd.pdf"
    pdfgen.write(secret, b"root:x:0:0:SECRET-TOKEN-1234:/root:/bin/bash\n")
    folder = tmp_path / "in"
    pdfgen.write(folder / "good.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[0]]]))
    os.symlink(secret, folder / "x.pdf")  # `x.pdf -> /etc/passwd`
    ws = LocalWorkspace(tmp_path / "ws")
    assert scan_inputs([str(folder)], ws, pages_per_group=10).rejected == {"unsafe_link": 1}
    rows = {Path(r["source"]).name: r for r in read_group(ws, "g000001")}
    assert rows["x.pdf"]["source"] == str(folder / "x.pdf")  # named by the link, not by its target
    assert rows["x.pdf"]["reason"] == "unsafe_link" and "SECRET" not in rows["x.pdf"]["detail"]
    # Allowed by the setting, the target is read; refused as not a PDF, its bytes still stay out of the ledger.
    followed = LocalWorkspace(tmp_path / "ws2")
    assert scan_inputs([str(folder)], followed, pages_per_group=10, follow_external_links=True).rejected == {
        "not_a_pdf": 1
    }
    [row] = [r for r in read_group(followed, "g000001") if r["status"] == "rejected"]
    assert "root" not in row["detail"] and "SECRET" not in row["detail"] and "%PDF" in row["detail"]


def test_a_link_inside_the_folder_is_followed(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    pdfgen.write(folder / "sub" / "real.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[1]]]))
    os.symlink(folder / "sub" / "real.pdf", folder / "alias.pdf")
    ws = LocalWorkspace(tmp_path / "ws")
    result = scan_inputs([str(folder)], ws, pages_per_group=10)
    assert result.rejected == {} and result.new_inputs == 1  # the link names the same file: recorded once
