"""A static HTML page showing each rendered page image beside the text the pipeline read from it."""

from __future__ import annotations

import base64
import html
import io
from typing import Any

from PIL import Image

from ocr_pipeline.workspace.keys import dolma_key, pages_key, rejected_key
from ocr_pipeline.workspace.storage import Workspace
from ocr_pipeline.workspace.tables import iter_batches, read_gzip_jsonl, read_jsonl

# Thumbnails keep a viewer of hundreds of pages to a few megabytes.
THUMBNAIL_PX = 700
STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;background:#f6f6f6}
h2{margin-top:2em;font-size:1.1em;word-break:break-all} .meta{color:#555;font-size:.85em}
.page{display:flex;gap:1em;background:#fff;margin:.6em 0;padding:.6em;border-radius:6px}
.page img{width:45%;max-width:700px;border:1px solid #ddd;align-self:flex-start}
.page pre{white-space:pre-wrap;font-size:.85em;flex:1;margin:0}
.rejected{background:#fff3f3;padding:.6em;border-radius:6px}
"""


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


def render_group_html(workspace: Workspace, group: str, max_pages: int = 300) -> str:
    """The viewer for one work group: documents page by page, then the group's rejections with reasons."""
    docs: list[dict[str, Any]] = read_gzip_jsonl(workspace.read_bytes(dolma_key(group)))
    sources = {d["metadata"]["Source-File"] for d in docs}
    images = _page_images(workspace, group, sources, max_pages)
    parts = [f"<!doctype html><meta charset='utf-8'><title>{html.escape(group)}</title><style>{STYLE}</style>"]
    parts.append(f"<h1>Work group {html.escape(group)}: {len(docs)} documents</h1>")
    for doc in docs:
        meta, source = doc["metadata"], doc["metadata"]["Source-File"]
        parts.append(f"<h2>{html.escape(source)}</h2>")
        parts.append(
            f"<div class='meta'>{meta['pdf-total-pages']} pages · engine {html.escape(meta['engine'])} · "
            f"fallback pages {meta['total-fallback-pages']} · tokens in/out {meta['total-input-tokens']}/"
            f"{meta['total-output-tokens']}</div>"
        )
        for start, end, page in doc["attributes"]["pdf_page_numbers"]:
            image = images.get((source, page))
            img = f"<img alt='page {page}' src='data:image/jpeg;base64,{image}'>" if image else ""
            text = html.escape(doc["text"][start:end])
            parts.append(f"<div class='page'>{img}<pre><b>page {page}</b>\n{text}</pre></div>")
    ledger = read_jsonl(workspace, rejected_key(group))
    if ledger:
        parts.append(f"<h2>Rejected ({len(ledger)})</h2><div class='rejected'><ul>")
        for line in ledger:
            detail = f" ({html.escape(line.get('detail', ''))})" if line.get("detail") else ""
            parts.append(
                f"<li>{html.escape(line['source'])}: <b>{html.escape(line['reason'])}</b> "
                f"at {html.escape(line['stage'])}{detail}</li>"
            )
        parts.append("</ul></div>")
    return "\n".join(parts)
