"""Whole-run failures of `ocr-pipeline run` as a user meets them: one plain line, a distinct exit code, a log."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import corpora, pdfgen
from tests.support.vlm_server import VlmTestServer


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ocr_pipeline.cli", "run", *args], capture_output=True, text=True, timeout=300
    )


def _one_pdf(tmp_path: Path) -> Path:
    return pdfgen.write(tmp_path / "in" / "a.pdf", pdfgen.text_pdf([pdfgen.SENTENCES[:2]]))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def test_unreachable_server_fails_fast_with_one_line_and_a_log(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    ws = tmp_path / "ws"
    started = time.monotonic()
    proc = _run(str(ws), "--pdfs", str(_one_pdf(tmp_path)), "--server", url, "--server_ready_timeout", "2")
    assert time.monotonic() - started < 120
    assert proc.returncode == 3, proc.stdout + proc.stderr
    lines = _lines(proc.stderr)
    assert lines[0].startswith(f"waiting for VLM server at {url}"), lines
    assert len(lines) == 2 and "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    assert lines[1].startswith("ocr-pipeline: error: VLM server at") and url in lines[1]
    assert "connection refused" in lines[1]
    log = next((ws / "logs").glob("run-*.log"))
    assert str(log) in lines[1] and "Traceback" in log.read_text()
    assert not (ws / "dolma").exists()  # nothing ran: no group was formed against a dead server
    verbose = _run(str(ws), "--pdfs", str(_one_pdf(tmp_path)), "--server", url, "--server_ready_timeout", "1",
                   "--verbose")  # fmt: skip
    assert verbose.returncode == 3 and "Traceback" in verbose.stderr


class _NotOpenAI(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # http.server's name
        body = b"<html>a web site, not a model server</html>"
        self.send_response(404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def test_a_server_that_is_not_openai_fails_at_once(tmp_path: Path) -> None:
    httpd = HTTPServer(("127.0.0.1", 0), _NotOpenAI)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}"
        started = time.monotonic()
        proc = _run(str(tmp_path / "ws"), "--pdfs", str(_one_pdf(tmp_path)), "--server", url,
                    "--server_ready_timeout", "600")  # fmt: skip
    finally:
        httpd.shutdown()
    assert time.monotonic() - started < 120  # no readiness wait: a 404 is not a server still loading
    assert proc.returncode == 3, proc.stderr
    assert "not an OpenAI-compatible server (GET /v1/models: HTTP 404)" in _lines(proc.stderr)[-1]
    assert "Traceback" not in proc.stderr


class _ReadyOnce(VlmTestServer):
    """Answers the CLI's readiness check, then looks down (503) to the worker: a server lost mid-run."""

    async def _dispatch(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Any:
        reply = await super()._dispatch(method, path, headers, body)
        if method == "GET" and path == "/v1/models":
            self.models_status = 503
        return reply


def test_a_failed_group_is_named_with_its_cause(tmp_path: Path) -> None:
    with _ReadyOnce(model="m") as server:
        proc = _run(str(tmp_path / "ws"), "--pdfs", str(_one_pdf(tmp_path)), "--server", server.url,
                    "--model", "m", "--server_ready_timeout", "2", "--quiet")  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "groups run:     1 (1 failed: g000001)" in proc.stdout
    assert "  g000001: VLM server unreachable: " in proc.stdout and "HTTP 503" in proc.stdout
    assert "Traceback" not in proc.stderr + proc.stdout
    log = next(line for line in proc.stdout.splitlines() if line.startswith("log:")).split()[-1]
    assert "ServerNotReadyError" in Path(log).read_text()


def test_no_groups_and_no_inputs_is_a_usage_error(tmp_path: Path) -> None:
    mistyped = tmp_path / "mistyped" / "workspace"
    proc = _run(str(mistyped))
    assert proc.returncode == 2 and "--pdfs" in proc.stderr, proc.stderr
    assert not mistyped.exists() and not mistyped.parent.exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = _run(str(empty))
    assert proc.returncode == 2 and "holds no work groups" in proc.stderr and "--pdfs" in proc.stderr
    assert list(empty.iterdir()) == []


def test_an_unwritable_workspace_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    proc = _run(str(blocker / "ws"), "--pdfs", str(_one_pdf(tmp_path)))
    assert proc.returncode == 4, proc.stderr
    assert _lines(proc.stderr) == [f"ocr-pipeline: error: workspace {blocker / 'ws'} is not writable: Not a directory"]


GROUPS = 8  # one-page groups of a run SIGTERM stops once two are done


@pytest.mark.parametrize(
    ("background", "workers"), [(False, 1), (True, 1), (True, 2)], ids=["foreground", "background job", "2 workers"]
)
def test_sigterm_stops_the_run_and_the_rerun_completes(tmp_path: Path, background: bool, workers: int) -> None:
    # `kill PID` must stop a run as Ctrl-C does, not fail one group and go on with the rest; in a background job
    # (SIGINT ignored, as a shell's `&` leaves it) Dagster used to hand SIGTERM that ignored SIGINT's disposition.
    # With worker processes the pool went on with every queued group, and a worker left behind held the pipes open.
    folder = tmp_path / "in"
    for k in range(GROUPS):
        pdfgen.write(folder / f"doc {k:02d}.pdf", corpora.numbered_pdf(f"doc{k:02d}", 1))
    ws = tmp_path / "ws"
    cli = [sys.executable, "-m", "ocr_pipeline.cli", "run", str(ws), "--pdfs", str(folder), "--pages-per-group", "1",
           "--quiet", "--workers", str(workers)]  # fmt: skip

    def as_background_job() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    proc = subprocess.Popen(cli, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=as_background_job if background else None)  # fmt: skip
    try:
        deadline = time.monotonic() + 240
        while proc.poll() is None and len(list((ws / "done").glob("*.json"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it could be stopped"
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=60)  # stops, rather than running the other groups (no speed check)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stderr
    assert "interrupted; run the same command again to resume" in stderr and "Traceback" not in stderr, stderr
    done = len(list((ws / "done").glob("*.json")))
    assert 2 <= done < GROUPS
    rerun = subprocess.run(cli, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert "documents:      " in rerun.stdout and len(list((ws / "done").glob("*.json"))) == GROUPS
    assert _lines(rerun.stdout)[0] == f"groups run:     {GROUPS - done}", rerun.stdout
