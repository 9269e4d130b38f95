"""The managed `vllm serve` subprocess, exercised with a fake `vllm` executable that runs the fake server."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
import time
from pathlib import Path

import httpx
import pytest

from ocr_pipeline.engines.vlm import ServerNotReadyError, VlmEngine
from ocr_pipeline.launch.vllm_server import ManagedVllmServer, VllmLaunchSettings, VllmServerError, vllm_command
from tests.support import page_input

FAKE_VLLM = """#!{python}
import json, os, sys, time
state = os.environ["FAKE_VLLM_STATE"]
argv = sys.argv[1:]
starts_file = os.path.join(state, "starts")
starts = int(open(starts_file).read()) if os.path.exists(starts_file) else 0
open(starts_file, "w").write(str(starts + 1))
open(os.path.join(state, "argv.json"), "w").write(json.dumps(argv))
mode = os.environ.get("FAKE_VLLM_MODE", "serve")
if mode == "exit":
    print("CUDA out of memory (fake)", flush=True)
    sys.exit(3)
if mode == "hang":
    time.sleep(60)
from tests.support import VlmTestServer
port = int(argv[argv.index("--port") + 1])
name = argv[argv.index("--served-model-name") + 1]
VlmTestServer(port=port, model=name).start()
if mode == "die_always" or (mode == "die_first" and starts == 0):
    time.sleep(0.5)
    os._exit(1)
while True:
    time.sleep(1)
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def fake_env(tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "vllm"
    script.write_text(FAKE_VLLM.format(python=sys.executable))
    script.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "FAKE_VLLM_STATE": str(tmp_path)}


def settings() -> VllmLaunchSettings:
    return VllmLaunchSettings(model="tiny/model", served_model_name="olmocr", port=free_port())


def test_vllm_command() -> None:
    s = VllmLaunchSettings(
        model="m", port=8001, gpu_memory_utilization=0.8, tensor_parallel_size=2, extra_args=["--enforce-eager"]
    )
    cmd = vllm_command(s)
    assert cmd[:3] == ["vllm", "serve", "m"]
    pairs = dict(zip(cmd[3::2], cmd[4::2], strict=False))
    assert pairs["--port"] == "8001" and pairs["--max-model-len"] == "16384"
    assert pairs["--served-model-name"] == "m" and pairs["--gpu-memory-utilization"] == "0.8"
    assert pairs["--tensor-parallel-size"] == "2" and pairs["--data-parallel-size"] == "1"
    assert cmd[-1] == "--enforce-eager"
    assert "--gpu-memory-utilization" not in vllm_command(VllmLaunchSettings())


def test_starts_serves_and_stops(fake_env: dict[str, str], tmp_path: Path) -> None:
    s = settings()
    with ManagedVllmServer(s, env=fake_env, ready_timeout_s=20, poll_s=0.1) as server:
        pid = server.pid
        assert json.loads((tmp_path / "argv.json").read_text()) == vllm_command(s)[1:]

        async def ocr() -> bool:
            async with VlmEngine(server.url, s.request_model) as engine:
                return (await engine.aocr_page(page_input(1))).is_fallback

        assert asyncio.run(ocr()) is False
    with pytest.raises(httpx.ConnectError):
        httpx.get(s.url + "/v1/models", timeout=1)
    with pytest.raises(ProcessLookupError):
        os.kill(pid or 0, 0)


def test_restarts_after_a_crash(fake_env: dict[str, str], tmp_path: Path) -> None:
    env = {**fake_env, "FAKE_VLLM_MODE": "die_first"}
    with ManagedVllmServer(settings(), env=env, ready_timeout_s=20, poll_s=0.1, max_restarts=2) as server:
        deadline = time.monotonic() + 20
        while server.restarts == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert server.restarts == 1
        server.wait_ready()
        assert httpx.get(server.url + "/v1/models", timeout=2).status_code == 200
        server.check()
    assert (tmp_path / "starts").read_text() == "2"


def test_gives_up_after_bounded_restarts(fake_env: dict[str, str]) -> None:
    env = {**fake_env, "FAKE_VLLM_MODE": "die_always"}
    with ManagedVllmServer(settings(), env=env, ready_timeout_s=20, poll_s=0.1, max_restarts=1) as server:
        deadline = time.monotonic() + 20
        while server.error is None and time.monotonic() < deadline:
            time.sleep(0.1)
        with pytest.raises(VllmServerError, match="restarted 1 times"):
            server.check()


def test_exit_at_start_is_a_clear_error(fake_env: dict[str, str]) -> None:
    env = {**fake_env, "FAKE_VLLM_MODE": "exit"}
    with pytest.raises(VllmServerError, match=r"exited with code 3(.|\n)*CUDA out of memory"):
        ManagedVllmServer(settings(), env=env, ready_timeout_s=20, poll_s=0.1).start()


def test_never_ready_names_the_url(fake_env: dict[str, str]) -> None:
    env = {**fake_env, "FAKE_VLLM_MODE": "hang"}
    s = settings()
    server = ManagedVllmServer(s, env=env, ready_timeout_s=1.0, poll_s=0.1)
    with pytest.raises(ServerNotReadyError, match=f"{s.url}/v1/models"):
        server.start()
    assert server.pid is None  # the hung process was stopped
