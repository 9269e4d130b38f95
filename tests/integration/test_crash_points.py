"""Crash injection at each write of the commit protocol and of group formation: nothing lost, nothing twice."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ocr_pipeline.local_run import run_local
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.workspace.faults import FAULT_VARIABLE
from ocr_pipeline.workspace.keys import dolma_key, done_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from tests.support.audit import audit
from tests.support.builders import pdfgen

# Every write of group formation and of a group's commit (`commit.partial` is the same `publish` call as these).
POINTS = [
    "inventory.group_file",
    "inventory.index",
    "commit.cleared",
    "commit.shard",
    "commit.markdown",
    "commit.ledger",
    "commit.before_marker",
]


def _corpus(root: Path) -> list[str]:
    pdfgen.write(root / "a.pdf", pdfgen.text_pdf([pdfgen.SENTENCES[:2], pdfgen.SENTENCES[2:4]]))
    pdfgen.write(root / "b.pdf", pdfgen.text_pdf([[pdfgen.SENTENCES[4]]]))
    pdfgen.write(root / "broken.pdf", b"%PDF-1.7\n garbage")
    return sorted(str(p.resolve()) for p in root.iterdir())


def _settings(tmp_path: Path, pages_per_group: int) -> PipelineSettings:
    return PipelineSettings(
        workspace=str(tmp_path / "ws"), pdfs=[str(tmp_path / "in")], pages_per_group=pages_per_group, markdown=True
    )


@pytest.mark.parametrize("point", POINTS)
def test_a_crash_at_any_write_leaves_groups_done_or_pending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, point: str
) -> None:
    sources = _corpus(tmp_path / "in")
    # Two groups where the scan is hit (a crash between their files), one where a group's commit is: fewer runs.
    settings = _settings(tmp_path, 2 if point.startswith("inventory") else 500)
    monkeypatch.setenv(FAULT_VARIABLE, f"{point}:raise")
    try:
        summary = run_local(settings, show_progress=False)
        assert not summary.ok  # the fault hit inside a group: the run says so
    except Exception as exc:  # noqa: BLE001 - the fault hit the scan, which fails the whole run
        assert "injected fault" in str(exc) or "inventory" in point
    ws = LocalWorkspace(tmp_path / "ws")
    audit(ws)  # every group is either done with all its outputs, or pending
    monkeypatch.delenv(FAULT_VARIABLE)
    summary = run_local(settings, show_progress=False)
    assert summary.ok and summary.unaccounted == []
    state = audit(ws)
    assert state["pending"] == []
    assert sorted(state["documents"] + state["rejected"]) == sources


def test_sigkill_between_shard_and_ledger_is_pending_then_resumed(tmp_path: Path) -> None:
    _corpus(tmp_path / "in")
    ws = tmp_path / "ws"
    cmd = [sys.executable, "-m", "ocr_pipeline.cli", "run", str(ws), "--pdfs", str(tmp_path / "in"), "--quiet"]
    killed = subprocess.run(cmd, env={**os.environ, FAULT_VARIABLE: "commit.shard:kill"}, capture_output=True,
                            text=True, timeout=300)  # fmt: skip
    assert killed.returncode == -9, killed.stdout + killed.stderr
    workspace = LocalWorkspace(ws)
    # The shard is there, the marker is not: the group is pending, not silently finished.
    assert workspace.exists(dolma_key("g000001")) and not workspace.exists(done_key("g000001"))
    pending = subprocess.run([sys.executable, "-m", "ocr_pipeline.cli", "pending", str(ws)],
                             capture_output=True, text=True, timeout=120)  # fmt: skip
    assert pending.stdout.split() == ["g000001"]
    resumed = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0 and "groups run:     1" in resumed.stdout, resumed.stdout + resumed.stderr
    assert "rejected:       1 (corrupt_pdf=1)" in resumed.stdout
    assert audit(workspace)["pending"] == []
