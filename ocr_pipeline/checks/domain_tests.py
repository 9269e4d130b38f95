"""Domain tests too specific for the generic ones: Dolma schema, inventory accounting, rendered page counts."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ocr_pipeline.checks.generic_tests import Implementation, Outcome, rows_outcome, sample_row
from ocr_pipeline.checks.loaders import PartitionData
from ocr_pipeline.checks.paths import get_path
from ocr_pipeline.checks.spec import TestSpec
from ocr_pipeline.workspace.ledger import read_stage_rejections

TOP_FIELDS = {"id": str, "text": str, "source": str, "added": str, "created": str, "metadata": dict, "attributes": dict}
METADATA_FIELDS = {
    "Source-File": str,
    "pdf-total-pages": int,
    "total-input-tokens": int,
    "total-output-tokens": int,
    "total-fallback-pages": int,
}
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


def inventory_accounting(spec: TestSpec, data: PartitionData) -> Outcome:
    """Every inventoried input of the group is exactly one document or one ledger line, and nothing else is."""
    inputs = Counter(r["source"] for r in data.rows("pdf_inventory"))
    docs = Counter(get_path(d, "metadata.Source-File") for d in data.rows("dolma_shards"))
    ledger = Counter(r["source"] for r in data.rows("rejected"))
    failing: list[dict[str, Any]] = []
    for source in sorted(set(inputs) | set(docs) | set(ledger), key=str):
        where = docs[source] + ledger[source]
        if source not in inputs:
            problem = "not in the inventory"
        elif where == 0:
            problem = "neither a document nor a rejection"
        elif docs[source] and ledger[source]:
            problem = "both a document and a rejection"
        elif where > 1 or inputs[source] > 1:
            problem = "counted more than once"
        else:
            continue
        failing.append({"source": source, "problem": problem})
    outcome = rows_outcome(spec, sum(inputs.values()), failing, "are not accounted for exactly once")
    documents, rejections = sum(docs.values()), sum(ledger.values())
    outcome.metadata.update(inputs=sum(inputs.values()), documents=documents, rejections=rejections)
    outcome.summary += f"; inputs {sum(inputs.values())} = documents {documents} + rejections {rejections}"
    return outcome


def pages_match_page_count(spec: TestSpec, data: PartitionData) -> Outcome:
    """Each kept input has exactly pages 1..page_count rendered (inputs the render stage refused excepted).

    The page count is the filter stage's, read from the file itself: the inventory's is only an estimate for
    inputs the scan did not read (S3), so it is never compared with what was rendered.
    """
    counted = {r["source"]: int(r["page_count"] or 0) for r in data.rows("filtered_pdfs") if r["keep"]}
    refused = {r.source for r in read_stage_rejections(data.workspace, "render", data.group)}
    rendered: dict[str, list[int]] = {}
    for row in data.rows("page_images"):
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


DOMAIN_TESTS: dict[str, Implementation] = {
    "dolma_schema": dolma_schema,
    "inventory_accounting": inventory_accounting,
    "pages_match_page_count": pages_match_page_count,
}
