"""Duplicated paragraphs: a paragraph (or a block of table rows) the model wrote a second time on one page.

Vision-language models sometimes write a paragraph again, usually at the end of the page (MinerU's tracker shows
it for its VLM; olmOCR's own answers to two of the real old scans hold one). It is neither a loop (one extra
copy) nor a large share of the page, so the loop verdict misses it. Two kinds of evidence say the second copy is
the model's and not the page's:

- the page's trusted text layer holds those words fewer times than the answer does (once where the answer has
  them twice): on born-digital pages, wherever the copy sits;
- without such a layer (scans), or where the layer lacks the words, the copy is the answer's tail: honest pages
  repeat a heading or a label, but an answer that ends by repeating an earlier paragraph is the failure's shape.

A form's repeated label or a table's repeated row that the layer also repeats is the page's own, and no verdict.
"""

from __future__ import annotations

from ocr_pipeline.quality.repeats import RepeatRun, Tokens, layer_copies

# Tokens a repeated stretch needs to count as a paragraph: two sentences. Honest tails on the real pages repeat
# at most 22 tokens of an earlier line in answers and ground truth (63 in a text layer whose foot repeats its
# head); olmOCR's own answer to one real old scan ends with a 29-token sentence written twice.
DUPLICATE_MIN_TOKENS = 25
# Different words a paragraph holds: a run of one number or one markup word ("0 0 0 ...", "html ffffff ...") is
# a table's filler, not a paragraph.
DUPLICATE_MIN_DISTINCT = 8
# Tokens the answer may hold after its duplicated tail and still end with it: a page number, a signature.
TAIL_SLACK = 8


def duplicated_paragraph(found: Tokens, text_layer: str = "") -> RepeatRun | None:
    """The longest stretch the model wrote twice (see the module's evidence), or None.

    `found` is the answer's tokens (`repeats.tokens`); `text_layer` the page's trusted text layer, "" without one.
    """
    candidates = [r for r in found.runs if r.length >= DUPLICATE_MIN_TOKENS]
    for run in sorted(candidates, key=lambda r: -r.length):
        if len(set(found.words[run.start : run.end])) < DUPLICATE_MIN_DISTINCT:
            continue
        held = layer_copies(found, run, text_layer)
        if held == "fewer":
            return run
        if held == "absent" and len(found.words) - run.end <= TAIL_SLACK:
            return run
    return None
