"""Local GPU mode: start `vllm serve` as a managed subprocess, wait for it, restart it a bounded number of times."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from ocr_pipeline.engines.vlm.client import ServerNotReadyError
from ocr_pipeline.settings import DEFAULT_MODEL, option

log = logging.getLogger(__name__)


class VllmServerError(RuntimeError):
    """The managed vLLM server could not be started or kept running."""


@dataclass
class VllmLaunchSettings:
    """How to start vLLM; the one source for the local launcher, its `--vllm*` flags and the Kubernetes pod's command.

    Fields with a `flag` are `ocr-pipeline run` flags (the CLI reads their help and default from here).
    """

    model: str = option(DEFAULT_MODEL, "the checkpoint `vllm serve` loads", flag=False, dagster=False)
    served_model_name: str | None = option(
        None, "the name requests use; defaults to `model`", flag=False, dagster=False
    )
    host: str = option("127.0.0.1", "address the server listens on", flag=False, dagster=False)
    port: int = option(30024, "port of the managed server", flag="vllm_port", dagster=False)  # olmOCR's port
    max_model_len: int = option(16384, "vLLM's --max-model-len", flag=False, dagster=False)
    gpu_memory_utilization: float | None = option(None, "vLLM's --gpu-memory-utilization", dagster=False)
    tensor_parallel_size: int = option(1, "vLLM's --tensor-parallel-size", dagster=False)
    data_parallel_size: int = option(1, "vLLM's --data-parallel-size", dagster=False)
    extra_args: Sequence[str] = option(
        (), "more arguments for `vllm serve`, one shell-quoted string", flag="vllm_args", dagster=False
    )
    executable: str = option("vllm", "the `vllm` command", flag=False, dagster=False)
    ready_timeout_s: float = option(
        900.0, "seconds to wait for the model to load", flag="vllm_ready_timeout", dagster=False
    )

    @property
    def url(self) -> str:
        """The server's base URL."""
        return f"http://{self.host}:{self.port}"

    @property
    def request_model(self) -> str:
        """The model name requests must carry."""
        return self.served_model_name or self.model


def vllm_command(settings: VllmLaunchSettings) -> list[str]:
    """The `vllm serve ...` argv for these settings (olmOCR's flags; extra_args appended last so they win)."""
    cmd = [
        settings.executable,
        "serve",
        settings.model,
        "--host",
        settings.host,
        "--port",
        str(settings.port),
        "--served-model-name",
        settings.request_model,
        "--max-model-len",
        str(settings.max_model_len),
        "--tensor-parallel-size",
        str(settings.tensor_parallel_size),
        "--data-parallel-size",
        str(settings.data_parallel_size),
        # Pages are single images: reserving no video budget leaves more memory for the KV cache.
        "--limit-mm-per-prompt",
        '{"video": 0}',
    ]
    if settings.gpu_memory_utilization is not None:
        cmd += ["--gpu-memory-utilization", str(settings.gpu_memory_utilization)]
    return cmd + list(settings.extra_args)


class ManagedVllmServer:
    """Context manager owning one `vllm serve` subprocess: started, awaited, restarted if it dies, stopped."""

    def __init__(
        self,
        settings: VllmLaunchSettings,
        *,
        ready_timeout_s: float | None = None,
        max_restarts: int = 2,
        env: Mapping[str, str] | None = None,
        log_path: str | Path | None = None,
        poll_s: float = 0.5,
    ) -> None:
        self.settings = settings
        self.ready_timeout_s = settings.ready_timeout_s if ready_timeout_s is None else ready_timeout_s
        self.max_restarts = max_restarts
        self.env = dict(os.environ if env is None else env)
        self.log_path = Path(log_path) if log_path else Path(tempfile.mkdtemp(prefix="vllm-")) / "vllm.log"
        self.poll_s = poll_s
        self.restarts = 0
        self.error: VllmServerError | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._stopping = threading.Event()
        self._monitor: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        """The managed server's base URL."""
        return self.settings.url

    @property
    def pid(self) -> int | None:
        """The current subprocess id, if running."""
        return self._proc.pid if self._proc else None

    def _spawn(self) -> None:
        cmd = vllm_command(self.settings)
        log.info("starting %s (log: %s)", " ".join(cmd), self.log_path)
        with open(self.log_path, "ab") as out:
            # Own session: vLLM forks engine workers, and stop() must signal the whole group.
            self._proc = subprocess.Popen(
                cmd, stdout=out, stderr=subprocess.STDOUT, env=self.env, start_new_session=True
            )

    def _log_tail(self, n: int = 2000) -> str:
        try:
            return self.log_path.read_bytes()[-n:].decode("utf-8", "replace")
        except OSError:
            return ""

    def wait_ready(self) -> None:
        """Block until GET /v1/models answers 200; raise if the process exits or the timeout passes."""
        url = self.url + "/v1/models"
        deadline = time.monotonic() + self.ready_timeout_s
        last = "no answer yet"
        while time.monotonic() < deadline:
            if self._stopping.is_set():
                raise VllmServerError("stopped while waiting for readiness")
            proc = self._proc
            if proc is not None and proc.poll() is not None:
                raise VllmServerError(
                    f"vLLM exited with code {proc.returncode} before {url} was ready; log tail:\n{self._log_tail()}"
                )
            try:
                if httpx.get(url, timeout=5.0).status_code == 200:
                    return
                last = "not 200"
            except httpx.HTTPError as exc:
                last = f"{type(exc).__name__}"
            time.sleep(self.poll_s)
        raise ServerNotReadyError(
            f"vLLM server at {url} was not ready after {self.ready_timeout_s:g}s (last: {last}); "
            f"log tail:\n{self._log_tail()}"
        )

    def _watch(self) -> None:
        # Restarts a dead server (OOM, driver hiccup) up to max_restarts; then records the error for check().
        while not self._stopping.wait(self.poll_s):
            with self._lock:
                proc = self._proc
                if proc is None or proc.poll() is None:
                    continue
                if self.restarts >= self.max_restarts:
                    self.error = VllmServerError(
                        f"vLLM died (exit {proc.returncode}) and was restarted {self.restarts} times already"
                    )
                    return
                log.warning("vLLM exited with %s; restart %d/%d", proc.returncode, self.restarts + 1, self.max_restarts)
                # Spawn before counting: whoever sees the new count also sees the new process, never the dead one.
                self._spawn()
                self.restarts += 1
            try:
                self.wait_ready()
            except (VllmServerError, ServerNotReadyError) as exc:
                log.warning("restarted vLLM is not ready: %s", exc)

    def check(self) -> None:
        """Raise the monitor's error if the server died more often than allowed."""
        if self.error is not None:
            raise self.error

    def start(self) -> ManagedVllmServer:
        """Spawn, wait for readiness, and start the restart monitor."""
        self._stopping.clear()
        self._spawn()
        try:
            self.wait_ready()
        except BaseException:
            self.stop()
            raise
        self._monitor = threading.Thread(target=self._watch, name="vllm-monitor", daemon=True)
        self._monitor.start()
        return self

    def stop(self, grace_s: float = 30.0) -> None:
        """Stop the monitor, then SIGTERM the process group, SIGKILL after `grace_s`."""
        self._stopping.set()
        if self._monitor is not None and self._monitor is not threading.current_thread():
            self._monitor.join(grace_s)
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(grace_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        except ProcessLookupError:
            pass

    def __enter__(self) -> ManagedVllmServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
