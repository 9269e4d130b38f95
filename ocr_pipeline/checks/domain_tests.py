"""Domain tests too specific for the generic ones: Dolma schema, inventory accounting (in SQL), rendered page counts,
and the partition gates on the OCR manifest's per-page quality signals (in Python: their rules are Python's)."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from typing import Any

from ocr_pipeline.checks.declared import TestSpec
from ocr_pipeline.checks.generic_tests import counted, failing_rows
from ocr_pipeline.checks.loaders import PartitionData
from ocr_pipeline.checks.outcome import SAMPLE_ROWS, Implementation, Outcome, rows_outcome, sample_row
from ocr_pipeline.checks.rate_tests import gate_metadata, gate_of
from ocr_pipeline.checks.sql_tables import KEY_COLUMNS
from ocr_pipeline.quality.degenerate import failed_answer
from ocr_pipeline.workspace.ledger import read_stage_rejections

TOP_FIELDS = {"id": str, "text": str, "source": str, "added": str, "created": str, "metadata": dict, "attributes": dict}
METADATA_FIELDS = {
    "Source-File": str,
    "pdf-total-pages": int,
    "total-input-tokens": int,
    "total-output-tokens": int,
    "total-fallback-pages": int,
}
# A median over fewer trusted pages than this says too little about the model to block a partition on.
DEFAULT_MIN_TRUSTED_PAGES = 3
PER_PAGE_ATTRIBUTES = ["primary_language", "is_rotation_valid", "rotation_correction", "is_table", "is_diagram"]


def _typed(value: Any, kind: type) -> bool:
    # bool is an int in Python; a JSON true where a count belongs is still wrong.
    return isinstance(value, kind) and not (kind is int and isinstance(value, bool))


def dolma_problems(doc: dict[str, Any]) -> list[str]:
    """Everything wrong with one Dolma document against the contract; [] when valid."""
    problems = [
        f"{name} is not a {kind.__name__}" for name, kind in TOP_FIELDS.items() if not _typed(doc.get(name), kind)
    ]
    if problems:
        return problems
    if not doc["id"]:
        problems.append("id is empty")
    meta, attrs = doc["metadata"], doc["attributes"]
    problems += [
        f"metadata.{k} is not a {t.__name__}" for k, t in METADATA_FIELDS.items() if not _typed(meta.get(k), t)
    ]
    spans = attrs.get("pdf_page_numbers")
    if not isinstance(spans, list) or not spans:
        return [*problems, "attributes.pdf_page_numbers is missing or empty"]
    if not all(isinstance(s, list) and len(s) == 3 and all(_typed(x, int) for x in s) for s in spans):
        return [*problems, "pdf_page_numbers entries must be [start, end, page] integers"]
    if spans[0][0] != 0:
        problems.append(f"first span starts at {spans[0][0]}, not 0")
    if spans[-1][1] != len(doc["text"]):
        problems.append(f"last span ends at {spans[-1][1]}, text has {len(doc['text'])} characters")
    for (_, end, _), (start, _, _) in zip(spans, spans[1:], strict=False):
        if end != start:
            problems.append(f"spans not contiguous: one ends at {end}, the next starts at {start}")
            break
    if any(s[0] > s[1] for s in spans):
        problems.append("a span ends before it starts")
    pages = [s[2] for s in spans]
    if min(pages) < 1:
        problems.append(f"page numbers must be 1-based, found {min(pages)}")
    if pages != sorted(set(pages)):
        problems.append("page numbers are not strictly increasing")
    for name in PER_PAGE_ATTRIBUTES:
        values = attrs.get(name)
        if not isinstance(values, list) or len(values) != len(spans):
            problems.append(f"attributes.{name} must list one value per span ({len(spans)})")
    return problems


def dolma_schema(spec: TestSpec, data: PartitionData) -> Outcome:
    """Every document has the contract's fields, and spans that are contiguous, cover the text, 1-based."""
    docs = data.rows(spec.asset)
    failing = []
    for doc in docs:
        problems = dolma_problems(doc)
        if problems:
            failing.append(sample_row(spec.asset, doc, problems=problems[:3]))
    return rows_outcome(spec, len(docs), failing, "break the Dolma document contract")


