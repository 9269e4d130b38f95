"""Work groups overlapped on a VLM server: the next group sends while the last answers of the previous one come back.

Proven without timing: the fake server holds every answer until all pages of the run arrived, which only a run
that starts the next group before the previous one ends can satisfy. The rest checks that overlapping changes
nothing a user sees: same bytes, one readiness probe, one failed group stays one, Ctrl-C is safe to resume.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from ocr_pipeline.local_run import RunSummary, run_local
from ocr_pipeline.settings import PipelineSettings
from ocr_pipeline.stages import ocr_stream
from ocr_pipeline.stages.pdf_inventory import list_groups, read_group
from ocr_pipeline.workspace.commit import pending_groups
from ocr_pipeline.workspace.keys import dolma_key, done_key, pages_key, rejected_key
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import read_gzip_jsonl, read_jsonl
from tests.support.builders import corpora
from tests.support.oracle import right_answers
from tests.support.vlm_server import VlmTestServer


def _corpus(root: Path, pages: dict[str, int], broken: str | None = None) -> Path:
    """Numbered PDFs of the given page counts (and one non-PDF named `broken`) in root/in.

    The server answers their pages with their own words (tests.support.oracle): none of these tests is about what
    the model reads, and unrelated answers would stop each group at the text-layer agreement gate.
    """
    folder = root / "in"
    folder.mkdir(parents=True, exist_ok=True)
    for name, count in pages.items():
        (folder / name).write_bytes(corpora.numbered_pdf(Path(name).stem, count))
    if broken:
        (folder / broken).write_bytes(corpora.REJECTED_BODY)
    return folder


def _settings(root: Path, ws: str, server: VlmTestServer, pages_per_group: int, **kw: object) -> PipelineSettings:
    return PipelineSettings(
        workspace=str(root / ws), pdfs=[str(root / "in")], server=server.url, pages_per_group=pages_per_group, **kw
    )


def _run(settings: PipelineSettings) -> tuple[RunSummary, LocalWorkspace]:
    return run_local(settings, show_progress=False, verbose=False), LocalWorkspace(settings.workspace)


def _groups(ws: LocalWorkspace) -> list[list[str]]:
    """Each group's inputs, by file name, in group order."""
    return [[Path(r["source"]).name for r in read_group(ws, g)] for g in list_groups(ws)]


def _ended(ws: LocalWorkspace) -> Counter[str]:
    """How often each input appears across every shard and rejection ledger that exists."""
    seen: Counter[str] = Counter()
    for group in list_groups(ws):
        if ws.exists(dolma_key(group)):
            seen.update(d["metadata"]["Source-File"] for d in read_gzip_jsonl(ws.read_bytes(dolma_key(group))))
        if ws.exists(rejected_key(group)):
            seen.update(line["source"] for line in read_jsonl(ws, rejected_key(group)))
    return seen


def _inputs(root: Path) -> set[str]:
    return {str(p) for p in (root / "in").iterdir()}


def _each_page_once(server: VlmTestServer, pages: int) -> bool:
    return len(server.requests) == pages and set(Counter(r.page_key for r in server.requests).values()) == {1}


# -- a. the overlap itself ------------------------------------------------------------------------------------------
TWO_GROUPS = {"first.pdf": 3, "second.pdf": 4}  # pages_per_group 4: 3 + 4 > 4, so exactly two groups
TWO_GROUPS_PAGES = sum(TWO_GROUPS.values())


def test_the_next_group_sends_before_the_previous_one_has_its_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OCR_PIPELINE_STREAM_PAGES", raising=False)  # on by default
    answers = right_answers(_corpus(tmp_path, TWO_GROUPS))
    # No answer leaves the server before every page of the run arrived: group 1's answers wait for group 2's
    # pages. Sequential groups could only pass by group 1's holds timing out (its pages then answered late).
    with VlmTestServer(hold_until_requests=TWO_GROUPS_PAGES, text_for=answers) as server:
        summary, ws = _run(_settings(tmp_path, "ws", server, 4))
        assert _groups(ws) == [["first.pdf"], ["second.pdf"]]
        assert summary.ok and summary.groups == 2, summary.causes
        assert server.holds_timed_out == 0
        assert summary.fallback_pages == 0 and summary.pages == TWO_GROUPS_PAGES
        assert _each_page_once(server, TWO_GROUPS_PAGES)
    assert pending_groups(ws, list_groups(ws)) == []


