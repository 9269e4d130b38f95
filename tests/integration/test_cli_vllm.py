"""`ocr-pipeline run --vllm`: the command starts `vllm serve` itself, runs against it, and stops it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ocr_pipeline.workspace.tables import read_gzip_jsonl
from tests.integration.test_vllm_launcher import FAKE_VLLM, free_port
from tests.support.builders import pdfgen


def _fake_vllm_env(tmp_path: Path, mode: str = "serve") -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "vllm"
    script.write_text(FAKE_VLLM.format(python=sys.executable))
    script.chmod(0o755)
    path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    return {**os.environ, "PATH": path, "FAKE_VLLM_STATE": str(tmp_path), "FAKE_VLLM_MODE": mode}


def test_run_with_a_managed_vllm_server(tmp_path: Path) -> None:
    pdfgen.write(tmp_path / "in" / "a.pdf", pdfgen.text_pdf([pdfgen.SENTENCES[:2]]))
    port = free_port()
    cmd = [sys.executable, "-m", "ocr_pipeline.cli", "run", str(tmp_path / "ws"), "--pdfs", str(tmp_path / "in"),
           "--vllm", "--vllm-port", str(port), "--model", "olmocr-test", "--gpu_memory_utilization", "0.8",
           "--tensor-parallel-size", "2", "--vllm_args", "--enforce-eager --seed 7", "--quiet"]  # fmt: skip
    proc = subprocess.run(cmd, env=_fake_vllm_env(tmp_path), capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "documents:      1" in proc.stdout and f"vLLM ready at http://127.0.0.1:{port}" in proc.stderr
    argv = json.loads((tmp_path / "argv.json").read_text())
    assert argv[:2] == ["serve", "olmocr-test"] and argv[-3:] == ["--enforce-eager", "--seed", "7"]
    assert argv[argv.index("--max-model-len") + 1] == "16384"
    assert argv[argv.index("--gpu-memory-utilization") + 1] == "0.8"
    assert argv[argv.index("--tensor-parallel-size") + 1] == "2"
    [doc] = read_gzip_jsonl((tmp_path / "ws" / "dolma" / "g000001.jsonl.gz").read_bytes())
    assert doc["metadata"]["engine"] == "vlm" and doc["metadata"]["total-output-tokens"] > 0


def test_a_server_that_never_starts_is_a_clear_failure(tmp_path: Path) -> None:
    pdfgen.write(tmp_path / "in" / "a.pdf", pdfgen.text_pdf([pdfgen.SENTENCES[:1]]))
    cmd = [sys.executable, "-m", "ocr_pipeline.cli", "run", str(tmp_path / "ws"), "--pdfs", str(tmp_path / "in"),
           "--vllm", "--vllm-port", str(free_port()), "--quiet"]  # fmt: skip
    proc = subprocess.run(cmd, env=_fake_vllm_env(tmp_path, "exit"), capture_output=True, text=True, timeout=180)
    assert proc.returncode == 1
    assert "ocr-pipeline: error:" in proc.stderr and "Traceback" not in proc.stderr