# How often each source of the group appears among its inputs, documents and ledger lines, and what is wrong with
# that. One aggregate, no join: a null source is one group, as it is one key of a Python Counter. Sources are listed
# as Python sorts their text (a null as 'None').
ACCOUNTING_SQL = """
WITH appearances AS (
    SELECT source, 1 AS inputs, 0 AS documents, 0 AS rejections FROM pdf_inventory
    UNION ALL SELECT metadata."Source-File", 0, 1, 0 FROM dolma_shards
    UNION ALL SELECT source, 0, 0, 1 FROM rejected),
counted AS (
    SELECT source, sum(inputs) AS inputs, sum(documents) AS documents, sum(rejections) AS rejections
    FROM appearances GROUP BY source)
SELECT source, CASE
    WHEN inputs = 0 THEN 'not in the inventory'
    WHEN documents + rejections = 0 THEN 'neither a document nor a rejection'
    WHEN documents > 0 AND rejections > 0 THEN 'both a document and a rejection'
    WHEN documents + rejections > 1 OR inputs > 1 THEN 'counted more than once'
  END AS problem
FROM counted WHERE problem IS NOT NULL ORDER BY coalesce(CAST(source AS VARCHAR), 'None')
"""


def finding_query(spec: TestSpec) -> str | None:
    """The one-row query the inventory accounting starts from (scan_plan.py runs it with its asset's others): how
    many sources are not accounted for; None for the other domain tests."""
    return counted(ACCOUNTING_SQL) if spec.type == "inventory_accounting" else None


def inventory_accounting(spec: TestSpec, data: PartitionData) -> Outcome:
    """Every inventoried input of the group is exactly one document or one ledger line, and nothing else is."""
    count, sample = failing_rows(spec, data, ACCOUNTING_SQL)
    inputs, documents, rejections = (data.table(t).num_rows for t in ("pdf_inventory", "dolma_shards", "rejected"))
    outcome = rows_outcome(spec, inputs, sample, "are not accounted for exactly once", count=count)
    outcome.metadata.update(inputs=inputs, documents=documents, rejections=rejections)
    outcome.summary += f"; inputs {inputs} = documents {documents} + rejections {rejections}"
    return outcome


def pages_match_page_count(spec: TestSpec, data: PartitionData) -> Outcome:
    """Each kept input has exactly pages 1..page_count rendered (inputs the render stage refused excepted).

    The page count is the filter stage's, read from the file itself: the inventory's is only an estimate for
    inputs the scan did not read (S3), so it is never compared with what was rendered.
    """
    counted = {r["source"]: int(r["page_count"] or 0) for r in data.rows("filtered_pdfs") if r["keep"]}
    refused = {r.source for r in read_stage_rejections(data.workspace, "render", data.group)}
    rendered: dict[str, list[int]] = {}
    for row in data.rows("page_images", ["source", "page_num"]):
        rendered.setdefault(row["source"], []).append(int(row["page_num"]))
    inputs = [r for r in data.rows("filtered_pdfs") if r["keep"] and r["source"] not in refused]
    failing = []
    for row in inputs:
        pages = sorted(rendered.get(row["source"], []))
        expected = list(range(1, counted[row["source"]] + 1))
        if pages != expected:
            detail = f"{len(pages)} pages rendered, page_count {len(expected)}"
            failing.append(sample_row("filtered_pdfs", row, problem=detail))
    outcome = rows_outcome(spec, len(inputs), failing, "do not have one rendered page per counted page")
    outcome.metadata["rendered_pages"] = sum(len(v) for v in rendered.values())
    outcome.metadata["counted_pages"] = sum(counted[r["source"]] for r in inputs)
    return outcome


def page_quality(row: dict[str, Any]) -> dict[str, Any] | None:
    """A manifest row's quality signals as a dict; None where it has none (older manifests, unreadable JSON)."""
    value = row.get("quality")
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    return value if isinstance(value, dict) else None


def _quality_rows(spec: TestSpec, data: PartitionData) -> list[dict[str, Any]]:
    """The asset's rows as the quality gates read them: the columns a sample shows, and the quality signals."""
    return data.rows(spec.asset, [*{path.split(".")[0]: None for path in KEY_COLUMNS.get(spec.asset, [])}, "quality"])


