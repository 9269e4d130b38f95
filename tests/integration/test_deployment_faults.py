"""The deployment fails under the pipeline and recovers by itself: a SIGKILLed daemon, an S3 outage, a Postgres restart.

The stack of tests/integration/test_deployment.py (the shipped Postgres instance file, `dagster-daemon run` and
`dagster-webserver`, SeaweedFS, the VLM test server), the sensor switched on over GraphQL, groups of 8 pages so
that many partitions run. While runs are in flight: both Dagster process groups are SIGKILLed and started again (a
node restart, an OOM kill), the S3 server is stopped for 30 s and started again on the same data, and Postgres is
restarted. Nobody acts afterwards; every input must end exactly once, no run stays in progress, and no page whose
answer was in the memo when a fault struck is sent to the server again.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import pytest
import yaml

from ocr_pipeline.defs.run_launcher import WORKER_HOST_TAG
from ocr_pipeline.pdf.page_rows import document_pages
from ocr_pipeline.settings import DEFAULT_TARGET_LONGEST_IMAGE_DIM
from ocr_pipeline.stages.pdf_inventory import list_groups, read_group
from ocr_pipeline.workspace.commit import done_groups
from ocr_pipeline.workspace.s3 import S3Workspace
from ocr_pipeline.workspace.tables import read_gzip_jsonl
from tests.support.audit import audit
from tests.support.builders import corpora
from tests.support.dagster_stack import REPO, DagsterStack
from tests.support.oracle import right_answers_of
from tests.support.postgres_server import PostgresOnTcp
from tests.support.s3_server import READER, SeaweedS3
from tests.support.vlm_protocol import page_key
from tests.support.vlm_server import VlmTestServer

T = TypeVar("T")
# Named by words, not numbers: pages of two documents never carry the same characters in another order (the
# server keys a page by its pixel histogram, which a permutation of the same glyphs could repeat).
DOCUMENTS = {"kestrel_1p.pdf": 1, "heron_3p.pdf": 3, "osprey_6p.pdf": 6, "plover_11p.pdf": 11, "curlew_19p.pdf": 19}
ODD_NAME = "Rapport d’été – n°2 (final) [v3] #ok.pdf"
IN_PROGRESS = "('QUEUED', 'NOT_STARTED', 'STARTING', 'STARTED', 'CANCELING')"
OUTAGE_S = 30
# A restart as a database host does one: down for a few seconds, longer than dagster-postgres' own connect retries.
PG_DOWN_S = 10.0
ODD_PAGES = 5


def _corpus() -> dict[str, bytes]:
    corpus = {name: corpora.numbered_pdf(name.split("_")[0].capitalize(), pages) for name, pages in DOCUMENTS.items()}
    corpus[ODD_NAME] = corpora.numbered_pdf("Avocet", ODD_PAGES)
    corpus[corpora.REJECTED_NAME] = corpora.REJECTED_BODY
    return corpus


def _instance_file(home: Path, env: dict[str, str]) -> None:
    """The shipped Postgres instance file, with the daemon's loops ticking every few seconds instead of 30."""
    setup = subprocess.run([str(REPO / "deploy" / "dagster_home.sh")], env={**os.environ, **env, "DAGSTER_HOME":
                           str(home)}, capture_output=True, text=True)  # fmt: skip
    assert setup.returncode == 0, setup.stderr
    config = yaml.safe_load((home / "dagster.yaml").read_text())
    config["run_monitoring"]["poll_interval_seconds"] = 5
    (home / "dagster.yaml").write_text(yaml.safe_dump(config, sort_keys=False))


def _env(pg: PostgresOnTcp, s3: SeaweedS3, server: str) -> dict[str, str]:
    return {
        **pg.env(),
        **s3.env(),
        "OCR_PIPELINE_INPUT_AWS_ACCESS_KEY_ID": READER[0],
        "OCR_PIPELINE_INPUT_AWS_SECRET_ACCESS_KEY": READER[1],
        "OCR_PIPELINE_WORKSPACE": "s3://ocr-ws/faults",
        "OCR_PIPELINE_PDFS": "s3://pdfs-in/corpus/",
        "OCR_PIPELINE_SERVER": server,
        "OCR_PIPELINE_PAGES_PER_GROUP": "8",
        "OCR_PIPELINE_MAX_CONCURRENT_REQUESTS": "4",
        # The canary is not what this test is about (test_canary_daemon.py is): one run fewer before the groups.
        "OCR_PIPELINE_CANARY": "off",
        "OCR_PIPELINE_SENSOR_INTERVAL_S": "5",
        # Three faults may strike one group three times (the default is 2 retries, then a person: the docs say so).
        "OCR_PIPELINE_SENSOR_MAX_RETRIES": "3",
    }