def test_without_overlap_the_same_gate_times_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The test above can fail: groups run one after the other never open the gate for the first group."""
    answers = right_answers(_corpus(tmp_path, TWO_GROUPS))
    monkeypatch.setenv("OCR_PIPELINE_STREAM_PAGES", "0")  # the sequential path: one group's run after the other
    with VlmTestServer(hold_until_requests=TWO_GROUPS_PAGES, hold_timeout_s=2.0, text_for=answers) as server:
        summary, ws = _run(_settings(tmp_path, "ws", server, 4))
        assert _groups(ws) == [["first.pdf"], ["second.pdf"]]
        assert summary.ok, summary.causes  # a timed-out hold still answers: only the counter tells
        # Every page of group 1 waited in vain; group 2's pages arrived together and opened the gate.
        assert server.holds_timed_out == TWO_GROUPS["first.pdf"]


# -- b. same bytes whichever way the groups ran ---------------------------------------------------------------------
MIXED = {"01 one page.pdf": 1, "02 résumé.pdf": 6, "04_日本語.pdf": 3, "05.pdf": 4, "06 long.pdf": 15, "07.pdf": 2}
MIXED_GROUPS = [  # pages_per_group 8; the broken input weighs one page
    ["01 one page.pdf", "02 résumé.pdf", "03_broken.pdf"],
    ["04_日本語.pdf", "05.pdf"],
    ["06 long.pdf"],
    ["07.pdf"],
]


def _outputs(ws: LocalWorkspace) -> dict[str, tuple[bytes, bytes]]:
    return {g: (ws.read_bytes(dolma_key(g)), ws.read_bytes(rejected_key(g))) for g in list_groups(ws)}


def test_overlapped_groups_write_the_same_bytes_as_sequential_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = right_answers(_corpus(tmp_path, MIXED, broken="03_broken.pdf"))
    with VlmTestServer(text_for=answers) as server:
        monkeypatch.setenv("OCR_PIPELINE_STREAM_PAGES", "0")
        plain_summary, plain = _run(_settings(tmp_path, "plain", server, 8))
        monkeypatch.delenv("OCR_PIPELINE_STREAM_PAGES")  # on by default
        runs = {w: _run(_settings(tmp_path, f"overlapped{w}", server, 8, workers=w)) for w in (1, 2)}
    assert _groups(plain) == MIXED_GROUPS and plain_summary.ok, plain_summary.causes
    reference = _outputs(plain)
    assert _ended(plain) == Counter(_inputs(tmp_path))  # each input in exactly one shard or ledger
    assert "03_broken.pdf" in "".join(line["source"] for line in read_jsonl(plain, rejected_key("g000001")))
    for workers, (summary, ws) in runs.items():
        assert summary.ok and summary.groups == len(MIXED_GROUPS), (workers, summary.causes)
        assert _groups(ws) == MIXED_GROUPS
        assert _outputs(ws) == reference, f"workers={workers}"
        assert pending_groups(ws, list_groups(ws)) == []
        assert summary.rejected == plain_summary.rejected == Counter(corrupt_pdf=1)


# -- c. readiness --------------------------------------------------------------------------------------------------
def test_readiness_is_probed_once_for_all_groups(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OCR_PIPELINE_STREAM_PAGES", raising=False)
    answers = right_answers(_corpus(tmp_path, {"a.pdf": 1, "b.pdf": 1, "c.pdf": 1}))
    monkeypatch.setattr(ocr_stream, "_ready", set())  # this process has probed no server yet
    with VlmTestServer(text_for=answers) as server:
        summary, ws = _run(_settings(tmp_path, "ws", server, 1))
        assert len(list_groups(ws)) == 3 and summary.ok, summary.causes
        assert server.models_calls == 1
        assert _each_page_once(server, 3)


# -- d. one failed group ------------------------------------------------------------------------------------------
def test_a_failed_group_leaves_the_others_done_and_the_rerun_completes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OCR_PIPELINE_STREAM_PAGES", raising=False)
    answers = right_answers(_corpus(tmp_path, {"a.pdf": 2, "b.pdf": 2, "c.pdf": 2}))
    with VlmTestServer(text_for=answers) as server:
        settings = _settings(tmp_path, "ws", server, 2)
        # The middle group cannot publish its rendered pages (a folder stands where its file goes): its run fails
        # before it reports page_images materialized; with one worker, group 3 starts only if the failed run frees
        # its slot.
        blocker = Path(settings.workspace) / pages_key("g000002")
        (blocker / "in-the-way").mkdir(parents=True)
        summary, ws = _run(settings)
        assert _groups(ws) == [["a.pdf"], ["b.pdf"], ["c.pdf"]]
        assert summary.failed_groups == ["g000002"], summary.causes
        cause = summary.causes["g000002"]
        assert "IsADirectoryError" in cause and "\n" not in cause and len(cause) < 500, cause
        assert ws.exists(done_key("g000001")) and ws.exists(done_key("g000003"))
        assert pending_groups(ws, list_groups(ws)) == ["g000002"]
        assert _ended(ws) == Counter({str(tmp_path / "in" / "a.pdf"): 1, str(tmp_path / "in" / "c.pdf"): 1})

        (blocker / "in-the-way").rmdir()
        blocker.rmdir()
        again, _ = _run(settings)
        assert again.ok and again.groups == 1, again.causes
    assert pending_groups(ws, list_groups(ws)) == []
    assert _ended(ws) == Counter(_inputs(tmp_path))
    assert set(Counter(r.page_key for r in server.requests).values()) == {1}  # no page read twice either


# -- the CLI's console ---------------------------------------------------------------------------------------------
def test_an_overlapped_cli_run_prints_no_traceback(tmp_path: Path) -> None:
    answers = right_answers(_corpus(tmp_path, {f"d{i:02d}.pdf": 1 for i in range(10)}))  # ten one-page groups
    env = {k: v for k, v in os.environ.items() if k != "OCR_PIPELINE_STREAM_PAGES"}
    with VlmTestServer(text_for=answers) as server:
        cli = _cli(tmp_path, server)
        cli[cli.index("--pages-per-group") + 1] = "1"
        proc = subprocess.run(cli, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0 and "groups run:     10" in proc.stdout, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "ERROR" not in proc.stderr, proc.stderr[:3000]


# -- e. Ctrl-C --------------------------------------------------------------------------------------------------
def _cli(root: Path, server: VlmTestServer) -> list[str]:
    return [sys.executable, "-m", "ocr_pipeline.cli", "run", str(root / "ws"), "--pdfs", str(root / "in"),
            "--server", server.url, "--pages-per-group", "6", "--quiet"]  # fmt: skip


def _as_background_job() -> None:
    """What a shell does to a command started with `&` (no job control): SIGINT ignored, SIGTERM at its default."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("target", ["process", "process group", "background job, SIGTERM"])