def _qualities(spec: TestSpec, data: PartitionData) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """Each row with its parsed quality signals, parsed once for the three gates that read them."""
    return data.memo(f"quality:{spec.asset}", lambda: [(r, page_quality(r)) for r in _quality_rows(spec, data)])


def _failures(spec: TestSpec, data: PartitionData) -> tuple[list[Any], list[tuple[dict[str, Any], list[str]]]]:
    """The pages with quality signals, and those that are model failures with what each shows: the same for every
    gate on them (the shipped checks warn at one share and block at another), so found once."""
    judged = [(r, q) for r, q in _qualities(spec, data) if q is not None]
    return judged, [(r, kinds) for r, q in judged if (kinds := failed_answer(q))]


def degenerate_page_share(spec: TestSpec, data: PartitionData) -> Outcome:
    """The pages with quality signals that are model failures (quality.degenerate.failed_answer: a repetition loop,
    a paragraph written twice, cut at the token limit, another language than the trusted layer, invented text, text
    on a blank page) stay within `max` (with `false_alarm`: within what chance allows a model failing `max` of
    pages, failure_gate); pages without signals (manifests older than the `quality` column) count as neither."""
    rows = _quality_rows(spec, data)
    judged, failures = data.memo(f"failures:{spec.asset}", lambda: _failures(spec, data))
    hits = [r for r, _ in failures]
    share = len(hits) / len(judged) if judged else 0.0
    gate = gate_of(spec)
    summary = f"{len(hits)} of {len(judged)} pages degenerate ({share:.2%}; {gate.explain(len(judged))})"
    if len(judged) < len(rows):
        summary += f"; {len(rows) - len(judged)} pages without quality signals not judged"
    metadata = {
        "pages": len(rows),
        "pages_with_signals": len(judged),
        "degenerate_pages": len(hits),
        # Which failure each page shows (a page may show two): what to look at first.
        "by_failure": dict(Counter(kind for _, kinds in failures for kind in kinds).most_common()),
        "rate": round(share, 6),
        **gate_metadata(gate, len(judged)),
        "sample": [sample_row(spec.asset, r, failure=kinds) for r, kinds in failures[:SAMPLE_ROWS]],
    }
    return Outcome(gate.passes(len(hits), len(judged)), summary, metadata)


def median_text_layer_agreement(spec: TestSpec, data: PartitionData) -> Outcome:
    """The median agreement with the text layer over the pages that have a trusted one is at least `min`.

    A right model agrees closely with born-digital pages; a wrong model or prompt agrees with none of them, so
    the median drops for the whole partition. Pages without a trusted layer (null agreement) or without signals
    are ignored; with fewer than `min_pages` (default 3) trusted pages the test passes and says so.
    """
    rows = _quality_rows(spec, data)
    scored = []
    for row, quality in _qualities(spec, data):
        value = quality.get("text_layer_agreement") if quality else None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            scored.append((float(value), row))
    limit, needed = spec.params["min"], int(spec.params.get("min_pages", DEFAULT_MIN_TRUSTED_PAGES))
    metadata: dict[str, Any] = {"pages": len(rows), "trusted_pages": len(scored), "min": limit, "min_pages": needed}
    if len(scored) < needed:
        # Scans and text-free pages have no layer to compare with: nothing to judge, not a failure.
        summary = f"{len(scored)} of {len(rows)} pages have a trusted text layer (fewer than {needed}): not judged"
        return Outcome(True, summary, {**metadata, "median": None})
    median = statistics.median(v for v, _ in scored)
    lowest = sorted(scored, key=lambda pair: pair[0])[:SAMPLE_ROWS]
    summary = (
        f"median text-layer agreement {median:.3f} over {len(scored)} trusted pages (at least {limit:.3f} expected)"
    )
    metadata.update(
        median=round(median, 4),
        lowest=min(v for v, _ in scored),
        sample=[sample_row(spec.asset, r, agreement=v) for v, r in lowest],
    )
    return Outcome(median >= limit, summary, metadata)


DOMAIN_TESTS: dict[str, Implementation] = {
    "dolma_schema": dolma_schema,
    "inventory_accounting": inventory_accounting,
    "pages_match_page_count": pages_match_page_count,
    "degenerate_page_share": degenerate_page_share,
    "median_text_layer_agreement": median_text_layer_agreement,
}
