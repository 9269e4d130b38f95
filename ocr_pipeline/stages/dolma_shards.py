"""The shard stage: Dolma documents per group, Markdown mirrors, and the rejection ledger."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ocr_pipeline.records import PageResult, Rejection
from ocr_pipeline.stages.dolma_documents import build_document, document_markdown
from ocr_pipeline.stages.page_images import kept_inputs
from ocr_pipeline.workspace.commit import begin_commit, finish_commit, publish
from ocr_pipeline.workspace.keys import dolma_key, markdown_key, ocr_key, partial_key, rejected_key
from ocr_pipeline.workspace.ledger import read_all_rejections, write_stage_rejections
from ocr_pipeline.workspace.storage import Workspace
from ocr_pipeline.workspace.tables import gzip_jsonl, jsonl_bytes, read_rows


@dataclass
class ShardResult:
    """What one group's shard holds."""

    documents: int = 0
    pages: int = 0
    characters: int = 0
    fallback_pages: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    inputs: int = 0
    # The whole ledger (every stage's refusals), and the first document's source and text, for the UI.
    ledger: list[Rejection] = field(default_factory=list)
    first_source: str = ""
    first_text: str = ""


def _page(row: dict[str, Any]) -> PageResult:
    data = dict(row)
    data["source_hash"] = data.pop("sha256")
    data["extra"] = json.loads(data.get("extra") or "{}")
    return PageResult.from_dict(data)


# Failed pages a ledger line names, each with its last error: enough to see the cause without the manifest.
NAMED_FAILED_PAGES = 5


def fallback_detail(pages: list[PageResult]) -> str:
    """A rejected document's ledger detail: how many pages failed every attempt, and which, with their errors."""
    failed = sorted((p for p in pages if p.is_fallback), key=lambda p: p.page_num)
    named = "; ".join(f"page {p.page_num}: {_last_error(p)}" for p in failed[:NAMED_FAILED_PAGES])
    more = f"; and {len(failed) - NAMED_FAILED_PAGES} more" if len(failed) > NAMED_FAILED_PAGES else ""
    return f"{len(failed)} of {len(pages)} pages fell back to the text layer ({named}{more})"


def _last_error(page: PageResult) -> str:
    """The page's last error without the attempt number ("degenerate answer: a loop"), cut short."""
    error = (page.error or "failed").split(": ", 1)
    text = error[1] if len(error) == 2 and error[0].startswith("attempt ") else ": ".join(error)
    return text[:160]


def build_group_shard(workspace: Workspace, group: str, *, max_page_error_rate: float, markdown: bool) -> ShardResult:
    """Assemble the group's documents, publish shard, Markdown and ledger, then mark the group done (last)."""
    result = ShardResult()
    # Not done from here until every output below is rewritten: a crash in between leaves the group pending.
    begin_commit(workspace, group)
    pages_by_source: dict[str, list[PageResult]] = defaultdict(list)
    quality_by_source: dict[str, dict[int, dict[str, Any] | None]] = defaultdict(dict)
    for row in read_rows(workspace, ocr_key(group)):
        pages_by_source[row["source"]].append(_page(row))
        # Manifests written before the quality column have none: their documents get no quality attributes.
        quality_by_source[row["source"]][row["page_num"]] = json.loads(row.get("quality") or "null")
    # Earlier stages' refusals stand; this stage's own are recomputed so a fixed rerun can turn them into documents.
    already = {r.source for r in read_all_rejections(workspace, group) if r.stage != "dolma"}
    documents, partial, rejections = [], [], []
    for row in kept_inputs(workspace, group):
        source = row["source"]
        if source in already:
            continue
        pages = pages_by_source.get(source, [])
        expected = int(row["page_count"] or 0)
        if len(pages) < expected:
            rejections.append(Rejection(source, "missing_pages", "dolma", f"{len(pages)} of {expected} pages read"))
            continue
        quality = quality_by_source.get(source)
        doc = build_document(source, pages, added=row["added"], total_pages=expected, quality=quality)
        fallback = doc["metadata"]["total-fallback-pages"]
        if pages and fallback / len(pages) > max_page_error_rate:
            rejections.append(Rejection(source, "too_many_fallback_pages", "dolma", fallback_detail(pages)))
            partial.append(doc)
            continue
        if not doc["text"].strip():
            rejections.append(Rejection(source, "no_text", "dolma", f"{len(pages)} pages, no text found"))
            continue
        documents.append((row, doc))
    write_stage_rejections(workspace, "dolma", group, rejections)
    documents.sort(key=lambda pair: pair[1]["id"])
    outputs = [dolma_key(group), rejected_key(group)]
    publish(workspace, dolma_key(group), gzip_jsonl(doc for _, doc in documents), "commit.shard")
    if partial:
        publish(workspace, partial_key(group), gzip_jsonl(partial), "commit.partial")
        outputs.append(partial_key(group))
    elif workspace.exists(partial_key(group)):
        workspace.delete(partial_key(group))
    if markdown:
        for row, doc in documents:
            key = markdown_key(row["rel_path"])
            publish(workspace, key, document_markdown(doc).encode("utf-8"), "commit.markdown")
            outputs.append(key)
    ledger = read_all_rejections(workspace, group)
    publish(workspace, rejected_key(group), jsonl_bytes(r.to_json() for r in ledger), "commit.ledger")
    for _, doc in documents:
        meta = doc["metadata"]
        result.documents += 1
        result.pages += len(doc["attributes"]["pdf_page_numbers"])
        result.characters += len(doc["text"])
        result.fallback_pages += meta["total-fallback-pages"]
        result.input_tokens += meta["total-input-tokens"]
        result.output_tokens += meta["total-output-tokens"]
    for rejection in ledger:
        result.rejected[rejection.reason] = result.rejected.get(rejection.reason, 0) + 1
    result.inputs = result.documents + len(ledger)
    result.ledger = ledger
    if documents:
        result.first_source, result.first_text = documents[0][0]["source"], documents[0][1]["text"]
    finish_commit(workspace, group, outputs, {"documents": result.documents, "rejected": len(ledger)})
    return result
