"""Hostile HTTP servers on 127.0.0.1 for bound tests: one trickles a byte at a time, one sends a 200 body for ever."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType


class HostileServer:
    """`mode="trickle"`: a 200 whose body arrives one byte every `interval_s`; `mode="endless"`: an infinite body.

    Each connection gets its own thread; stopping closes the listener and every open connection.
    """

    def __init__(self, mode: str, *, interval_s: float = 0.2, secret_echo: str = "") -> None:
        if mode not in ("trickle", "endless", "echo_401"):
            raise ValueError(mode)
        self.mode, self.interval_s, self.secret_echo = mode, interval_s, secret_echo
        self.sent_bytes = 0
        self.connections = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    @property
    def url(self) -> str:
        """Base URL for an OpenAI client (`/v1` is appended by the client)."""
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> HostileServer:
        accept = threading.Thread(target=self._accept, daemon=True)
        accept.start()
        self._threads.append(accept)
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self._stop.set()
        self._listener.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _read_request(self, conn: socket.socket) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            data += conn.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        lengths = [int(line.split(b":")[1]) for line in lines if line.lower().startswith(b"content-length")]
        length = lengths[0] if lengths else 0
        while len(body) < length:
            body += conn.recv(1 << 20)

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                self._read_request(conn)
                if self.mode == "echo_401":
                    body = f'{{"error": "invalid key Bearer {self.secret_echo}"}}'.encode()
                    conn.sendall(b"HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n"
                                 + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)  # fmt: skip
                    return
                if self.mode == "trickle":
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
                    while not self._stop.is_set():
                        conn.sendall(b" ")
                        self.sent_bytes += 1
                        time.sleep(self.interval_s)
                    return
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
                chunk = b"x" * 65536
                frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
                while not self._stop.is_set():
                    conn.sendall(frame)
                    self.sent_bytes += len(chunk)
            except OSError:
                return  # the client hung up: what a bounded client does
