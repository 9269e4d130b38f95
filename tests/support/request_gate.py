"""A gate for the fake VLM server: each completion request waits until enough requests arrived, or a timeout.

A run that keeps the server fed (the next work group sends while the previous one's answers are held) opens the
gate; one that waits for every answer before sending more never does, and its holds time out. Counting the
timed-out holds proves which of the two happened, without measuring any time.
"""

from __future__ import annotations

import asyncio


class RequestGate:
    """Counts arrivals; `hold` returns once `until` requests arrived in total, or after `timeout_s` (counted)."""

    def __init__(self, until: int, timeout_s: float = 30.0) -> None:
        self.until, self.timeout_s = until, timeout_s
        self.arrived = self.timed_out = 0
        self._open: asyncio.Event | None = None  # made in the server's loop, on first use

    def _event(self) -> asyncio.Event:
        if self._open is None:
            self._open = asyncio.Event()
        return self._open

    def arrive(self) -> None:
        """One more completion request reached the server (call from its loop)."""
        self.arrived += 1
        if self.arrived >= self.until:
            self._event().set()

    async def hold(self) -> None:
        """Wait for the gate to open; a wait that outlasts `timeout_s` is counted, then the request goes on."""
        opened = self._event()
        if opened.is_set():
            return
        try:
            await asyncio.wait_for(opened.wait(), self.timeout_s)
        except asyncio.TimeoutError:
            self.timed_out += 1
