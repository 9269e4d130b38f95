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

from dataclasses import dataclass

from ocr_pipeline.quality.repeats import NGRAM, RepeatRun, Tokens, layer_copies

_LETTER = set("abcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True)
class DuplicateParams:
    """How long a stretch written twice must be to count as a duplicated paragraph, by the evidence there is.

    - `min_tokens`: on a scan (no trusted layer) or where the layer lacks the words, a stretch that ends the answer
      must hold two sentences. Honest tails on the real pages repeat at most 22 tokens of an earlier line in answers
      and ground truth (63 in a text layer whose foot repeats its head); olmOCR's own answer to one real old scan
      ends with a 29-token sentence written twice.
    - `min_tokens_with_layer` and `min_words_with_layer`: where the page's trusted text layer holds the stretch
      fewer times than the answer, the layer is the evidence, wherever the copy sits and from one sentence up
      (10 tokens, 8 different words with letters). Every honest answer beside its trusted layer on the real pages
      (benchmarks/quality/bench_quality_guards.py) repeats at most 11 tokens the layer holds once, each a row of table
      numbers with 2 words.
    - `min_distinct`: a run of one number or one markup word ("0 0 0 ...", "html ffffff ...") is a table's filler,
      not a paragraph.
    - `tail_slack`: tokens the answer may hold after its duplicated tail and still end with it (a page number, a
      signature).
    """

    min_tokens: int = 25
    min_tokens_with_layer: int = 10
    min_words_with_layer: int = 8
    min_distinct: int = 8
    tail_slack: int = 8

    def __post_init__(self) -> None:
        if self.min_tokens_with_layer < NGRAM or self.min_tokens < NGRAM:
            raise ValueError(f"a repeated stretch holds at least {NGRAM} tokens (repeats.NGRAM)")
        if min(self.min_words_with_layer, self.min_distinct, self.tail_slack) < 0:
            raise ValueError("word counts and the tail's slack cannot be negative")


DUPLICATE_PARAMS = DuplicateParams()


def duplicated_paragraph(
    found: Tokens, text_layer: str = "", params: DuplicateParams = DUPLICATE_PARAMS
) -> RepeatRun | None:
    """The longest stretch the model wrote twice (see the module's evidence), or None.

    `found` is the answer's tokens (`repeats.tokens`); `text_layer` the page's trusted text layer, "" without one.
    """
    shortest = min(params.min_tokens, params.min_tokens_with_layer) if text_layer else params.min_tokens
    candidates = [r for r in found.runs if r.length >= shortest]
    for run in sorted(candidates, key=lambda r: -r.length):
        words = found.words[run.start : run.end]
        if len(set(words)) < params.min_distinct:
            continue
        held = layer_copies(found, run, text_layer)
        # A long stretch counts whatever it holds (a block of table rows written twice); a short one must be prose.
        if held == "fewer" and (run.length >= params.min_tokens or _sentence(words, params)):
            return run
        if run.length < params.min_tokens:
            continue
        if held == "absent" and len(found.words) - run.end <= params.tail_slack:
            return run
    return None


def _sentence(words: list[str], params: DuplicateParams) -> bool:
    """Whether a stretch the layer holds fewer times is at least a sentence: enough tokens and different words."""
    lettered = {w for w in words if _LETTER.intersection(w)}
    return len(words) >= params.min_tokens_with_layer and len(lettered) >= params.min_words_with_layer
