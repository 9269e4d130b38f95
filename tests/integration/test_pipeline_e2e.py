"""End to end in-process: every asset materialized for a partition, the Dolma text and the ledger checked."""

from __future__ import annotations

from pathlib import Path

from dagster import DagsterInstance, materialize
from rapidfuzz import fuzz

from ocr_pipeline.defs.materialize import ASSETS_AND_CHECKS, GROUP_ASSETS, run_group, run_inventory, run_resources
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.stages.pdf_inventory import list_groups, read_group
from ocr_pipeline.workspace.keys import dolma_key, markdown_key, rejected_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import read_gzip_jsonl, read_jsonl, read_rows
from tests.support.builders import pdfgen


def _materialize_all(settings: PipelineSettings) -> tuple[DagsterInstance, list[str]]:
    instance = DagsterInstance.ephemeral()
    groups = run_inventory(settings, instance)
    for group in groups:
        # materialize() itself, not run_group(): a failing step raises here with its traceback.
        result = materialize(
            ASSETS_AND_CHECKS,
            selection=GROUP_ASSETS,
            partition_key=group,
            instance=instance,
            resources=run_resources(settings),
        )
        assert result.success
    return instance, groups


def test_every_input_ends_as_document_or_rejection(mixed_corpus: Path, tmp_path: Path) -> None:
    settings = PipelineSettings(workspace=str(tmp_path / "ws"), pdfs=[str(mixed_corpus)], markdown=True)
    _, groups = _materialize_all(settings)
    ws = LocalWorkspace(settings.workspace)
    assert groups == list_groups(ws) == ["g000001"]
    docs = {d["metadata"]["Source-File"]: d for d in read_gzip_jsonl(ws.read_bytes(dolma_key("g000001")))}
    ledger = {Path(line["source"].split("::")[-1]).name: line for line in read_jsonl(ws, rejected_key("g000001"))}
    names = {Path(s).name for s in docs}
    # Of two identical files the first in scan order is the document, the other a duplicate.
    assert names == {"copy_of_report.pdf", "columns.pdf", "scan.pdf", "open_encrypted.pdf", "huge.pdf", "letter.pdf"}
    assert ledger["report.pdf"]["reason"] == "duplicate"
    assert ledger["zero.pdf"]["reason"] == "empty_file"
    assert ledger["random.pdf"]["reason"] == "not_a_pdf"
    assert ledger["page.pdf"]["reason"] == "html_not_pdf"
    assert ledger["locked.pdf"]["reason"] == "encrypted_pdf"
    assert ledger["escape.pdf"]["reason"] == "unsafe_archive_member"
    assert ledger["truncated.pdf"]["reason"] in {"corrupt_pdf", "render_failed", "no_text"}
    # Every inventoried input is in exactly one of dolma/ or rejected/.
    sources = {r["source"] for r in read_group(ws, "g000001")}
    assert sources == set(docs) | {line["source"] for line in read_jsonl(ws, rejected_key("g000001"))}
    assert not set(docs) & {line["source"] for line in read_jsonl(ws, rejected_key("g000001"))}

    report = next(d for s, d in docs.items() if s.endswith("copy_of_report.pdf"))
    flat = " ".join(report["text"].split())  # lines wrap inside sentences
    positions = [flat.find(s) for s in pdfgen.SENTENCES[:6]]
    assert all(p >= 0 for p in positions) and positions == sorted(positions)
    spans = report["attributes"]["pdf_page_numbers"]
    assert [s[2] for s in spans] == [1, 2] and spans[0][0] == 0 and spans[-1][1] == len(report["text"])
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False))
    assert pdfgen.SENTENCES[4] in " ".join(report["text"][spans[1][0] : spans[1][1]].split())
    assert report["metadata"]["pdf-total-pages"] == 2 and report["metadata"]["total-fallback-pages"] == 0

    scan = next(d for s, d in docs.items() if s.endswith("scan.pdf"))
    for sentence in pdfgen.SENTENCES[6:8]:
        assert fuzz.partial_ratio(sentence, scan["text"]) >= 90
    huge = next(d for s, d in docs.items() if s.endswith("huge.pdf"))
    assert "Enormous page" in huge["text"]

    inventory = {Path(r["source"]).name: r for r in read_group(ws, "g000001")}
    assert inventory["copy_of_report.pdf"]["page_count"] == 2
    pages = read_rows(ws, "pages/g000001.parquet", ["source", "width", "height"])
    assert max(max(p["width"], p["height"]) for p in pages) <= 1288
    md = ws.read_bytes(markdown_key("copy_of_report.pdf")).decode()
    assert pdfgen.SENTENCES[0] in " ".join(md.split())
    assert ws.exists(markdown_key("bundle/inner/letter.pdf"))
    assert not any("escape" in key for key in ws.list("markdown/"))


