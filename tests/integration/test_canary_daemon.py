"""Through the daemon: a server answering text unrelated to its pages fails the model canary, and the sensor
launches no partition; once the server answers right and a person materializes the canary again, the group runs.
What else fails the canary (a server inventing a page of text for every near-blank scan, one writing a paragraph
twice) is the same verdict and the same gate in-process: tests/integration/test_model_canary.py.

A real `dagster-daemon run` and `dagster-webserver` (tests/support/dagster_stack.py) on a SQLite instance, the
sensor turned on and the canary launched over GraphQL as the UI does, and a real VLM test server on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.builders import pdfgen
from tests.support.dagster_stack import REPO, DagsterStack, wait_for
from tests.support.oracle import right_answers
from tests.support.vlm_server import VlmTestServer

UNRELATED = "The annual meeting of the horticultural society took place in the village hall on a wet evening. " * 4
FINISHED = ("SUCCESS", "FAILURE", "CANCELED")


def _stack(tmp_path: Path, server: str) -> DagsterStack:
    home = tmp_path / "dagster_home"
    setup_env = {k: v for k, v in os.environ.items() if not k.startswith(("DAGSTER_PG_", "OCR_PIPELINE_"))}
    setup_env["DAGSTER_HOME"] = str(home)
    setup = subprocess.run([str(REPO / "deploy" / "dagster_home.sh")], env=setup_env, capture_output=True, text=True)
    assert setup.returncode == 0, setup.stderr
    env = {
        "OCR_PIPELINE_WORKSPACE": str(tmp_path / "ws"),
        "OCR_PIPELINE_PDFS": str(tmp_path / "in"),
        "OCR_PIPELINE_SERVER": server,
        "OCR_PIPELINE_MODEL": "olmocr-test",
        "OCR_PIPELINE_SENSOR_INTERVAL_S": "5",
        "OCR_PIPELINE_SENSOR_MAX_RETRIES": "0",
    }
    return DagsterStack(home, env)


def _verdicts(workspace: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in sorted((workspace / "canary").glob("*.json"))]


def _canary_fails_and_nothing_launches(tmp_path: Path, stack: DagsterStack) -> dict[str, object]:
    """The sensor launches the canary, which fails; the inventory runs, and further ticks launch no partition."""
    assert stack.start_sensor("work_group_sensor") == "RUNNING"

    def canary_failed() -> list[dict[str, object]] | None:
        runs = [r for r in stack.runs("model_canary_job") if r["status"] in FINISHED]
        return runs if runs and _verdicts(tmp_path / "ws") else None

    [canary] = wait_for("the sensor's canary run to finish", canary_failed, 300, 3)
    assert canary["status"] == "FAILURE" and canary["tags"]["dagster/sensor_name"] == "work_group_sensor"
    [verdict] = _verdicts(tmp_path / "ws")
    assert verdict["passed"] is False
    # The inventory ran (scanning costs no GPU), the group is registered, and ticks go on launching nothing.
    wait_for("the inventory run", lambda: [r for r in stack.runs("inventory_job") if r["status"] == "SUCCESS"], 120)
    time.sleep(10)  # two more ticks
    assert stack.runs("ocr_job") == [] and len(stack.runs("model_canary_job")) == 1
    return verdict


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_an_unrelated_server_fails_the_canary_and_the_daemon_launches_no_partition_until_it_passes(
    tmp_path: Path,
) -> None:
    started = time.monotonic()
    pdfgen.write(tmp_path / "in" / "minutes.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[i]] for i in range(3)]))
    with (
        VlmTestServer(model="olmocr-test", text_for=lambda key: UNRELATED) as server,
        _stack(tmp_path, server.url) as stack,
    ):
        verdict = _canary_fails_and_nothing_launches(tmp_path, stack)
        assert float(str(verdict["pass_rate"])) < 0.35

        # The server is fixed (each page answered with its own words, canary pages too); a person materializes the
        # canary (the UI's button); the next tick runs the group.
        server.text_for = right_answers(tmp_path / "in")
        stack.launch_job("model_canary_job")

        def group_done() -> list[dict[str, object]] | None:
            runs = stack.runs("ocr_job")
            assert not any(r["status"] == "FAILURE" for r in runs), stack.log("daemon")[-3000:]
            return runs if runs and all(r["status"] == "SUCCESS" for r in runs) else None

        [group_run] = wait_for("the group's run after the canary passed", group_done, 300, 3)
        assert group_run["tags"]["dagster/partition"] == "g000001"
        assert [v["passed"] for v in _verdicts(tmp_path / "ws")] == [True]  # the same fingerprint, now passed
        assert (tmp_path / "ws" / "dolma" / "g000001.jsonl.gz").exists()
    print(f"canary daemon test: {time.monotonic() - started:.0f}s")
