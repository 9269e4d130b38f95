"""Every shipped check's outcome on the samples' group and on copies of it damaged once per check.

The record (`tests/integration/data/shipped_check_outcomes.json`) was written by the expression interpreter before
the checks ran on DuckDB; `tests/integration/test_check_outcomes.py` compares each run with it, so a change of engine
shows as a diff of pass/fail, counts or failing rows. Rewrite it (only for a deliberate change of outcomes) with
`python -m tests.support.check_outcomes --record`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ocr_pipeline.checks import registry
from ocr_pipeline.checks.loaders import PartitionData
from ocr_pipeline.checks.spec import load_dir, shipped_checks_dir
from ocr_pipeline.local_run import run_local
from ocr_pipeline.settings import PipelineSettings, samples_dir
from ocr_pipeline.stages.page_images import PAGES_SCHEMA
from ocr_pipeline.workspace.keys import dolma_key, filtered_key, ocr_key, pages_key
from ocr_pipeline.workspace.manifest_schemas import FILTERED_SCHEMA, OCR_SCHEMA
from ocr_pipeline.workspace.storage import LocalWorkspace
from ocr_pipeline.workspace.tables import gzip_jsonl, read_gzip_jsonl, read_rows, write_table

GROUP = "g000001"
RECORD = Path(__file__).resolve().parents[1] / "integration" / "data" / "shipped_check_outcomes.json"
# Metadata that names how a test is written, not what it found: the old and the new spelling differ here.
NOT_OUTCOMES = {"expression", "declared_in", "error", "sql", "failing_rows_table"}

Rows = list[dict[str, Any]]


def _docs(ws: LocalWorkspace, change: Callable[[Rows], None]) -> None:
    # In the order of their file names: the shard's own order follows the ids, digests of the checkout's paths.
    docs = sorted(
        read_gzip_jsonl(ws.read_bytes(dolma_key(GROUP))), key=lambda d: Path(d["metadata"]["Source-File"]).name
    )
    change(docs)
    ws.write_bytes(dolma_key(GROUP), gzip_jsonl(docs))


def _table(key: str, schema: Any) -> Callable[[LocalWorkspace, Callable[[Rows], None]], None]:
    def edit(ws: LocalWorkspace, change: Callable[[Rows], None]) -> None:
        rows = read_rows(ws, key)
        change(rows)
        write_table(ws, key, rows, schema)

    return edit


_filtered = _table(filtered_key(GROUP), FILTERED_SCHEMA)
_pages = _table(pages_key(GROUP), PAGES_SCHEMA)
_ocr = _table(ocr_key(GROUP), OCR_SCHEMA)


def _set(index: int, path: str, value: Any) -> Callable[[Rows], None]:
    """Set a dotted path of row `index` (a negative index counts from the end)."""

    def change(rows: Rows) -> None:
        target = rows[index]
        *parents, last = path.split("|")
        for part in parents:
            target = target[part]
        target[last] = value

    return change


def _quality(pages: int, **signals: Any) -> Callable[[Rows], None]:
    """The first `pages` rows' quality JSON with `signals` set."""

    def change(rows: Rows) -> None:
        for row in rows[:pages]:
            quality = json.loads(row["quality"] or "{}")
            row["quality"] = json.dumps({**quality, **signals})

    return change


def _copy_doc_field(path: str) -> Callable[[Rows], None]:
    def change(rows: Rows) -> None:
        *parents, last = path.split("|")
        source, target = rows[0], rows[1]
        for part in parents:
            source, target = source[part], target[part]
        target[last] = source[last]

    return change


def _error_pages(count: int) -> Callable[[Rows], None]:
    def change(rows: Rows) -> None:
        for row in rows[:count]:
            row.update(text=" \n", error="attempt 3: garbage reply", is_fallback=True)

    return change


