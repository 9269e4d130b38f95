"""ONNX Runtime sessions for RapidOCR, set up for small machines that other jobs share.

RapidOCR's own sessions use ONNX Runtime's intra-op thread pool, whose threads spin while they wait for work:
on a 2-core machine shared with other jobs that doubles the CPU a page costs (measured: 10.5-12 s of CPU for the
recognition of a dense page of small print with 2 spinning threads, 5.7-6 s without the spinning). Recognition
gets batches of line images, so instead of splitting each operator across threads, each batch is split across
single-threaded sessions that run side by side: no thread ever waits inside an operator, and all cores work.
Detection gets one page image at a time, so it keeps one session with an intra-op pool, told not to spin.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

# ONNX Runtime's session option that stops idle pool threads from busy-waiting.
_NO_SPINNING = "session.intra_op.allow_spinning"


def session_options(threads: int) -> Any:
    """Session options: `threads` intra-op threads that sleep rather than spin when idle, full graph optimisation."""
    # Imported here, not at start-up: only the CPU engine's first page needs ONNX Runtime.
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.log_severity_level = 4
    # RapidOCR's choice: an arena sized to the largest line image ever seen would hold that memory for good.
    opts.enable_cpu_mem_arena = False
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.add_session_config_entry(_NO_SPINNING, "0")
    return opts


def new_session(model_path: str, threads: int) -> Any:
    """An ONNX Runtime CPU session of `model_path` with `session_options(threads)`."""
    # Imported here, not at start-up: only the CPU engine's first page needs ONNX Runtime.
    import onnxruntime as ort

    return ort.InferenceSession(model_path, session_options(threads), providers=["CPUExecutionProvider"])


class SplitSession:
    """Looks like one InferenceSession to RapidOCR; runs each batch as parts on single-threaded sessions at once."""

    def __init__(self, model_path: str, parts: int) -> None:
        self.sessions = [new_session(model_path, 1) for _ in range(max(1, parts))]
        self._pool = ThreadPoolExecutor(len(self.sessions), thread_name_prefix="ocr-rec")
        self._lock = threading.Lock()  # one batch at a time: parts of two batches would wait on each other anyway

    def get_inputs(self) -> Any:
        """The model's inputs (RapidOCR reads their names)."""
        return self.sessions[0].get_inputs()

    def get_outputs(self) -> Any:
        """The model's outputs (RapidOCR reads their names)."""
        return self.sessions[0].get_outputs()

    def get_modelmeta(self) -> Any:
        """The model's metadata (RapidOCR reads the recogniser's character list there)."""
        return self.sessions[0].get_modelmeta()

    def run(self, output_names: list[str], feed: dict[str, np.ndarray]) -> list[np.ndarray]:
        """Outputs of the batch in `feed`, its images shared out over the sessions and joined again in order."""
        ((name, batch),) = feed.items()
        n = min(len(self.sessions), len(batch))
        if n <= 1:
            return self.sessions[0].run(output_names, feed)
        parts = np.array_split(batch, n)
        with self._lock:
            futures = [
                self._pool.submit(s.run, output_names, {name: p}) for s, p in zip(self.sessions, parts, strict=False)
            ]
            results = [f.result() for f in futures]
        return [np.concatenate([r[i] for r in results]) for i in range(len(output_names))]


def tune_sessions(ocr: Any, threads: int) -> None:
    """Replace a RapidOCR instance's detection and recognition sessions with ones set up as this module says."""
    det = ocr._load_det_model().session  # RapidOCR 3.10 loads its models lazily; these load them now
    rec = ocr._load_rec_model().session
    det.session = new_session(det.session._model_path, threads)
    rec.session = SplitSession(rec.session._model_path, threads)