@dataclass
class Struck:
    """A fault as it struck: which, the pages in the memo just before, the groups in flight; `at` on the monotonic
    clock, as the server's request times are."""

    fault: str
    memo: set[tuple[str, int]]
    groups: list[str]
    at: float = field(default_factory=time.monotonic)


class Timeline:
    """Seconds since the test began, with what happened then; printed at the end."""

    def __init__(self) -> None:
        self.t0 = time.time()
        self.marks: list[tuple[float, str]] = []

    def mark(self, what: str) -> float:
        now = time.time()
        self.marks.append((now - self.t0, what))
        return now

    def wait(self, what: str, probe: Callable[[], T | None], timeout_s: float, poll_s: float = 1.0) -> T:
        """Poll `probe` (errors while a service is down count as "not yet") and mark when it held."""
        deadline = time.monotonic() + timeout_s
        last_error: Exception | None = None
        while time.monotonic() < deadline:
            try:
                value = probe()
            except (RuntimeError, OSError) as exc:
                value, last_error = None, exc
            if value:
                self.mark(what)
                return value
            time.sleep(poll_s)
        raise TimeoutError(f"{what}: not within {timeout_s:.0f}s (last error: {last_error}); {self}")

    def __str__(self) -> str:
        return "\n".join(f"{t:7.1f}s  {what}" for t, what in sorted(self.marks))


def _runs(pg: PostgresOnTcp, where: str = "TRUE") -> list[dict[str, str]]:
    """Runs `where` selects, oldest first: id, job, status, partition, parent (a retry's), worker host, start, end."""
    tag = "LEFT JOIN run_tags {0} ON {0}.run_id = r.run_id AND {0}.key = '{1}'"
    sql = (
        "SELECT r.run_id, r.pipeline_name, r.status, coalesce(p.value, ''), coalesce(a.value, ''), "
        "coalesce(h.value, ''), coalesce(r.start_time, 0), coalesce(r.end_time, 0) FROM runs r "
        f"{tag.format('p', 'dagster/partition')} {tag.format('a', 'dagster/parent_run_id')} "
        f"{tag.format('h', WORKER_HOST_TAG)} WHERE {where} ORDER BY r.create_timestamp"
    )
    keys = ("run_id", "job", "status", "partition", "parent", "host", "start", "end")
    return [dict(zip(keys, line.split("|"), strict=True)) for line in pg.query(sql).splitlines()]


def _failure(pg: PostgresOnTcp, run_id: str) -> str:
    """The first line of why a run failed: the deepest cause of its failed step's error, else the run's message."""
    sql = (
        f"SELECT event FROM event_logs WHERE run_id = '{run_id}' AND dagster_event_type IN "
        "('STEP_FAILURE', 'PIPELINE_FAILURE') ORDER BY id"
    )
    for line in pg.query(sql).splitlines():
        event = json.loads(line).get("dagster_event") or {}
        error = (event.get("event_specific_data") or {}).get("error")
        while error and error.get("cause"):
            error = error["cause"]
        text = str((error or {}).get("message") or event.get("message") or "").strip()
        return text.splitlines()[0][:240] if text else "(no message)"
    return "(no failure event)"


def _print_runs(pg: PostgresOnTcp, t0: float) -> None:
    for r in _runs(pg):
        start, end = (f"{float(r[k]) - t0:6.1f}s" if float(r[k]) else "   -   " for k in ("start", "end"))
        why = _failure(pg, r["run_id"]) if r["status"] == "FAILURE" else ""
        retry = f" retry of {r['parent'][:8]}" if r["parent"] else ""
        print(f"{r['job']:13} {r['partition']:7} {r['status']:7} {start} -> {end} {r['run_id'][:8]}{retry} {why}")


def _page_keys(corpus: dict[str, bytes]) -> dict[str, tuple[str, int]]:
    """The server's key of every page the pipeline sends, to (file name, page number): rendered as the pipeline
    renders them (tests/support/oracle.py does the same for the answers)."""
    keys: dict[str, tuple[str, int]] = {}
    with tempfile.TemporaryDirectory(prefix="pages-") as folder:
        for name, data in corpus.items():
            if name == corpora.REJECTED_NAME:
                continue
            (Path(folder) / "in.pdf").write_bytes(data)
            for row in document_pages("pdf", str(Path(folder) / "in.pdf"), DEFAULT_TARGET_LONGEST_IMAGE_DIM):
                keys[page_key(row["png"])] = (name, row["page_num"])
    return keys