# One damage per shipped check: each makes that check fail (others may fail with it).
DAMAGES: dict[str, Callable[[LocalWorkspace], None]] = {
    "duplicate_id": lambda ws: _docs(ws, _copy_doc_field("id")),
    "null_id": lambda ws: _docs(ws, _set(0, "id", None)),
    "duplicate_source_file": lambda ws: _docs(ws, _copy_doc_field("metadata|Source-File")),
    "null_source_file": lambda ws: _docs(ws, _set(-1, "metadata|Source-File", None)),
    "span_from_one": lambda ws: _docs(ws, lambda d: d[0]["attributes"]["pdf_page_numbers"][0].__setitem__(0, 1)),
    "empty_document": lambda ws: _docs(ws, _set(1, "text", " \n\t")),
    "lost_document": lambda ws: _docs(ws, lambda d: d.pop(2)),
    "foreign_document": lambda ws: _docs(ws, _set(0, "metadata|Source-File", "/elsewhere/x.pdf")),
    "fallback_in_shard": lambda ws: _docs(ws, _set(0, "metadata|total-fallback-pages", 1)),
    "duplicate_decision": lambda ws: _filtered(ws, lambda r: r.append(dict(r[0]))),
    "decision_without_source": lambda ws: _filtered(ws, _set(1, "source", None)),
    "decision_not_inventoried": lambda ws: _filtered(ws, _set(0, "source", "/elsewhere/y.pdf")),
    "dropped_without_reason": lambda ws: _filtered(ws, lambda r: r[0].update(keep=False, reason=None)),
    "page_not_rendered": lambda ws: _pages(ws, lambda r: r.pop(0)),
    "page_without_size": lambda ws: _pages(ws, _set(0, "width", 0)),
    "result_without_page": lambda ws: _ocr(ws, _set(0, "page_num", None)),
    "result_without_source": lambda ws: _ocr(ws, _set(1, "source", None)),
    "result_not_rendered": lambda ws: _ocr(ws, _set(0, "source", "/elsewhere/z.pdf")),
    "rotation_45": lambda ws: _ocr(ws, _set(0, "rotation_correction", 45)),
    "error_pages": lambda ws: _ocr(ws, _error_pages(4)),
    "one_fallback": lambda ws: _ocr(ws, _set(0, "is_fallback", True)),
    "one_degenerate": lambda ws: _ocr(ws, _quality(1, degenerate=True)),
    "looping_model": lambda ws: _ocr(ws, _quality(5, degenerate=True, truncated=True, finish_reason="length")),
    "wrong_model": lambda ws: _ocr(ws, _quality(6, text_layer_agreement=0.2)),
    "french": lambda ws: _ocr(ws, lambda r: [row.update(primary_language="fr") for row in r]),
    "duplicate_result": lambda ws: _ocr(ws, lambda r: r.append(dict(r[-1]))),
}


def samples_workspace(root: Path) -> Path:
    """Run the pipeline on the bundled samples (one group) into `root`/ws and return the workspace folder."""
    settings = PipelineSettings(workspace=str(root / "ws"), pdfs=[str(samples_dir())])
    summary = run_local(settings, show_progress=False)
    assert summary.ok, summary
    return root / "ws"


def _plain(value: Any, names: dict[str, str]) -> Any:
    """A metadata value as JSON keeps it: tuples as lists, floats rounded past their noise, and the machine's paths
    and the ids made from them (digests of the source path) as placeholders, so the record holds on any checkout."""
    if isinstance(value, float):
        return round(value, 9)
    if isinstance(value, str):
        for found, placeholder in names.items():
            value = value.replace(found, placeholder)
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v, names) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v, names) for k, v in value.items()}
    return value


def _placeholders(base: Path) -> dict[str, str]:
    """Machine-specific strings of the samples' run -> stable placeholders."""
    docs = read_gzip_jsonl(LocalWorkspace(base).read_bytes(dolma_key(GROUP)))
    ids = {d["id"]: f"<id of {Path(d['metadata']['Source-File']).name}>" for d in docs}
    return {**ids, str(samples_dir()): "<samples>"}


def _evaluated(tests: list[Any], data: PartitionData, together: bool) -> list[tuple[Any, Any]]:
    """Each test with its outcome: one by one, or `together` as a check op runs them (the interpreter had no such
    function: one by one there)."""
    if together and hasattr(registry, "evaluate_all"):
        return list(registry.evaluate_all(tests, data))
    return [(test, registry.evaluate(test, data)) for test in tests]


def outcomes(workspace: Path, names: dict[str, str], together: bool = True) -> dict[str, dict[str, Any]]:
    """`asset/check` -> passed and every metadata value but how the test is written, for every shipped check."""
    data = PartitionData(LocalWorkspace(workspace), GROUP)
    found = {}
    for asset, tests in sorted(load_dir(shipped_checks_dir()).tests.items()):
        for test, outcome in _evaluated(tests, data, together):
            kept = {k: _plain(v, names) for k, v in outcome.metadata.items() if k not in NOT_OUTCOMES}
            found[f"{asset}/{test.name}"] = {"passed": outcome.passed, **kept}
    close = getattr(data, "close", None)  # the interpreter's PartitionData had nothing to close
    if close is not None:
        close()
    return found


def all_outcomes(base: Path, together: bool = True) -> dict[str, dict[str, dict[str, Any]]]:
    """The outcomes on the samples' group as it is, then on one damaged copy per entry of DAMAGES."""
    names = _placeholders(base)
    result = {"samples": outcomes(base, names, together)}
    with tempfile.TemporaryDirectory() as tmp:
        for name, damage in DAMAGES.items():
            copy = Path(tmp) / name
            shutil.copytree(base, copy)
            damage(LocalWorkspace(copy))
            result[name] = outcomes(copy, names, together)
    return result


def main() -> None:
    """Print the outcomes as JSON, or (`--record`) write them to RECORD."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--record", action="store_true", help=f"write {RECORD.name} instead of printing")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        found = all_outcomes(samples_workspace(Path(tmp)))
    text = json.dumps(found, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if args.record:
        RECORD.parent.mkdir(parents=True, exist_ok=True)
        RECORD.write_text(text, encoding="utf-8")
    else:
        print(text)


if __name__ == "__main__":
    main()