def test_rerun_is_exact_and_served_from_the_memo(tmp_path: Path) -> None:
    corpus = tmp_path / "in"
    pdfgen.write(corpus / "a.pdf", pdfgen.text_pdf([pdfgen.SENTENCES[:2], pdfgen.SENTENCES[2:4]]))
    pdfgen.write(corpus / "s.pdf", pdfgen.scan_pdf(pdfgen.text_pdf([pdfgen.SENTENCES[4:5]], font_size=18), dpi=100))
    settings = PipelineSettings(workspace=str(tmp_path / "ws"), pdfs=[str(corpus)])
    instance, groups = _materialize_all(settings)
    ws = LocalWorkspace(settings.workspace)
    first = ws.read_bytes(dolma_key(groups[0]))
    assert run_group(settings, groups[0], instance)
    assert ws.read_bytes(dolma_key(groups[0])) == first
    ocr = read_rows(ws, "manifests/ocr/g000001.parquet", ["memo_hit"])
    assert len(ocr) == 3 and all(r["memo_hit"] for r in ocr)
    # A second scan of the same inputs forms no new group: a PDF keeps its group for life.
    _materialize_all(settings)
    assert list_groups(ws) == groups


def test_groups_follow_pages_per_group(tmp_path: Path) -> None:
    corpus = tmp_path / "in"
    for i in range(5):
        pdfgen.write(corpus / f"d{i}.pdf", pdfgen.text_pdf([[f"Document number {i} page {p}."] for p in range(3)]))
    settings = PipelineSettings(workspace=str(tmp_path / "ws"), pdfs=[str(corpus)], pages_per_group=7)
    _, groups = _materialize_all(settings)
    ws = LocalWorkspace(settings.workspace)
    assert groups == ["g000001", "g000002", "g000003"]
    assert [len(read_group(ws, g)) for g in groups] == [2, 2, 1]
    total = sum(len(read_gzip_jsonl(ws.read_bytes(dolma_key(g)))) for g in groups)
    assert total == 5


def test_scan_with_a_text_stamp_is_still_read(tmp_path: Path) -> None:
    # A real-text "Downloaded from" line over a full-page scan must not pass for the page's text layer.
    stamp = "Downloaded from https://archive.example.org on 29 November 2026 by an anonymous reader"
    body = pdfgen.text_pdf([pdfgen.SENTENCES[2:4]], font_size=16)
    pdfgen.write(tmp_path / "in" / "stamped.pdf", pdfgen.stamped_scan_pdf(body, stamp))
    settings = PipelineSettings(workspace=str(tmp_path / "ws"), pdfs=[str(tmp_path / "in")])
    _materialize_all(settings)
    ws = LocalWorkspace(settings.workspace)
    [doc] = read_gzip_jsonl(ws.read_bytes(dolma_key("g000001")))
    for sentence in pdfgen.SENTENCES[2:4]:
        assert fuzz.partial_ratio(sentence, doc["text"]) >= 90, doc["text"]
    [page] = read_rows(ws, "pages/g000001.parquet", ["text_layer", "text_layer_trusted"])
    assert stamp in page["text_layer"] and not page["text_layer_trusted"]