def _memo_pages(ws: S3Workspace, names: dict[str, str]) -> set[tuple[str, int]]:
    """(file name, page number) of every answer in the page memo now, from its keys (content hash, page)."""
    found = set()
    for key in ws.list("memo/"):
        parts = key.split("/")  # memo/<h[:2]>/<content hash>/<settings key>/p<page>.json
        found.add((names[parts[2]], int(parts[-1][1:-5])))
    return found


def _started(pg: PostgresOnTcp) -> list[dict[str, str]]:
    """The ocr_job runs in progress."""
    return [r for r in _runs(pg, "r.status = 'STARTED'") if r["job"] == "ocr_job"]


def _in_ocr(server: VlmTestServer, pg: PostgresOnTcp) -> list[dict[str, str]] | None:
    """The ocr_job runs in progress while the server is answering one of them."""
    started = _started(pg)
    return started if started and server.in_flight > 0 else None


def _members(ws: S3Workspace, group: str) -> set[str]:
    """The file names of a group's inputs."""
    return {row["source"].rsplit("/", 1)[1] for row in read_group(ws, group)}


def _in_ocr_with_memo(server: VlmTestServer, pg: PostgresOnTcp, ws: S3Workspace, names: dict[str, str]) -> (
    tuple[list[dict[str, str]], set[tuple[str, int]]] | None
):  # fmt: skip
    """Runs in OCR of which at least one group already has pages in the memo (so that a retry can skip them)."""
    running = _in_ocr(server, pg)
    if not running:
        return None
    memo = _memo_pages(ws, names)
    members = set().union(*(_members(ws, r["partition"]) for r in running))
    return (running, memo) if any(name in members for name, _ in memo) else None


def _finished_at(pg: PostgresOnTcp, groups: list[str], t0: float) -> str:
    """When each group's last run succeeded, in seconds since t0."""
    ends = {r["partition"]: float(r["end"]) - t0 for r in _runs(pg, "r.status = 'SUCCESS'") if r["partition"]}
    return ", ".join(f"{g} {ends[g]:.0f}s" if g in ends else f"{g} not done" for g in groups)


def _report(timeline: Timeline, faults: list[Struck], pg: PostgresOnTcp) -> None:
    """Print the timeline, when each group a fault struck finished, and every run (a failure's first line)."""
    print(timeline)
    try:
        for f in faults:
            ends = _finished_at(pg, f.groups, timeline.t0)
            print(f"{f.fault}: in flight {', '.join(f.groups)}; their last runs ended at {ends}")
        _print_runs(pg, timeline.t0)
    except RuntimeError as exc:  # Postgres down: the timeline is what there is
        print(f"runs not read: {exc}")


