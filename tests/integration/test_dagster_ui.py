"""The Dagster UI as a person uses it, in headless chromium: the inventory, one partition, a backfill.

A real `dagster-webserver` and `dagster-daemon` (the shipped SQLite instance: runs are queued, the daemon starts
them) on a small corpus with the CPU engine. Playwright clicks what a person clicks (Materialize, the partition
picker, Launch backfill) and reads what a person reads: the rejected file by name with its reason, the first
document's text, a failed warning-severity check drawn as a warning (Dagster's yellow `warning_outline`), not as
an error, and the backfill on `ocr_job`'s own page.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from ocr_pipeline.checks.spec import load_dir, shipped_checks_dir
from tests.support.browser import CHROMIUM_ARGS, chromium_path, sync_playwright
from tests.support.builders import pdfgen
from tests.support.dagster_stack import REPO, DagsterStack

# Sorted by name and packed two pages a group: g000001 = the broken file + the French page (a document, and the
# shipped `language_distribution` warning fails on it), g000002 = the 3-page report, g000003 = a 1-page summary.
REJECTED = "broken scan (1).pdf"
FRENCH = [
    "Le petit village se trouve au bord de la rivière, entre les collines et la forêt.",
    "Chaque matin, les habitants vont au marché pour acheter du pain et des légumes frais.",
]
RUN_S = 120_000  # ms: a queued run started by the daemon and finished, on a loaded 2-core machine
UI_S = 30_000  # ms: a page or a dialog rendering


def _settled_status(row: Any, timeout_s: float = 60.0) -> str:
    """The row's text once its status cell shows a state, not "Loading": the UI refetches the status on each poll
    and draws "Loading" again in between, so one wait is no read (seen on a loaded machine)."""
    status = re.compile(r"In progress|Succeeded|Failed|Canceled")
    deadline = time.monotonic() + timeout_s
    text = ""
    while time.monotonic() < deadline:
        text = " ".join(row.inner_text().split())
        if status.search(text) and "Loading" not in text:
            return text
        time.sleep(0.5)
    return text


def _corpus(root: Path) -> None:
    pdfgen.write(root / "carte postale.pdf", pdfgen.text_pdf([FRENCH]))
    pdfgen.write(root / "report_3p.pdf", pdfgen.text_pdf([[s] for s in pdfgen.SENTENCES[:3]]))
    pdfgen.write(root / "summary_1p.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[4]]]))
    pdfgen.write(root / REJECTED, b"%PDF-1.4 truncated")


def _stack(tmp_path: Path) -> DagsterStack:
    _corpus(tmp_path / "in")
    home = tmp_path / "dagster_home"
    env = {
        "OCR_PIPELINE_WORKSPACE": str(tmp_path / "ws"),
        "OCR_PIPELINE_PDFS": str(tmp_path / "in"),
        "OCR_PIPELINE_PAGES_PER_GROUP": "2",
    }
    setup_env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_PG_", "OCR_PIPELINE_"))}
    setup_env["DAGSTER_HOME"] = str(home)
    setup = subprocess.run([str(REPO / "deploy" / "dagster_home.sh")], env=setup_env, capture_output=True, text=True)
    assert setup.returncode == 0, setup.stderr
    # The CPU engine: no OCR_PIPELINE_SERVER from the caller's environment.
    env["OCR_PIPELINE_SERVER"] = ""
    return DagsterStack(home, env)


def _finished_run(page: Any, stack: DagsterStack, shots: Path, name: str) -> None:
    """Follow the launch toast's View link to the run's page and wait for its status to read Success."""
    page.get_by_role("link", name="View", exact=True).click()
    status = page.get_by_text(re.compile(r"^(Success|Failure|Canceled)$")).first
    status.wait_for(timeout=RUN_S)
    page.screenshot(path=shots / f"{name}.png")
    assert status.inner_text() == "Success", stack.log("daemon")[-4000:]


def _table_rows(page: Any, text: str | re.Pattern[str]) -> Any:
    """Rows of a metadata table (a table inside the metadata's own key/value rows) that hold `text`."""
    return page.get_by_role("row").filter(has_text=text).filter(has_not=page.get_by_role("row"))


def _materialize_dialog(page: Any, base: str) -> Any:
    page.goto(f"{base}/locations/ocr_pipeline/jobs/ocr_job")
    page.get_by_role("button").filter(has_text=re.compile(r"^Materialize all")).click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_text("Partition selection").wait_for()
    return dialog


@pytest.mark.timeout(300)
def test_inventory_a_partition_and_a_backfill_in_the_browser(tmp_path: Path) -> None:
    started = time.monotonic()
    chromium, playwright = chromium_path(), sync_playwright()  # skipped here (failed in CI) before any start
    shots = tmp_path / "shots"
    shots.mkdir()
    stack = _stack(tmp_path)
    try:
        stack.start(timeout_s=180)  # a code location that does not load fails here, not at the test's timeout
        with playwright as pw:
            # The first-visit "Join the Dagster community" dialog covers the page; its Skip button sends this.
            assert stack.graphql("mutation { setNuxSeen }")["setNuxSeen"] is True
            base = stack.url.removesuffix("/graphql")
            browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(UI_S)

            # The inventory, from its asset page: the new groups as a table, the rejection counted by reason.
            page.goto(f"{base}/assets/pdf_inventory")
            page.get_by_role("button").filter(has_text=re.compile(r"^Materialize$")).click()
            _finished_run(page, stack, shots, "inventory_run")
            page.goto(f"{base}/assets/pdf_inventory")
            page.get_by_text("new_groups", exact=True).wait_for()
            new_groups = _table_rows(page, re.compile(r"^g00000\d"))
            assert [" ".join(r.inner_text().split()) for r in new_groups.all()] == [
                "g000001 2 1 1",  # group, inputs, pages, rejected
                "g000002 1 3 0",
                "g000003 1 1 0",
            ]
            assert page.get_by_text('"corrupt_pdf": 1').count() == 1

            # One partition, as ocr_job (its page's Materialize all…, the picker's g000001, Launch 1 run).
            dialog = _materialize_dialog(page, base)
            dialog.get_by_text("Select a partition or create one").click()
            page.get_by_role("menuitem").filter(has_text="g000001").click()
            dialog.get_by_text("Launch runs to materialize").click()  # closes the picker, keeps the dialog
            dialog.get_by_role("button", name="Launch 1 run").click()
            _finished_run(page, stack, shots, "partition_run")

            # What the partition's materializations show: the rejected input by name, its reason and why.
            page.goto(f"{base}/assets/filtered_pdfs")
            page.get_by_text("rejected_inputs", exact=True).wait_for()
            row = _table_rows(page, REJECTED)
            assert row.count() == 1
            cells = " ".join(row.inner_text().split())
            assert cells.startswith(f"{tmp_path / 'in' / REJECTED} corrupt_pdf inventory PDFium could not parse"), cells
            page.screenshot(path=shots / "filtered_pdfs.png", full_page=True)

            # dolma_shards: the same name in the whole ledger, and the first document's text as rendered Markdown.
            page.goto(f"{base}/assets/dolma_shards")
            page.get_by_text("first_document", exact=True).wait_for()
            assert _table_rows(page, REJECTED).filter(has_text="corrupt_pdf").count() == 1
            source = page.locator("strong").filter(has_text="carte postale.pdf")  # the preview's bold source line
            assert source.count() == 1
            preview = " ".join(page.get_by_text(FRENCH[0][:30]).first.inner_text().split())
            assert FRENCH[0] in preview and FRENCH[1] in preview
            page.screenshot(path=shots / "dolma_shards.png", full_page=True)

            # The shipped warn-severity `language_distribution` failed on the French page: drawn as a warning.
            page.goto(f"{base}/assets/vlm_ocr_outputs")
            checks = page.get_by_text("Latest check results", exact=True).locator("xpath=..")
            checks.get_by_role("img", name="warning_outline").wait_for()
            # Overview's tally: a yellow 1 (the warning, Dagster's `warning_outline`, where an error is a red
            # `cancel`) beside a green count of every other shipped check of the asset.
            passing = len(load_dir(shipped_checks_dir()).tests["vlm_ocr_outputs"]) - 1
            assert " ".join(checks.inner_text().split()) == f"Latest check results 1 {passing}"
            assert checks.get_by_role("img", name="check_circle").count() == 1
            page.goto(f"{base}/assets/vlm_ocr_outputs?view=checks&checkDetail=language_distribution")
            page.get_by_text("Latest execution", exact=True).wait_for()
            page.screenshot(path=shots / "checks.png", full_page=True)
            sidebar = page.get_by_text("language_distribution", exact=True).first.locator("xpath=../../..")
            assert sidebar.get_by_role("img", name="warning_outline").count() == 1
            icon_color = sidebar.get_by_role("img", name="warning_outline").get_attribute("style") or ""
            assert "--color-accent-yellow" in icon_color
            result = page.get_by_text("Evaluation result", exact=True).locator("xpath=..")
            tag = result.locator(".BaseTag")
            assert tag.get_by_role("img", name="warning_outline").count() == 1
            assert "--color-background-yellow" in (tag.get_attribute("style") or "")
            assert page.get_by_text(re.compile(r"\[warning only; vlm_ocr_outputs\.yml:\d+\]")).count() == 1
            assert page.get_by_text("0.0% of 1 pages in ['en'] (at least 50% expected)").count() >= 1
            # No check anywhere on the page is drawn as an error.
            assert page.get_by_role("img", name=re.compile(r"^(cancel|error)")).count() == 0

            # The rest as one backfill of ocr_job: Failed and missing → Launch backfill; it is on ocr_job's page.
            dialog = _materialize_dialog(page, base)
            dialog.get_by_role("button", name="Failed and missing").click()
            dialog.get_by_text("2 partitions", exact=True).wait_for()
            dialog.get_by_role("button", name="Launch backfill").click()
            created = page.get_by_text(re.compile(r"^Created backfill \w+$"))
            backfill_id = created.inner_text().rsplit(" ", 1)[1]
            # On ocr_job's own page (its Partitions tab's backfill history), not only under Overview → Backfills.
            # Its runs start on the backfill daemon's next tick and finish a minute later: the test stops at
            # "listed, not failed" (test_deployment.py waits for a backfill to complete).
            page.goto(f"{base}/locations/ocr_pipeline/jobs/ocr_job/partitions")
            page.get_by_text("Backfill history", exact=True).wait_for()
            history = page.get_by_role("row").filter(has_text=backfill_id)
            text = _settled_status(history)
            page.screenshot(path=shots / "backfills.png", full_page=True)
            assert "2 partitions" in text and "Manually launched" in text, text
            assert re.search(r"In progress|Succeeded", text), (text, stack.log("daemon")[-4000:])
            browser.close()
    finally:
        stack.stop()
    print(f"browser test: {time.monotonic() - started:.0f}s, screenshots in {shots}")
