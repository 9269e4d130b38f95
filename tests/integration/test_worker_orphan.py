"""The VLM worker dies with its parent: a SIGKILLed CLI or Dagster step leaves no worker running and writing."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.worker import EXIT_ORPHANED, PARENT_PID_ENV, worker_invocation

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads process states from /proc")


def _alive(pid: int) -> bool:
    """Whether the process exists and is not a zombie (an orphan may wait to be reaped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")


def _orphan_after_parent_killed(
    child_args: list[str], tmp_path: Path, env: dict[str, str] | None = None, ignore_term: bool = False
) -> int:
    """Start a parent that starts the child and prints its pid; SIGKILL the parent; return the child's pid. With
    `ignore_term` the parent ignores SIGTERM, as a shell's background job or some CI runners do, and so the child."""
    parent_code = textwrap.dedent(f"""
        import signal, subprocess, sys, time
        if {ignore_term!r}:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        child = subprocess.Popen([sys.executable, *{child_args!r}])
        print(child.pid, flush=True)
        time.sleep(120)
    """)
    parent = subprocess.Popen([sys.executable, "-c", parent_code], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, **(env or {})}, cwd=tmp_path)  # fmt: skip
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    time.sleep(3)  # the child is past its start-up and working (or waiting) by now
    assert _alive(child)
    parent.send_signal(signal.SIGKILL)
    parent.wait(10)
    return child


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.1)
    return False


def test_the_worker_ends_when_its_parent_is_killed(tmp_path: Path) -> None:
    # A real worker, waiting for a server that never comes (a long readiness wait keeps it busy).
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = PipelineSettings(workspace=str(tmp_path / "ws"), server=f"http://127.0.0.1:{port}/v1",
                                server_ready_timeout=300)  # fmt: skip
    args, env = worker_invocation(settings, "g000001")
    child = _orphan_after_parent_killed(args, tmp_path, env)
    assert _gone_within(child, 10), "the worker outlived its SIGKILLed parent"
    assert json.loads(env["OCR_PIPELINE_SETTINGS"])["server_ready_timeout"] == 300


def test_the_watchdog_alone_ends_an_orphan(tmp_path: Path) -> None:
    # Where prctl(PR_SET_PDEATHSIG) is missing (not Linux), the parent-pid watchdog thread does it.
    code = "import time, ocr_pipeline.worker as w; w.die_with_parent(pdeathsig=False, poll_s=0.2); time.sleep(99)"
    child = _orphan_after_parent_killed(["-c", code], tmp_path)
    assert _gone_within(child, 10), "the watchdog did not end the orphan"


def test_an_orphan_that_inherited_an_ignored_sigterm_still_ends(tmp_path: Path) -> None:
    # The kernel's SIGTERM and the watchdog's would do nothing to a process ignoring it: the worker undoes that.
    code = "import time, ocr_pipeline.worker as w; w.die_with_parent(); time.sleep(99)"
    child = _orphan_after_parent_killed(["-c", code], tmp_path, ignore_term=True)
    assert _gone_within(child, 10), "the orphan kept its launcher's ignored SIGTERM and lived on"


def _worker_pids(workspace: Path) -> list[int]:
    """Worker processes launched for this workspace (their settings variable names it)."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (proc / "cmdline").read_bytes()
            if b"ocr_pipeline.worker" in cmdline and str(workspace).encode() in (proc / "environ").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return [pid for pid in found if _alive(pid)]


def test_a_sigkilled_cli_takes_its_worker_with_it(tmp_path: Path) -> None:
    # The server takes a minute a page: the worker is mid-request when the command is killed. Without streaming
    # (which sends pages from the CLI's own process while rendering), the Pipes worker does the requests.
    from tests.support.builders import pdfgen
    from tests.support.vlm_server import VlmTestServer

    pdf = pdfgen.write(tmp_path / "in" / "a.pdf", pdfgen.text_pdf([pdfgen.SENTENCES[:2]]))
    ws = tmp_path / "ws"
    with VlmTestServer(model="m", service_time_s=60) as server:
        cli = subprocess.Popen([sys.executable, "-m", "ocr_pipeline.cli", "run", str(ws), "--pdfs", str(pdf),
                                "--server", server.url, "--model", "m", "--quiet"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env={**os.environ, "OCR_PIPELINE_STREAM_PAGES": "0"})  # fmt: skip
        try:
            deadline = time.monotonic() + 180
            while not (workers := _worker_pids(ws)) and time.monotonic() < deadline and cli.poll() is None:
                time.sleep(0.5)
            assert workers, "the CLI never started its worker"
            cli.send_signal(signal.SIGKILL)
            cli.wait(10)
            assert all(_gone_within(pid, 10) for pid in workers), "the worker outlived the SIGKILLed CLI"
        finally:
            if cli.poll() is None:
                cli.kill()


def test_a_worker_whose_launcher_died_during_its_start_up_exits_at_once(tmp_path: Path) -> None:
    # The launcher was SIGKILLed while the worker was still importing: the kernel can no longer be asked to tell
    # the worker, and its new parent is init. The pid the launcher passed says so.
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    settings = PipelineSettings(workspace=str(tmp_path / "ws"), server="http://127.0.0.1:9/v1")
    args, env = worker_invocation(settings, "g000001")
    env = {**os.environ, **env, PARENT_PID_ENV: str(gone.pid)}
    done = subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == EXIT_ORPHANED
    assert f"the process that launched it ({gone.pid}) is gone" in done.stderr
    assert not (tmp_path / "ws").exists()  # it wrote nothing


def test_a_worker_started_by_its_launcher_runs(tmp_path: Path) -> None:
    # The same check passes when the pid is our own: the worker gets as far as the (absent) server.
    settings = PipelineSettings(workspace=str(tmp_path / "ws"), server="http://127.0.0.1:9/v1", server_ready_timeout=1)
    args, env = worker_invocation(settings, "g000001")
    env = {**os.environ, **env, PARENT_PID_ENV: str(os.getpid())}
    done = subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != EXIT_ORPHANED and "is gone" not in done.stderr
