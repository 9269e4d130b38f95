"""A static HTML page showing each rendered page image beside the text the pipeline read from it."""

from __future__ import annotations

import base64
import html
import io
from typing import Any

from PIL import Image

from ocr_pipeline.workspace.keys import dolma_key, ocr_key, pages_key, rejected_key
from ocr_pipeline.workspace.storage import Workspace
from ocr_pipeline.workspace.tables import iter_batches, read_gzip_jsonl, read_jsonl, read_rows

# Thumbnails keep a viewer of hundreds of pages to a few megabytes.
THUMBNAIL_PX = 700
PAGE_FACTS = ["source", "page_num", "engine", "model", "is_fallback", "primary_language", "rotation_correction"]
STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;background:#f6f6f6}
h2{margin-top:2em;font-size:1.1em;word-break:break-all} .meta{color:#555;font-size:.85em}
.page{display:flex;gap:1em;background:#fff;margin:.6em 0;padding:.6em;border-radius:6px}
.page img{width:45%;max-width:700px;border:1px solid #ddd;align-self:flex-start}
.text{flex:1;font-size:.9em} .text p{white-space:pre-wrap;margin:0 0 .7em 0}
.facts{color:#555;font-size:.8em;margin-bottom:.5em} .fallback{color:#a40;font-weight:bold}
.rotated{color:#06c;font-weight:bold} .rejected{background:#fff3f3;padding:.6em;border-radius:6px}
"""


def plural(count: int, noun: str) -> str:
    """`1 page`, `2 pages`."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _thumbnail(png: bytes) -> str:
    with Image.open(io.BytesIO(png)) as img:
        img.thumbnail((THUMBNAIL_PX, THUMBNAIL_PX))
        out = io.BytesIO()
        img.convert("RGB").save(out, format="JPEG", quality=70)
    return base64.b64encode(out.getvalue()).decode()


def _page_images(workspace: Workspace, group: str, wanted: set[str], limit: int) -> dict[tuple[str, int], str]:
    images: dict[tuple[str, int], str] = {}
    for row in iter_batches(workspace, pages_key(group)):
        if len(images) >= limit:
            break
        if row["source"] in wanted and row["png"]:
            images[(row["source"], row["page_num"])] = _thumbnail(row["png"])
    return images


def _page_facts(workspace: Workspace, group: str) -> dict[tuple[str, int], dict[str, Any]]:
    """Engine, model, fallback flag, language and rotation of every page, from the OCR manifest."""
    if not workspace.exists(ocr_key(group)):
        return {}
    return {(r["source"], r["page_num"]): r for r in read_rows(workspace, ocr_key(group), PAGE_FACTS)}


def _facts_line(page: int, facts: dict[str, Any] | None) -> str:
    if facts is None:
        return f"<div class='facts'><b>page {page}</b></div>"
    shown = [f"<b>page {page}</b>"]
    if facts["rotation_correction"]:
        shown.append(f"<span class='rotated'>read rotated {facts['rotation_correction']}°</span>")
    shown.append(f"engine {html.escape(facts['engine'] or '?')} ({html.escape(facts['model'] or '?')})")
    shown.append(f"language {html.escape(facts['primary_language'] or 'unknown')}")
    if facts["is_fallback"]:
        shown.append("<span class='fallback'>fallback: text layer, the engine failed</span>")
    return f"<div class='facts'>{' · '.join(shown)}</div>"


def _paragraphs(text: str) -> str:
    """The page text with its paragraphs (blank-line separated) kept as paragraphs."""
    blocks = [b for b in text.strip("\n").split("\n\n") if b.strip()]
    return "".join(f"<p>{html.escape(block)}</p>" for block in blocks) or "<p><i>(no text)</i></p>"


def _rejections(ledger: list[dict[str, Any]]) -> list[str]:
    if not ledger:
        return ["<h2>Rejected</h2><p>no rejections: every input of this group is a document above.</p>"]
    parts = [f"<h2>Rejected ({plural(len(ledger), 'input')})</h2><div class='rejected'><ul>"]
    for line in ledger:
        detail = f" ({html.escape(line.get('detail', ''))})" if line.get("detail") else ""
        parts.append(
            f"<li>{html.escape(line['source'])}: <b>{html.escape(line['reason'])}</b> "
            f"at {html.escape(line['stage'])}{detail}</li>"
        )
    parts.append("</ul></div>")
    return parts


def render_group_html(workspace: Workspace, group: str, max_pages: int = 300) -> str:
    """The viewer for one work group: documents page by page, then the group's rejections with reasons."""
    docs: list[dict[str, Any]] = read_gzip_jsonl(workspace.read_bytes(dolma_key(group)))
    sources = {d["metadata"]["Source-File"] for d in docs}
    images = _page_images(workspace, group, sources, max_pages)
    facts = _page_facts(workspace, group)
    parts = [f"<!doctype html><meta charset='utf-8'><title>{html.escape(group)}</title><style>{STYLE}</style>"]
    parts.append(f"<h1>Work group {html.escape(group)}: {plural(len(docs), 'document')}</h1>")
    for doc in docs:
        meta, source = doc["metadata"], doc["metadata"]["Source-File"]
        parts.append(f"<h2>{html.escape(source)}</h2>")
        parts.append(
            f"<div class='meta'>{plural(meta['pdf-total-pages'], 'page')} · engine {html.escape(meta['engine'])} · "
            f"model {html.escape(str(meta.get('model', '')))} · {plural(meta['total-fallback-pages'], 'fallback page')}"
            f" · tokens in/out {meta['total-input-tokens']}/{meta['total-output-tokens']}</div>"
        )
        for start, end, page in doc["attributes"]["pdf_page_numbers"]:
            image = images.get((source, page))
            img = f"<img alt='page {page}' src='data:image/jpeg;base64,{image}'>" if image else ""
            body = _facts_line(page, facts.get((source, page))) + _paragraphs(doc["text"][start:end])
            parts.append(f"<div class='page'>{img}<div class='text'>{body}</div></div>")
    parts.extend(_rejections(read_jsonl(workspace, rejected_key(group))))
    return "\n".join(parts)
