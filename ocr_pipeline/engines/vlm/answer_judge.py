"""The VLM engine's judgement of one page's answers: which are degenerate, and when to stop asking.

A loop, a duplicated paragraph, a cut-off answer, more text than the page's print holds, another language than
the page's own words: each parses fine but is no transcription, so it costs an attempt like a bad parse and the
next request samples at olmOCR's next temperature (quality.degenerate has the verdicts and their thresholds).
"""

from __future__ import annotations

import asyncio

from ocr_pipeline.quality.degenerate import INVENTED_TEXT, INVENTED_TEXT_ATTEMPTS, degenerate_reason
from ocr_pipeline.quality.print_ink import LETTER_SLACK, answer_letters, page_ink
from ocr_pipeline.records import PageInput


class AnswerJudge:
    """Judges the answers to one page, measuring its image once where that is needed."""

    def __init__(self, page: PageInput) -> None:
        self.page = page
        # Only a layer the probe trusts is the page's own words, fit to judge the answer's language and repeats by.
        self.reference = page.text_layer if page.text_layer_trusted else ""
        # A page without a text layer is measured once, when an answer first holds enough letters to be judged:
        # its print bounds the text an answer may hold (the stage measures it again for the stored signals).
        self._measure = not page.text_layer.strip()
        self.capacity: int | None = None
        self.reasons: list[str] = []  # one per degenerate answer, as `extra["retried_for"]` lists them

    async def reason(self, text: str, finish: str | None) -> str | None:
        """Why this answer is degenerate (recorded), or None; CPU-heavy checks run off the event loop."""
        if self._measure and answer_letters(text) > LETTER_SLACK:
            self._measure = False
            self.capacity = await asyncio.to_thread(_print_capacity, self.page.png or b"")
        # The loop and cut checks are cheap enough for the event loop; the language check runs langdetect, a few
        # milliseconds per page, so a page with a trusted layer is judged in a thread.
        if self.reference:
            why = await asyncio.to_thread(degenerate_reason, text, finish, self.reference, self.capacity)
        else:
            why = degenerate_reason(text, finish, "", self.capacity)
        if why is not None:
            self.reasons.append(why)
        return why

    @property
    def withhold(self) -> bool:
        """Whether to stop asking and keep no answer: invented text, INVENTED_TEXT_ATTEMPTS times.

        The page holds (next to) no print, so its honest text is none: not an engine error, and nothing of a text
        layer is lost (it has none). The verdict stays in the page's signals.
        """
        return sum(r.startswith(INVENTED_TEXT) for r in self.reasons) >= INVENTED_TEXT_ATTEMPTS


def _print_capacity(png: bytes) -> int | None:
    """Letters the page image's print can hold; None for an image PIL cannot read (the server judged it already)."""
    try:
        return page_ink(png).capacity
    except Exception:  # noqa: BLE001 - an unreadable image is no reason to fail a page the model answered
        return None
