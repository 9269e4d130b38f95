"""The `ocr-pipeline run` command as a user runs it: a subprocess, its exit code, summary and outputs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ocr_pipeline.cli import build_parser, settings_from_args
from ocr_pipeline.workspace.tables import read_gzip_jsonl
from tests.support.builders import pdfgen


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ocr_pipeline.cli", "run", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_cli_runs_all_stages_and_resumes(tmp_path: Path) -> None:
    corpus = tmp_path / "in"
    pdfgen.write(corpus / "one.pdf", pdfgen.text_pdf([pdfgen.SENTENCES[:2], pdfgen.SENTENCES[2:4]]))
    pdfgen.write(corpus / "deep" / "two.pdf", pdfgen.two_column_pdf(pdfgen.SENTENCES[:2], pdfgen.SENTENCES[2:4]))
    pdfgen.write(corpus / "broken.pdf", b"%PDF-1.7\n garbage")
    listing = tmp_path / "list.txt"
    listing.write_text("# inputs\nin/one.pdf\n\nin/deep/two.pdf\nin/broken.pdf\n")
    ws = tmp_path / "ws"
    proc = _run(str(ws), "--pdfs", str(listing), "--markdown", "--pages-per-group", "2", "--quiet")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "documents:      2" in proc.stdout
    assert "corrupt_pdf=1" in proc.stdout
    shards = sorted(ws.glob("dolma/*.jsonl.gz"))
    # one.pdf fills the first group (2 pages); two.pdf (1 page) and broken.pdf (weight 1) share the second.
    assert [p.name for p in shards] == ["g000001.jsonl.gz", "g000002.jsonl.gz"]
    docs = [d for p in shards for d in read_gzip_jsonl(p.read_bytes())]
    assert len(docs) == 2
    assert (ws / "markdown" / "one.md").is_file() and (ws / "markdown" / "two.md").is_file()
    ledger = [json.loads(line) for p in sorted(ws.glob("rejected/*.jsonl")) for line in p.read_text().splitlines()]
    assert [line["reason"] for line in ledger] == ["corrupt_pdf"]
    # A second run finds nothing new to do and still exits 0.
    again = _run(str(ws), "--pdfs", str(listing), "--quiet")
    assert again.returncode == 0 and "groups run:     0" in again.stdout
    # A group whose shard is gone is what `pending` lists, and what a run without --pdfs redoes.
    (ws / "dolma" / "g000002.jsonl.gz").unlink()
    pending = subprocess.run([sys.executable, "-m", "ocr_pipeline.cli", "pending", str(ws)],
                             capture_output=True, text=True, timeout=60)  # fmt: skip
    assert pending.stdout.split() == ["g000002"]
    resumed = _run(str(ws), "--quiet")
    assert resumed.returncode == 0 and "groups run:     1" in resumed.stdout


def test_cli_rejects_a_missing_input_clearly(tmp_path: Path) -> None:
    proc = _run(str(tmp_path / "ws"), "--pdfs", str(tmp_path / "nope" / "*.pdf"))
    assert proc.returncode == 2
    assert "no file matches" in proc.stderr


def test_flags_accept_olmocr_and_dashed_spellings() -> None:
    parser = build_parser()
    a = settings_from_args(
        parser.parse_args(
            ["run", "ws", "--pdfs", "x.pdf", "--pages_per_group", "7", "--max_page_error_rate", "0.5", "--apply_filter"]
        )
    )
    b = settings_from_args(
        parser.parse_args(
            ["run", "ws", "--pdfs", "x.pdf", "--pages-per-group", "7", "--max-page-error-rate", "0.5", "--apply-filter"]
        )
    )
    assert a == b and a.pages_per_group == 7 and a.apply_filter


def test_bad_flag_values_are_refused() -> None:
    proc = _run("ws", "--pdfs", "x.pdf", "--pages_per_group", "0")
    assert proc.returncode == 2 and "pages_per_group" in proc.stderr


def test_workers_run_groups_in_parallel_processes(tmp_path: Path) -> None:
    for i in range(4):
        pdfgen.write(tmp_path / "in" / f"d{i}.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[i], pdfgen.SENTENCES[i + 1]]]))
    proc = _run(str(tmp_path / "ws"), "--pdfs", str(tmp_path / "in"), "--pages_per_group", "1", "--workers", "2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "groups run:     4" in proc.stdout and "documents:      4" in proc.stdout
    assert len(list((tmp_path / "ws" / "dolma").glob("*.jsonl.gz"))) == 4