def test_ctrl_c_while_groups_overlap_exits_130_and_the_rerun_completes(tmp_path: Path, target: str) -> None:
    pages = {"a.pdf": 6, "b.pdf": 6, "c.pdf": 6}
    answers = right_answers(_corpus(tmp_path, pages))
    env = {k: v for k, v in os.environ.items() if k != "OCR_PIPELINE_STREAM_PAGES"}
    env["PYTHONFAULTHANDLER"] = "1"
    # Slow enough answers (4 pages/s) that the run is still busy when the second group's pages arrive.
    with VlmTestServer(service_time_s=0.5, capacity=2, text_for=answers) as server:
        # SIGINT reaches the CLI at its default however the suite was started (tests/conftest.py).
        background = target.startswith("background")
        proc = subprocess.Popen(_cli(tmp_path, server), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env, start_new_session=True,
                                preexec_fn=_as_background_job if background else None)  # fmt: skip
        try:
            deadline = time.monotonic() + 180
            # More requests than group 1 has pages: the second group is sending.
            while len(server.requests) <= pages["a.pdf"] and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            assert proc.poll() is None, "the run ended before it could be interrupted"
            assert len(server.requests) > pages["a.pdf"], "the second group never sent a page"
            if background:  # `kill PID` of a run started in the background: its SIGINT is ignored
                proc.send_signal(signal.SIGTERM)
            elif target == "process":
                proc.send_signal(signal.SIGINT)
            else:  # what a terminal's Ctrl-C does: every process of the foreground group gets it
                os.killpg(proc.pid, signal.SIGINT)
            try:
                _, stderr = proc.communicate(timeout=60)  # no hang on the way out (not a speed check)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGABRT)  # PYTHONFAULTHANDLER: every thread's stack goes to stderr
                pytest.fail(f"still running 60 s after SIGINT:\n{proc.communicate(timeout=30)[1][-20000:]}")
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
        assert proc.returncode == 130, stderr
        assert "interrupted; run the same command again to resume" in stderr
        assert "Traceback" not in stderr, stderr

        rerun = subprocess.run(_cli(tmp_path, server), capture_output=True, text=True, env=env, timeout=300)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    ws = LocalWorkspace(str(tmp_path / "ws"))
    assert _groups(ws) == [["a.pdf"], ["b.pdf"], ["c.pdf"]]
    assert pending_groups(ws, list_groups(ws)) == []
    assert _ended(ws) == Counter(_inputs(tmp_path))
