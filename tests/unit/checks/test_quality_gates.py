"""The partition gates on the OCR manifest's quality column, on hand-made manifest rows."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from ocr_pipeline.checks.generic_tests import Outcome
from ocr_pipeline.checks.loaders import PartitionData
from ocr_pipeline.checks.registry import evaluate
from ocr_pipeline.checks.spec import ChecksConfigError, load_dir, load_file
from ocr_pipeline.workspace.storage import LocalWorkspace

REPO = Path(__file__).resolve().parents[3]


class HandMade(PartitionData):
    """A partition whose OCR manifest is the given rows (no files read)."""

    def __init__(self, tmp_path: Path, rows: list[dict[str, Any]]) -> None:
        super().__init__(LocalWorkspace(tmp_path), "g000001")
        self.manifest = rows

    def _load(self, dataset: str) -> list[dict[str, Any]]:
        assert dataset == "vlm_ocr_outputs"
        return self.manifest


def page(n: int, quality: dict[str, Any] | None | str = None, *, as_json: bool = True) -> dict[str, Any]:
    """A manifest row; `quality` JSON-encoded as the manifest stores it (None: an old manifest's null)."""
    value = json.dumps(quality) if as_json and isinstance(quality, dict) else quality
    return {"source": "/in/a.pdf", "page_num": n, "quality": value}


def run(tmp_path: Path, rows: list[dict[str, Any]], tests: str) -> dict[str, Outcome]:
    """Evaluate YAML tests of vlm_ocr_outputs on hand-made rows; outcomes by test name."""
    path = tmp_path / "t.yml"
    path.write_text("assets:\n  vlm_ocr_outputs:\n    tests:\n" + textwrap.indent(textwrap.dedent(tests), "      "))
    data = HandMade(tmp_path, rows)
    return {t.name: evaluate(t, data) for t in load_file(path).tests["vlm_ocr_outputs"]}


GATES = """
    - degenerate_page_share: {name: warn, max: 0.01, severity: warn}
    - degenerate_page_share: {name: block, max: 0.05, blocking: true}
    - median_text_layer_agreement: {name: agree, min: 0.6, blocking: true}
"""


def test_degenerate_share_warns_above_1_and_blocks_above_5_percent(tmp_path: Path) -> None:
    clean = [page(n, {"degenerate": False, "text_layer_agreement": None}) for n in range(1, 98)]
    loops = [page(n, {"degenerate": True, "text_layer_agreement": None}) for n in range(98, 101)]
    got = run(tmp_path, clean + loops, GATES)  # 3 of 100: above the warning, under the block
    assert not got["warn"].passed and got["block"].passed
    assert got["warn"].metadata["degenerate_pages"] == 3 and got["warn"].metadata["rate"] == 0.03
    assert [r["page_num"] for r in got["warn"].metadata["sample"]] == [98, 99, 100]
    assert "3 of 100 pages degenerate" in got["warn"].summary

    more = [page(n, {"degenerate": True}) for n in range(101, 105)]
    got = run(tmp_path, clean + loops + more, GATES)  # 7 of 104
    assert not got["warn"].passed and not got["block"].passed

    got = run(tmp_path, clean, GATES)
    assert got["warn"].passed and got["block"].passed and got["warn"].metadata["degenerate_pages"] == 0


def test_every_model_failure_counts_and_an_open_table_alone_does_not(tmp_path: Path) -> None:
    clean = [page(n, {"degenerate": False, "truncated": False}) for n in range(1, 96)]
    failures = [
        page(96, {"degenerate": True, "truncated": True, "finish_reason": "length"}),  # a loop to the token limit
        page(97, {"truncated": True, "finish_reason": "length"}),
        page(98, {"wrong_language": True}),
        page(99, {"blank_text": True}),
        # An honest page can end inside a table (it runs on to the next page): flagged, not a model failure.
        page(100, {"truncated": True, "open_table": True, "finish_reason": "stop"}),
    ]
    got = run(tmp_path, clean + failures, GATES)
    meta = got["warn"].metadata
    assert meta["degenerate_pages"] == 4 and [r["page_num"] for r in meta["sample"]] == [96, 97, 98, 99]
    assert meta["by_failure"] == {"degenerate": 1, "truncated": 2, "wrong_language": 1, "blank_text": 1}
    assert not got["warn"].passed and got["block"].passed


def test_pages_without_signals_are_not_judged(tmp_path: Path) -> None:
    # An old manifest: no quality column (the key is missing) or a null; an unreadable value counts as none too.
    old = [{"source": "/in/a.pdf", "page_num": 1}, page(2, None), page(3, "{not json")]
    got = run(tmp_path, old, GATES)
    assert all(o.passed for o in got.values())
    assert (
        got["block"].metadata["pages_with_signals"] == 0 and "3 pages without quality signals" in got["block"].summary
    )
    assert got["agree"].metadata["trusted_pages"] == 0 and "not judged" in got["agree"].summary

    # Mixed: the one loop among two pages with signals is half of them, whatever the old pages were.
    mixed = [*old, page(4, {"degenerate": True}), page(5, {"degenerate": False}, as_json=False)]
    got = run(tmp_path, mixed, GATES)
    assert not got["block"].passed and got["block"].metadata["rate"] == 0.5


def test_median_agreement_blocks_a_wrong_model(tmp_path: Path) -> None:
    right = [page(n, {"degenerate": False, "text_layer_agreement": a}) for n, a in enumerate([0.99, 0.95, 0.7], 1)]
    scans = [page(n, {"degenerate": False, "text_layer_agreement": None}) for n in range(4, 10)]
    got = run(tmp_path, right + scans, GATES)
    assert got["agree"].passed and got["agree"].metadata["median"] == 0.95
    assert got["agree"].metadata["trusted_pages"] == 3 and got["agree"].metadata["pages"] == 9

    wrong = [page(n, {"text_layer_agreement": a}) for n, a in enumerate([0.37, 0.40, 0.5, 0.99], 1)]
    got = run(tmp_path, wrong + scans, GATES)
    outcome = got["agree"]
    assert not outcome.passed and outcome.metadata["median"] == 0.45 and outcome.metadata["lowest"] == 0.37
    assert outcome.metadata["sample"][0] == {"source": "/in/a.pdf", "page_num": 1, "agreement": 0.37}
    assert "median text-layer agreement 0.450 over 4 trusted pages" in outcome.summary


def test_too_few_trusted_pages_pass_with_a_note(tmp_path: Path) -> None:
    two = [page(n, {"text_layer_agreement": 0.1}) for n in (1, 2)]
    got = run(tmp_path, two, GATES)
    assert got["agree"].passed and got["agree"].metadata["median"] is None
    assert "2 of 2 pages have a trusted text layer (fewer than 3): not judged" in got["agree"].summary
    got = run(tmp_path, two, "- median_text_layer_agreement: {name: agree, min: 0.6, min_pages: 2}\n")
    assert not got["agree"].passed
    assert run(tmp_path, [], GATES)["agree"].passed and run(tmp_path, [], GATES)["block"].passed


def test_gate_parameters_are_validated(tmp_path: Path) -> None:
    for body, message in [
        ("- median_text_layer_agreement: {min_pages: 3}\n", "missing parameter"),
        ("- median_text_layer_agreement: {min: 0.6, min_pages: 2.5}\n", "`min_pages` must be a whole number"),
        ("- degenerate_page_share: {max: high}\n", "`max` must be a number"),
        ("- degenerate_page_share: {max: 0.1, max_failing: 2}\n", "unknown parameter"),
    ]:
        with pytest.raises(ChecksConfigError, match=message):
            run(tmp_path, [], body)


def test_shipped_gates_and_their_thresholds() -> None:
    tests = {t.name: t for t in load_dir(REPO / "dbt_like_checks").tests["vlm_ocr_outputs"]}
    warn, block = tests["degenerate_share_warn"], tests["degenerate_share_blocking"]
    agree = tests["text_layer_agreement"]
    assert (warn.severity, warn.blocking, warn.params["max"]) == ("warn", False, 0.01)
    # Judged against chance (checks/failure_gate.py, benchmarks/quality/bench_gate_sizes.py): a hard page never blocks.
    assert (block.severity, block.blocking, block.params["max"], block.params["false_alarm"]) == (
        "error",
        True,
        0.03,
        0.001,
    )
    errors = tests["page_error_rate"]
    assert (errors.blocking, errors.params["max"], errors.params["false_alarm"]) == (True, 0.03, 0.001)
    # Blocking as shipped: a wrong model or prompt stops the partition before dolma_shards (test_checks_gating).
    assert (agree.type, agree.severity, agree.blocking, agree.params["min"], agree.params["min_pages"]) == (
        "median_text_layer_agreement",
        "error",
        True,
        0.6,
        3,
    )
