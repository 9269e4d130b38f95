"""The fake server's failure modes through a whole partition: each one detected in the manifest's quality column,
retried at olmOCR's next temperatures where the engine can tell, flagged in the Dolma attributes, counted by the
partition's checks, and kept out of the shard's text (among them a line or a block of lines looping at the end of a
good page, a paragraph written twice, a page of prose for a near-blank scan)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from dagster import DagsterInstance

from ocr_pipeline.defs.materialize import run_group, run_inventory
from ocr_pipeline.engines.vlm.prompts import TEMPERATURE_BY_ATTEMPT
from ocr_pipeline.quality.attributes import PREFIX
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.workspace.keys import dolma_key, ocr_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import read_gzip_jsonl, read_rows
from tests.support.builders import near_blank, pdfgen
from tests.support.oracle import right_answers
from tests.support.partition_runs import keyed_pages, latest_evaluation, ocr_check, render_pages
from tests.support.vlm_protocol import Fault
from tests.support.vlm_server import VlmTestServer

PAGES = 24  # born-digital pages
SCANNED = 3  # a scanned page of text, a scan of a page number, the back of the sheet showing the front through
TOTAL = PAGES + SCANNED  # one failing page is 3.7 %: over the 1 % warning of the degenerate share, under its 5 %
TARGET = 5  # the born-digital page that fails
MODEL = "olmocr-test"
# The quality keys behind Dolma's `flagged`.
FLAGS = ("degenerate", "duplicate_paragraph", "truncated", "wrong_language", "blank_text", "invented_text")


@dataclass(frozen=True)
class Corpus:
    """The inputs, and the server's key and right answer of each rendered page (its own words)."""

    folder: Path
    keys: dict[tuple[str, int], str]  # (file name, page) -> page key
    answers: dict[str, str]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """24 born-digital pages of five sentences each (enough prose to judge a language) and a scanned sheet: a page
    of text, a page with nothing but a '7', and the back of the sheet with the front showing through."""
    root = tmp_path_factory.mktemp("failures")
    pages = [
        [f"Page {i + 1} of the minutes."] + [pdfgen.SENTENCES[(i + k) % 8] for k in range(5)] for i in range(PAGES)
    ]
    pdfgen.write(root / "in" / "minutes.pdf", pdfgen.text_pdf(pages))
    letter = " ".join(pdfgen.SENTENCES[:6])
    front = pdfgen.render_image(pdfgen.text_pdf([[letter]], font_size=12), dpi=near_blank.DPI).resize((910, 1288))
    # Almost blank: a page number's worth of ink, so the renderer does not call it blank and the server is asked.
    number = pdfgen.render_image(pdfgen.text_pdf([["7"]], font_size=12), dpi=near_blank.DPI).resize((910, 1288))
    back = near_blank.bleed_through(120, 1.5)  # dark enough that the blank-page shortcut sends it to the model
    pdfgen.write(root / "in" / "scan.pdf", near_blank.scan_pdf(front, number, back))
    settings = PipelineSettings(workspace=str(root / "ws"), pdfs=[str(root / "in")], server="http://127.0.0.1:9")
    instance = DagsterInstance.ephemeral()
    [group] = run_inventory(settings, instance)
    render_pages(settings, instance, group)
    rendered = keyed_pages(settings, group)
    keys = {(Path(row["source"]).name, row["page_num"]): key for key, row in rendered}
    # The scan has no layer: its text, its page number, nothing on the back.
    scanned = {keys[("scan.pdf", 1)]: letter, keys[("scan.pdf", 2)]: "7", keys[("scan.pdf", 3)]: ""}
    answers = {**right_answers(root / "in"), **scanned}
    assert len(set(keys.values())) == TOTAL  # every page tells the server which one it is
    return Corpus(root / "in", keys, answers)


@dataclass(frozen=True)
class Mode:
    """One failure mode of the server and what the pipeline makes of it."""

    fault: Fault
    page: tuple[str, int]
    retried: str | None  # how each attempt's retry reason starts; None: the page is kept on its first answer
    flag: str | None  # the Dolma attribute (and quality key) that flags it; None: scored, not flagged
    failures: dict[str, int]  # the degenerate-share gate's breakdown
    attempts: int = len(TEMPERATURE_BY_ATTEMPT)  # when retried
    fallback: bool = True  # when retried: the page falls back to its text layer (else its answers are withheld)


