"""The page memo: good page results stored by content hash, page and settings, so reruns skip done pages."""

from __future__ import annotations

import json

from ocr_pipeline.records import PageResult
from ocr_pipeline.workspace.keys import memo_key
from ocr_pipeline.workspace.storage import Workspace

# The `extra.route` of a page `route auto` read from its text layer (routing.decide.TEXT_LAYER).
ROUTED_TO_TEXT_LAYER = "text_layer"


class PageMemo:
    """Reads and writes memoised page results for one settings key."""

    def __init__(self, workspace: Workspace, settings_key: str) -> None:
        self.workspace, self.settings_key = workspace, settings_key

    def get(self, source_hash: str, page_num: int, *, routed: bool = True) -> PageResult | None:
        """The stored result, or None when the page has no good result yet (or the entry is unreadable).

        `routed=False` (a run that sends every page to the model) refuses an entry `route auto` read from the page's
        text layer (`extra.route` "text_layer"): it is no model's answer, and the model must read the page.
        """
        key = memo_key(source_hash, self.settings_key, page_num)
        try:
            result = PageResult.from_dict(json.loads(self.workspace.read_bytes(key)))
        except (FileNotFoundError, ValueError, TypeError):
            return None
        if not routed and result.extra.get("route") == ROUTED_TO_TEXT_LAYER:
            return None
        return result

    def put(self, result: PageResult) -> bool:
        """Store a result if it is good (no fallback, no error); returns whether it was stored."""
        if result.is_fallback or result.error:
            return False
        key = memo_key(result.source_hash, self.settings_key, result.page_num)
        self.workspace.write_bytes(key, json.dumps(result.to_dict(), ensure_ascii=False).encode())
        return True
