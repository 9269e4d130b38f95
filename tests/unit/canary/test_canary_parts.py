"""The canary's parts on their own: the shipped set, the olmOCR-Bench semantics it scores with, the verdict marker."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ocr_pipeline.canary.bench_set import BenchSetError, load_bench_set, shipped_tests_file
from ocr_pipeline.canary.olmo_tests import end_repeats, near_match_starts, run_test
from ocr_pipeline.canary.verdict import CanaryVerdict, canary_fingerprint, public_server, read_verdict, write_verdict
from ocr_pipeline.workspace.storage import LocalWorkspace
from tests.support.builders import pdfgen
from tests.support.canary_oracle import reference_answers


def test_the_shipped_set_has_born_digital_and_scanned_pages_and_tests_only_reading_passes() -> None:
    bench = load_bench_set(shipped_tests_file())
    kinds = [t["type"] for t in bench.tests]
    assert 24 <= len(bench.pages) <= 40 and {"present", "absent", "order", "table", "baseline"} == set(kinds)
    assert sum(p.pdf.startswith("scan_") for p in bench.pages) >= 6
    # An answer unrelated to the page passes the absent and baseline tests only: under a third of the set.
    assert (kinds.count("absent") + kinds.count("baseline")) / len(kinds) < 0.33
    references = reference_answers()
    assert sorted(references) == sorted(p.name for p in bench.pages)
    for test in bench.tests:  # the reference answers are right: every test passes on them
        assert run_test(test, references[f"{Path(test['pdf']).stem}_pg{test['page']}"]), test["id"]


def test_baseline_is_olmocrs_not_empty_no_loop_at_the_end_no_refused_script_and_blank_pages() -> None:
    baseline = {"type": "baseline"}
    assert run_test(baseline, "A page of text.")
    assert not run_test(baseline, "  \n ")
    assert end_repeats("x" + "ab" * 40) == 40 and not run_test(baseline, "Intro " + "ab" * 40)
    assert run_test(baseline, "Intro " + "ab" * 30)  # olmOCR fails above 30 repeats, not at
    assert not run_test(baseline, "A page \u4e2d\u6587")
    assert run_test({**baseline, "check_disallowed_characters": False}, "A page \u4e2d\u6587")
    blank = {"type": "baseline", "max_length": 5}
    assert run_test(blank, "1 2 3") and not run_test(blank, "Invented text for a blank page")


def _write_set(folder: Path, lines: list[str]) -> Path:
    (folder / "pdfs").mkdir(parents=True, exist_ok=True)
    pdfgen.write(folder / "pdfs" / "a.pdf", pdfgen.text_pdf([["One page."]]))
    tests = folder / "tests.jsonl"
    tests.write_text("\n".join(lines) + "\n")
    return tests


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("not json", "not JSON"),
        ('{"pdf": "a.pdf", "page": 1, "type": "present"}', "lacks ['id']"),
        ('{"pdf": "a.pdf", "page": 0, "id": "x", "type": "present"}', "page must be a positive integer"),
        ('{"pdf": "../../etc/passwd", "page": 1, "id": "x", "type": "present"}', "lies outside"),
        ('{"pdf": "b.pdf", "page": 1, "id": "x", "type": "present"}', "'b.pdf' not found"),
    ],
)
def test_a_bad_test_file_is_refused_with_its_line(tmp_path: Path, line: str, reason: str) -> None:
    tests = _write_set(tmp_path, ['{"pdf": "a.pdf", "page": 1, "id": "ok", "type": "present", "text": "One"}', line])
    with pytest.raises(BenchSetError, match=f"tests.jsonl:2: .*{re.escape(reason)}"):
        load_bench_set(tests)


def test_a_set_folder_is_read_and_its_digest_follows_its_pdfs(tmp_path: Path) -> None:
    tests = _write_set(tmp_path, ['{"pdf": "a.pdf", "page": 1, "id": "ok", "type": "present", "text": "One"}'])
    first = load_bench_set(tmp_path)
    assert [p.name for p in first.pages] == ["a_pg1"] and first.tests_file == tests
    pdfgen.write(tmp_path / "pdfs" / "a.pdf", pdfgen.text_pdf([["Another page."]]))
    assert load_bench_set(tests).digest != first.digest


def test_the_fingerprint_names_engine_model_server_set_and_threshold_never_credentials(tmp_path: Path) -> None:
    base = ("vlm", "v4", "olmocr", "http://gpu:8000/v1", "abc", 0.8)
    fp = canary_fingerprint(*base)
    for i, other in enumerate(("cpu", "v5", "other-model", "http://gpu2:8000/v1", "abd", 0.9)):
        changed = list(base)
        changed[i] = other
        assert canary_fingerprint(*changed) != fp  # type: ignore[arg-type]
    assert public_server("https://user:s3cret@gpu:8000/v1/") == "https://gpu:8000/v1"
    assert canary_fingerprint("vlm", "v4", "olmocr", "http://u:p@gpu:8000/v1", "abc", 0.8) == fp
    ws = LocalWorkspace(str(tmp_path / "ws"))
    assert read_verdict(ws, fp) is None
    verdict = CanaryVerdict(fp, False, 0.26, 0.8, "vlm", "olmocr", "http://gpu:8000/v1", 235, 26, 0, 8.0, "now")
    write_verdict(ws, verdict)
    assert read_verdict(ws, fp) == verdict and "FAILED" in verdict.summary() and "26.0%" in verdict.summary()
    ws.write_bytes(f"canary/{fp}.json", json.dumps({"fingerprint": fp}).encode())
    assert read_verdict(ws, fp) is None  # another version's marker: the canary is owed again


def test_order_tables_and_presence_follow_olmocrs_rules() -> None:
    # Any match of `before` ahead of any match of `after` passes, within max_diffs edits.
    assert run_test({"type": "order", "before": "second", "after": "first"}, "first second first")
    assert not run_test({"type": "order", "before": "second", "after": "first"}, "first second")
    assert run_test(
        {"type": "order", "before": "helo world", "after": "the end", "max_diffs": 1}, "hello world. the end"
    )
    assert near_match_starts("abc", "xxabdxx", 1) and not near_match_starts("abc", "xxadxx", 1)
    with pytest.raises(ValueError, match="refuses"):  # olmOCR does not load it, so it is not scored
        run_test({"type": "order", "before": "F.", "after": "text", "max_diffs": 2}, "F. text")
    # A Markdown pipe table counts as much as an HTML one.
    markdown = "| Region | Wheat |\n|---|---:|\n| North | 12.5 |\n| South | 7.0 |"
    assert run_test({"type": "table", "cell": "12.5", "left": "North", "top_heading": "Wheat", "down": "7.0"}, markdown)
    assert not run_test({"type": "table", "cell": "12.5", "left": "South"}, markdown)
    # case_sensitive and first_n / last_n, as olmOCR's presence test reads them.
    page = "Journal of Things. Body text follows here. Page 12"
    assert not run_test({"type": "present", "text": "journal of things"}, page)
    assert run_test({"type": "present", "text": "journal of things", "case_sensitive": False}, page)
    assert run_test({"type": "absent", "text": "Journal of Things", "last_n": 20}, page)
    assert not run_test({"type": "absent", "text": "Journal of Things", "first_n": 20}, page)