BORN_DIGITAL = ("minutes.pdf", TARGET)
NEAR_BLANK = ("scan.pdf", 3)
# olmOCR refuses a reply cut at max_tokens before reading it (prompts.parse_reply), so a loop that runs to the
# limit is retried and recorded as a cut answer, like any other: its text is never parsed to find the loop.
CUT = "finish_reason: finish_reason is 'length', not 'stop'"
DEGENERATE = "degenerate answer: "
MODES = {
    "loop to the token limit": Mode(Fault("loop"), BORN_DIGITAL, CUT, "truncated", {"truncated": 1}),
    "loop the model stopped": Mode(
        Fault("loop", finish="stop"), BORN_DIGITAL, DEGENERATE + "repetition loop", "degenerate", {"degenerate": 1}
    ),  # fmt: skip
    "truncated": Mode(Fault("truncated"), BORN_DIGITAL, CUT, "truncated", {"truncated": 1}),
    "german": Mode(
        Fault("language", language="de"),
        BORN_DIGITAL,
        DEGENERATE + "wrong language: de, the text layer's en",
        "wrong_language",
        {"wrong_language": 1},
    ),  # fmt: skip
    "russian": Mode(
        Fault("language", language="ru"),
        BORN_DIGITAL,
        DEGENERATE + "wrong language: cyrillic script, the text layer's latin",
        "wrong_language",
        {"wrong_language": 1},
    ),  # fmt: skip
    # A loop the model ended itself, after a good page: by its length, whatever its share of the page.
    "a line looping 60 times": Mode(
        Fault("line_loop"), BORN_DIGITAL, DEGENERATE + "repetition loop", "degenerate", {"degenerate": 1}
    ),  # fmt: skip
    "a block of lines looping": Mode(
        Fault("block_loop"), BORN_DIGITAL, DEGENERATE + "repetition loop", "degenerate", {"degenerate": 1}
    ),  # fmt: skip
    # The page's layer holds the paragraph once, the answer twice.
    "a paragraph written twice": Mode(
        Fault("repeated_paragraph"),
        BORN_DIGITAL,
        DEGENERATE + "duplicated paragraph: ",
        "duplicate_paragraph",
        {"duplicate_paragraph": 1},
    ),  # fmt: skip
    # More letters than the page's print can hold: asked once more, then answered with nothing (the page holds
    # next to no print, and a scan has no layer to fall back on), not an engine error. A page with no ink at all
    # never reaches the server (test_blank_pages).
    "a page of prose for a near-blank scan": Mode(
        Fault("invented"),
        NEAR_BLANK,
        DEGENERATE + "invented text: ",
        "invented_text",
        {"invented_text": 1},
        attempts=2,
        fallback=False,
    ),  # fmt: skip
    "a letter for a page number": Mode(
        Fault("blank_text"),
        ("scan.pdf", 2),
        DEGENERATE + "invented text: ",
        "invented_text",
        {"invented_text": 1},
        attempts=2,
        fallback=False,
    ),  # fmt: skip
    # Fluent English on a born-digital page is no loop, no cut and no other language: only its agreement with
    # the text layer tells, and one low page is a score for a mix filter and the canary's lowest, not a flag;
    # a wrong model answering every page so is what the agreement gate stops (test_checks_gating).
    "unrelated": Mode(Fault("unrelated"), BORN_DIGITAL, None, None, {}),
}


def _run(tmp_path: Path, corpus: Corpus, fault: Fault, key: str) -> tuple[VlmTestServer, DagsterInstance, str]:
    with VlmTestServer(model=MODEL, text_for=corpus.answers, faults={key: [fault] * 20}) as server:
        settings = PipelineSettings(
            workspace=str(tmp_path / "ws"), pdfs=[str(corpus.folder)], server=server.url, model=MODEL,
            max_page_error_rate=0.5,
        )  # fmt: skip
        instance = DagsterInstance.ephemeral()
        [group] = run_inventory(settings, instance)
        assert run_group(settings, group, instance)  # a warning, not a block: the shard is written
    return server, instance, group


