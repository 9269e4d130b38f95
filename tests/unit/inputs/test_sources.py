"""Input specs, archives and path safety: what a scan finds, and that nothing escapes the workspace."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from ocr_pipeline.inputs.archives import extract_archive
from ocr_pipeline.inputs.specs import InputSpecError, check_specs, resolve_inputs
from ocr_pipeline.workspace.keys import markdown_key
from ocr_pipeline.workspace.safepaths import check_key, safe_name, safe_relative_path
from ocr_pipeline.workspace.storage import LocalWorkspace
from tests.support.builders import pdfgen
from tests.support.builders.pdfgen import add_tar_member


def _tree(root: Path) -> None:
    for rel in ["a.pdf", "sub/b.PDF", "sub/c.png", "sub/deeper/d.jpg", "notes.docx", ".hidden/e.pdf"]:
        pdfgen.write(root / rel, b"x")


def test_folder_scan_finds_every_file_in_stable_order(tmp_path: Path) -> None:
    _tree(tmp_path)
    refs = list(resolve_inputs([str(tmp_path)]))
    assert [r.rel_path for r in refs] == ["a.pdf", "notes.docx", "sub/b.PDF", "sub/c.png", "sub/deeper/d.jpg"]
    assert [r.kind for r in refs] == ["pdf", "unsupported", "pdf", "image", "image"]


def test_glob_and_list_specs(tmp_path: Path) -> None:
    _tree(tmp_path)
    refs = list(resolve_inputs([str(tmp_path / "sub" / "**" / "*.jpg")]))
    assert [r.rel_path for r in refs] == ["deeper/d.jpg"]
    listing = tmp_path / "inputs.txt"
    listing.write_text("# comment\na.pdf\n\nsub/c.png\n")
    assert [Path(r.source).name for r in resolve_inputs([str(listing)])] == ["a.pdf", "c.png"]


def test_missing_inputs_fail_loudly(tmp_path: Path) -> None:
    with pytest.raises(InputSpecError, match="no such file"):
        check_specs([str(tmp_path / "missing.pdf")])
    with pytest.raises(InputSpecError, match="no file matches"):
        check_specs([str(tmp_path / "*.pdf")])
    loop = tmp_path / "loop.txt"
    loop.write_text(str(loop) + "\n")
    with pytest.raises(InputSpecError, match="nested"):
        list(resolve_inputs([str(loop)]))


def test_archive_members_are_extracted_safely(tmp_path: Path) -> None:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        add_tar_member(tar, "docs/ok.pdf", pdfgen.text_pdf([["hello"]]))
        add_tar_member(tar, "../x.pdf", b"%PDF-evil")
        add_tar_member(tar, "/etc/abs.pdf", b"%PDF-evil")
        add_tar_member(tar, "readme.txt", b"text")
        link = tarfile.TarInfo("link.pdf")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
    archive = pdfgen.write(tmp_path / "batch.tar.gz", data.getvalue())
    ws = LocalWorkspace(tmp_path / "ws")
    members = {m.source.split("::")[1]: m for m in extract_archive(str(archive), str(archive), ws)}
    assert members["docs/ok.pdf"].key and ws.exists(members["docs/ok.pdf"].key)
    assert members["docs/ok.pdf"].rel_path == "batch/docs/ok.pdf"
    assert members["../x.pdf"].reason == "unsafe_archive_member" and members["../x.pdf"].key is None
    assert members["/etc/abs.pdf"].reason == "unsafe_archive_member"
    assert members["readme.txt"].reason == "unsupported_type"
    assert members["link.pdf"].reason == "unsupported_archive_member"
    assert not (tmp_path / "x.pdf").exists() and not (tmp_path / "ws" / "x.pdf").exists()
    garbage = pdfgen.write(tmp_path / "bad.tar.gz", b"not a tar at all")
    [only] = list(extract_archive(str(garbage), str(garbage), ws))
    assert only.reason == "corrupt_archive"


@pytest.mark.parametrize(
    ("raw", "safe"),
    [
        ("../../etc/passwd", "etc/passwd"),
        ("/abs/path/x.pdf", "abs/path/x.pdf"),
        ("a/./b/../c.pdf", "a/b/c.pdf"),
        ("C:\\Users\\x\\y.pdf", "Users/x/y.pdf"),
        ("..", "_"),
        ("we ird/na me?.pdf", "we_ird/na_me_.pdf"),
    ],
)
def test_safe_relative_path(raw: str, safe: str) -> None:
    assert safe_relative_path(raw) == safe


def test_workspace_refuses_escaping_keys(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path / "ws")
    for key in ["../x", "/etc/passwd", "a/../../x", "a//b", ""]:
        with pytest.raises(ValueError):
            ws.write_bytes(key, b"x")
    assert check_key("dolma/g1.jsonl.gz") == "dolma/g1.jsonl.gz"
    assert safe_name("../g 1") == "g_1"
    assert markdown_key("../../x/report.final.pdf") == "markdown/x/report.final.md"
    ws.write_bytes("a/b.txt", b"1")
    ws.write_bytes("a/b.txt", b"2")
    assert ws.read_bytes("a/b.txt") == b"2" and list(ws.list("a/")) == ["a/b.txt"]
