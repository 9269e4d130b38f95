"""Two `ocr-pipeline run` processes on one workspace with overlapping inputs: every input exactly once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ocr_pipeline.workspace.storage import LocalWorkspace
from tests.support.audit import audit
from tests.support.builders import pdfgen


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "ocr_pipeline.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **(env or {})},
    )


def test_two_runs_with_overlapping_inputs_record_every_input_once(tmp_path: Path) -> None:
    paths = []
    for i in range(16):
        path = tmp_path / "in" / f"d{i:02d}.pdf"
        pdfgen.write(path, pdfgen.text_pdf([[f"Document {i} has one page of plain text, number {i * 7}."]]))
        paths.append(str(path))
    (tmp_path / "a.txt").write_text("\n".join(paths[:12]))
    (tmp_path / "b.txt").write_text("\n".join(paths[4:]))
    ws = tmp_path / "ws"
    runs = [
        _cli("run", str(ws), "--pdfs", str(tmp_path / name), "--pages_per_group", "4", "--quiet")
        for name in ("a.txt", "b.txt")
    ]
    outputs = [run.communicate(timeout=600)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    state = audit(LocalWorkspace(ws))
    assert state["pending"] == [] and state["rejected"] == []
    assert sorted(state["documents"]) == sorted(str(Path(p).resolve()) for p in paths)
    assert len(list(ws.glob("inventory/groups/*.parquet"))) == 4  # 16 one-page inputs, 4 a group, no name twice
    pending = subprocess.run([sys.executable, "-m", "ocr_pipeline.cli", "pending", str(ws)],
                             capture_output=True, text=True, timeout=120)  # fmt: skip
    assert pending.stdout == ""