@pytest.mark.parametrize("name", list(MODES))
def test_a_failure_mode_is_detected_retried_flagged_and_counted(tmp_path: Path, corpus: Corpus, name: str) -> None:
    mode = MODES[name]
    key = corpus.keys[mode.page]
    server, instance, group = _run(tmp_path, corpus, mode.fault, key)
    assert server.violations == []  # every request, retries included, is one olmOCR would send

    # Retried: one request per attempt at olmOCR's temperatures, the same image each time; or answered once.
    asked = [r for r in server.requests if r.page_key == key]
    attempts = mode.attempts if mode.retried else 1
    assert [r.temperature for r in asked] == list(TEMPERATURE_BY_ATTEMPT[:attempts])
    assert len({r.image_sha for r in asked}) == 1 and all(r.fault == mode.fault.kind for r in asked)

    # Detected: the page's row in the OCR manifest, and only that page.
    ws = LocalWorkspace(str(tmp_path / "ws"))
    rows = {(Path(r["source"]).name, r["page_num"]): r for r in read_rows(ws, ocr_key(group))}
    row, quality = rows[mode.page], json.loads(rows[mode.page]["quality"])
    extra = json.loads(row["extra"])
    assert row["attempts"] == attempts and row["is_fallback"] == bool(mode.retried and mode.fallback)
    assert row["error"] is None or mode.fallback  # withheld answers are no engine error
    reasons = extra.get("retry_reasons", [])
    assert len(reasons) == (attempts if mode.retried else 0)
    assert all(r.startswith(f"attempt {n}: {mode.retried}") for n, r in enumerate(reasons, 1))
    # Answers that parsed but were degenerate are also listed as such, for the signals to keep their verdict.
    parsed = mode.retried.removeprefix(DEGENERATE) if mode.retried and mode.retried.startswith(DEGENERATE) else None
    assert len(extra["retried_for"]) == (attempts if parsed else 0)
    assert all(r.startswith(parsed or "") for r in extra["retried_for"])
    flagged = {p for p, r in rows.items() if any(json.loads(r["quality"]).get(k) for k in FLAGS)}
    assert flagged == ({mode.page} if mode.flag else set())
    if mode.flag:
        assert quality[mode.flag] is True
    else:
        assert quality["text_layer_agreement"] < 0.6

    # Flagged: the page's span in the Dolma shard's attributes, for a mix filter to drop.
    [doc] = [
        d
        for d in read_gzip_jsonl(ws.read_bytes(dolma_key(group)))
        if d["metadata"]["Source-File"].endswith(mode.page[0])
    ]
    span = _page_span(doc, mode.page[1])
    assert _score(doc, PREFIX + "flagged", span) == int(bool(mode.flag))
    if mode.flag:
        assert _score(doc, PREFIX + mode.flag, span) == 1
    if mode.retried:
        # The shard holds no such page: the page's own words instead (its layer), or, where the answers were
        # withheld, the scan's (empty) layer: a page number is lost, a page of invented prose never published.
        honest = corpus.answers[key] if mode.fallback else ""
        assert " ".join(doc["text"][span[0] : span[1]].split()) == " ".join(honest.split())

    # Counted: the partition's gates name it.
    _check_counts(instance, group, mode, quality)


def _page_span(doc: dict[str, Any], page: int) -> list[int]:
    [span] = [s[:2] for s in doc["attributes"]["pdf_page_numbers"] if s[2] == page]
    return span


def _score(doc: dict[str, Any], attribute: str, span: list[int]) -> float:
    [score] = [s[2] for s in doc["attributes"][attribute] if s[:2] == span]
    return score


def _check_counts(instance: DagsterInstance, group: str, mode: Mode, quality: dict[str, Any]) -> None:
    """The degenerate-share gates (and the language or agreement gate) report the failing page."""
    warn_status, warn = latest_evaluation(instance, ocr_check("degenerate_share_warn"), group)
    block_status, block = latest_evaluation(instance, ocr_check("degenerate_share_blocking"), group)
    counted = 1 if mode.failures else 0
    assert warn["by_failure"] == mode.failures and warn["degenerate_pages"] == block["degenerate_pages"] == counted
    assert warn_status == ("FAILED" if counted else "SUCCEEDED") and block_status == "SUCCEEDED"
    if counted:
        assert [s["page_num"] for s in warn["sample"]] == [mode.page[1]]
    if mode.flag == "wrong_language":
        # The fallback carries no language of the engine's: the distribution shows a page the model did not read.
        _, languages = latest_evaluation(instance, ocr_check("language_distribution"), group)
        assert languages["distribution"] == {"en": TOTAL - 1, "none": 1}
    if mode.flag is None:
        # One unrelated page does not move the median, but it is the canary's lowest page.
        status, agreement = latest_evaluation(instance, ocr_check("text_layer_agreement"), group)
        assert status == "SUCCEEDED" and agreement["lowest"] == quality["text_layer_agreement"]
        assert agreement["sample"][0]["page_num"] == mode.page[1]
