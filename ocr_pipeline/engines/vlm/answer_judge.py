"""The VLM engine's judgement of one page's answers: which are degenerate, and when to stop asking.

A loop, a duplicated paragraph, a cut-off answer, more text than the page's print holds, another language than
the page's own words: each parses fine but is no transcription, so it costs an attempt like a bad parse and the
next request samples at olmOCR's next temperature (quality.degenerate has the verdicts and their thresholds).
Print that is the other side of the sheet showing through, mirrored, holds no text of the page: where an answer
fits the page's print only thanks to such lines, the CPU engine's recogniser reads them to tell
(quality.mirrored_print).
"""

from __future__ import annotations

import asyncio
import io

import numpy as np
from PIL import Image

from ocr_pipeline.engines.cpu import CpuEngine
from ocr_pipeline.quality.degenerate import INVENTED_TEXT, INVENTED_TEXT_ATTEMPTS, degenerate_reason
from ocr_pipeline.quality.mirror_params import MirrorParams
from ocr_pipeline.quality.mirrored_print import MirroredPrint, Recognise
from ocr_pipeline.quality.print_ink import LETTER_SLACK, answer_letters, invented_text, page_ink
from ocr_pipeline.records import PageInput

# One recogniser for the mirrored-print check of every page of this process. Its models load (2-3 s, in the
# judging thread) when the first page needs them, and never in a process whose answers all fit their print plainly.
# One session: lines are read a few at a time off the event loop, and each more session holds about 50 MB.
_READER = CpuEngine(threads=1, detect_rotation=False)


class AnswerJudge:
    """Judges the answers to one page, measuring its image once where that is needed."""

    def __init__(
        self, page: PageInput, recognise: Recognise | None = None, mirror_params: MirrorParams | None = None
    ) -> None:
        self.page = page
        # Only a layer the probe trusts is the page's own words, fit to judge the answer's language and repeats by.
        self.reference = page.text_layer if page.text_layer_trusted else ""
        # A page without a text layer is measured once, when an answer first holds enough letters to be judged:
        # its print bounds the text an answer may hold (the stage measures it again for the stored signals).
        self._measure = not page.text_layer.strip()
        self.capacity: int | None = None
        self.reasons: list[str] = []  # one per degenerate answer, as `extra["retried_for"]` lists them
        self._recognise = recognise or _READER._recognise
        self._mirror_params = mirror_params or MirrorParams()
        self.mirrored: MirroredPrint | None = None  # the page's lines as read so far, once an answer needed them

    async def reason(self, text: str, finish: str | None) -> str | None:
        """Why this answer is degenerate (recorded), or None; CPU-heavy checks run off the event loop."""
        # Letters are counted only on a page without a text layer: no other page's answer is held to its print.
        letters = answer_letters(text) if self._measure or self.capacity is not None else 0
        if self._measure and letters > LETTER_SLACK:
            self._measure = False
            self.capacity = await asyncio.to_thread(_print_capacity, self.page.png or b"")
        # The loop and cut checks are cheap enough for the event loop; the language check runs langdetect, a few
        # milliseconds per page, so a page with a trusted layer is judged in a thread.
        if self.reference:
            why = await asyncio.to_thread(degenerate_reason, text, finish, self.reference, self.capacity)
        else:
            why = degenerate_reason(text, finish, "", self.capacity)
        # An answer that fits the print passes unless mirrored lines gave it the room: only then are lines read.
        if why is None and self.capacity is not None and letters > LETTER_SLACK:
            capacity = await asyncio.to_thread(self._unmirrored_capacity, letters)
            if (invented := invented_text(text, capacity)) is not None:
                left_out = len(self.mirrored.mirrored) if self.mirrored is not None else 0
                why = f"{INVENTED_TEXT}: {invented} ({left_out} mirrored lines left out)"
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

    def _unmirrored_capacity(self, letters: int) -> int | None:
        """The page's capacity with the lines read as mirrored left out, reading as many as `letters` needs."""
        try:
            if self.mirrored is None:
                with Image.open(io.BytesIO(self.page.png or b"")) as image:
                    grey = np.asarray(image.convert("L"), dtype=np.uint8)
                self.mirrored = MirroredPrint(grey, self._recognise, self._mirror_params)
            return self.mirrored.capacity_for(letters)
        except Exception:  # noqa: BLE001 - the check is a second opinion: without it the plain capacity stands
            return self.capacity


def _print_capacity(png: bytes) -> int | None:
    """Letters the page image's print can hold; None for an image PIL cannot read (the server judged it already)."""
    try:
        return page_ink(png).capacity
    except Exception:  # noqa: BLE001 - an unreadable image is no reason to fail a page the model answered
        return None
