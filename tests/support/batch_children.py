"""Renderer children that stream real batches, then misbehave: `python -m tests.support.batch_children MODE [GATE]`.

The child is ocr_pipeline.pdf.sandbox.child itself; only the announcement of a render's second batch is
replaced (a one-batch input renders normally):
  crash        the child dies there, the way a segfault does (its second batch file is written, never announced)
  hang         the child sleeps there for an hour
  gated GATE   the child waits there until the file GATE exists, then goes on as usual
  long-line    the child sends a line over the parent's reply limit instead
  stray-path F the child names FILE, outside the render's own files, instead
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from ocr_pipeline.pdf.sandbox import child as sandbox_child


def _misbehave(mode: str, reply: dict[str, Any], replies: Any) -> dict[str, Any]:
    """What the child does instead of announcing its second batch; returns the reply it sends after."""
    if mode == "crash":
        os.abort()
    if mode == "hang":
        time.sleep(3600)
    if mode == "gated":
        while not os.path.exists(sys.argv[2]):
            time.sleep(0.01)
    if mode == "long-line":
        replies.write(json.dumps({"batch": "x" * 70_000}))
    if mode == "stray-path":
        return {"batch": sys.argv[2]}
    return reply


if __name__ == "__main__":
    mode = sys.argv[1]
    replies = sandbox_child.protocol_stream()
    render_batches = sandbox_child.render_batches

    def misbehaving_render(
        kind: str, path: str, target_dim: int, out: str, send: sandbox_child.Send, **options: Any
    ) -> None:
        """The real render, with the second announcement replaced by the mode's misbehaviour."""
        announced = 0

        def announce(reply: dict[str, Any]) -> None:
            nonlocal announced
            announced += 1
            send(_misbehave(mode, reply, replies) if announced == 2 else reply)

        render_batches(kind, path, target_dim, out, announce, **options)

    sandbox_child.render_batches = misbehaving_render
    sandbox_child.serve(sys.stdin, replies)