@pytest.mark.timeout(900)
def test_a_killed_daemon_an_s3_outage_and_a_postgres_restart_lose_nothing_and_need_nobody(tmp_path: Path) -> None:
    timeline = Timeline()
    corpus = _corpus()
    page_of = _page_keys(corpus)
    names = {hashlib.sha256(data).hexdigest(): name for name, data in corpus.items()}
    with PostgresOnTcp() as pg, SeaweedS3() as s3, VlmTestServer(text_for=right_answers_of(corpus),
                                                                  service_time_s=0.5) as vlm:  # fmt: skip
        for bucket in ("pdfs-in", "ocr-ws"):
            s3.client().create_bucket(Bucket=bucket)
        sources = corpora.upload(s3.client(), "pdfs-in", "corpus/", corpus)
        env = _env(pg, s3, vlm.url)
        home = tmp_path / "dagster_home"
        _instance_file(home, env)
        ws = S3Workspace("s3://ocr-ws/faults", s3.client())
        stack = DagsterStack(home, env)
        faults: list[Struck] = []
        try:
            stack.start()
            assert stack.start_sensor("work_group_sensor") == "RUNNING"
            timeline.mark("stack up, sensor on")

            # (a) Mid-OCR, once a group in flight has pages in the memo, both process groups are SIGKILLed: the
            # daemon, its code server and run workers, the webserver. Nothing gets to record that the runs ended.
            killed, memo = timeline.wait("a run in OCR, pages in the memo", lambda: _in_ocr_with_memo(vlm, pg, ws,
                                         names), 300, 0.2)  # fmt: skip
            faults.append(Struck("SIGKILL", memo, [r["partition"] for r in killed]))
            stack.kill()
            timeline.mark(f"SIGKILL: daemon and webserver; in flight: {', '.join(r['partition'] for r in killed)}")
            stack.start()
            timeline.mark("stack started again")
            ids = ", ".join(f"'{r['run_id']}'" for r in killed)
            timeline.wait("the killed runs marked failed", lambda: not _runs(pg, f"r.run_id IN ({ids}) AND "
                          f"r.status IN {IN_PROGRESS}"), 300)  # fmt: skip

            # (b) S3 goes away for 30 s under a partition in OCR (its answers go to the memo on S3) and comes back
            # on the same data.
            running = timeline.wait("a run in OCR", lambda: _in_ocr(vlm, pg), 300, 0.2)
            faults.append(Struck("S3 outage", _memo_pages(ws, names), [r["partition"] for r in running]))
            s3.pause()
            timeline.mark(f"S3 stopped; in flight: {', '.join(r['partition'] for r in running)}")
            time.sleep(OUTAGE_S)
            s3.start()
            timeline.mark("S3 started again")

            # (c) Postgres restarts (down for PG_DOWN_S, longer than dagster-postgres' connection retries) under a
            # partition in OCR, which writes its events as it goes.
            running = timeline.wait("a run in OCR", lambda: _in_ocr(vlm, pg), 300, 0.2)
            faults.append(Struck("Postgres restart", _memo_pages(ws, names), [r["partition"] for r in running]))
            pg.restart(down_s=PG_DOWN_S)
            last_fault = timeline.mark(f"Postgres restarted; in flight: {', '.join(r['partition'] for r in running)}")

            def finished() -> bool:
                groups = list_groups(ws)
                idle = not _runs(pg, f"r.status IN {IN_PROGRESS}")
                return bool(groups) and idle and done_groups(ws) >= set(groups)

            # Within 10 minutes of the last fault, nobody acting.
            timeline.wait("every group done, no run in progress", finished, 600, 2)
            recovered_s = time.time() - last_fault
        finally:
            stack.stop()
            _report(timeline, faults, pg)

        # Every input exactly once: a document or a ledger line, in one group, none twice across shards; no shard
        # without the marker that vouches for it.
        found = audit(ws)
        assert found["pending"] == []
        assert Counter(found["documents"] + found["rejected"]) == Counter(sources)
        assert found["rejected"] == [f"s3://pdfs-in/corpus/{corpora.REJECTED_NAME}"]
        assert sorted(ws.list("dolma/")) == sorted(f"dolma/{g}.jsonl.gz" for g in done_groups(ws))
        pages = sum(len(d["attributes"]["pdf_page_numbers"]) for k in ws.list("dolma/") for d in
                    read_gzip_jsonl(ws.read_bytes(k)))  # fmt: skip
        assert pages == sum(DOCUMENTS.values()) + ODD_PAGES

        # Run monitoring failed the killed runs (their processes were gone), and Dagster's run retries started each
        # failed group again: every group's last run succeeded and is a retry of the failure before it.
        runs = [r for r in _runs(pg) if r["job"] == "ocr_job"]
        for run in killed:
            assert "is gone: killed, or its machine restarted" in _failure(pg, run["run_id"])
        for group in {r["partition"] for r in runs}:
            tries = [r for r in runs if r["partition"] == group]
            assert tries[-1]["status"] == "SUCCESS" and all(t["status"] == "FAILURE" for t in tries[:-1])
            assert [t["parent"] for t in tries[1:]] == [t["run_id"] for t in tries[:-1]]
        # Every run was tagged with its worker's host before it launched.
        assert {r["host"] for r in runs} == {socket.gethostname()}

        # No page that was in the memo when a fault struck was sent to the server again (the server's request times
        # are this process's monotonic clock, as the faults' are); the first fault struck with pages in the memo.
        assert faults[0].memo
        for f in faults:
            after = [page_of.get(r.page_key) for r in vlm.requests if r.started > f.at]
            resent = {page for page in after if page in f.memo}
            assert not resent, (f.fault, sorted(resent))
        answered = Counter(page_of[r.page_key] for r in vlm.requests if r.status == 200)
        print(f"pages answered more than once (in flight when a fault struck): {sum(n > 1 for n in answered.values())}")
        print(f"recovered {recovered_s:.0f}s after the last fault; test {time.time() - timeline.t0:.0f}s")
