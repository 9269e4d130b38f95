"""What a failing model answers: the texts of the fake server's failure modes (a loop, a cut answer, another
language, text invented for a blank page, text unrelated to the page, a line or a block of lines looping at the
end of a good page, a paragraph written twice), each as a real model's failure reads."""

from __future__ import annotations

import re

# One sentence sampled over and over until the token limit: Qwen2.5-VL's usual loop on a dense page.
LOOP_SENTENCE = "The committee met again and adjourned without a decision on the matter. "
# A translation of an ordinary English page: what a model that drifts into German or Russian answers.
GERMAN = (
    "Der Ausschuss trat am Dienstag zusammen, um den Haushalt zu prüfen. Die Mitglieder stellten Fragen zu den "
    "Kosten des neuen Bibliotheksflügels, und der Vorsitzende versprach eine schriftliche Antwort vor der nächsten "
    "Sitzung. Der Schatzmeister berichtete, dass die Rücklage im Laufe des Jahres um vier Prozent gewachsen sei, "
    "vor allem durch Zinsen auf die Einlagen bei der Kreissparkasse."
)
RUSSIAN = (
    "Комитет собрался во вторник, чтобы рассмотреть бюджет. Члены комитета задали вопросы о стоимости нового "
    "крыла библиотеки, и председатель пообещал дать письменный ответ до следующего заседания. Казначей сообщил, "
    "что резервный фонд за год вырос на четыре процента, в основном за счёт процентов по вкладам в районном банке."
)
FOREIGN = {"de": GERMAN, "ru": RUSSIAN}
# A page the model imagines where there is almost nothing: a plausible letter, not a page of the input.
INVENTED = (
    "Dear Sir, I write to confirm receipt of your letter of the fourth instant and to say that the shipment of "
    "timber will arrive at the harbour before the end of the month, weather permitting. Yours faithfully, J. Smith."
)
# A page of fluent prose a model writes for a near-blank scan (about 250 words): olmOCR's tracker shows a blank
# scan whose faint bleed-through came back as a page of "The Art of War".
INVENTED_PAGE = (
    "Chapter Four. Of the Management of the Estate. The steward rose before dawn and walked the length of the "
    "orchard, counting the trees that had come through the frost and marking with chalk those that would have to "
    "be felled before the spring. He had kept the accounts of the household for eleven years, and in all that "
    "time he had never known a winter so hard or a harvest so poor. The tenants on the lower farms had paid half "
    "their rents in grain and the rest in promises, and the mill by the river had stood idle since November for "
    "want of water to turn the wheel. When the master returned from the city he would expect a full report, and "
    "the steward meant to give him one, however little it might please him. He made a list of what could be sold "
    "without shame: two horses, the small carriage, the timber from the north wood, the silver candlesticks that "
    "nobody had lit since the mistress died. Against it he set what must be bought before April: seed corn, nails, "
    "a new roof for the granary, wages for the men who would mend the weir. The sums did not meet, and no amount "
    "of careful arithmetic would make them meet. In the evening he sat by the kitchen fire and wrote the letter "
    "twice, tearing up the first because it sounded too much like an apology and the second because it sounded "
    "too little like one, and at last he sealed the third and gave it to the boy to carry to the coach at dawn."
)
# What a wrong model or prompt behind the server answers: fluent English that has nothing to do with any page.
UNRELATED = (
    "Quarterly revenue rose four percent on strong demand for industrial pumps, while the board announced a new "
    "dividend policy and the retirement of its longtime chief financial officer."
)
# Replies of a model cut at max_tokens: the server's completion tokens for such an answer.
TOKEN_LIMIT = 8000


def loop(text: str) -> str:
    """The page's first line, then one sentence repeated until the token limit (about 4 characters a token)."""
    head = text.strip().split("\n", 1)[0]
    return head + "\n\n" + LOOP_SENTENCE * (TOKEN_LIMIT * 4 // len(LOOP_SENTENCE))


def truncated(text: str) -> str:
    """The page's text cut inside a word about two thirds of the way in, as the token limit cuts it."""
    cut = len(text) * 2 // 3
    while cut < len(text) - 1 and not (text[cut - 1].isalpha() and text[cut].isalpha()):
        cut += 1  # stop between two letters of one word
    return text[:cut]


def _lines(text: str) -> list[str]:
    """The text's lines, or its sentences where it is one line (a text layer with its whitespace collapsed)."""
    lines = [line.strip() for line in text.strip().split("\n") if line.strip()]
    return lines if len(lines) > 1 else [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def line_loop(text: str, copies: int = 60) -> str:
    """The page's text, then its last line written again `copies` times: a loop the model itself stopped."""
    return text.rstrip() + "\n" + "\n".join([_lines(text)[-1]] * copies)


def block_loop(text: str, lines: int = 3, copies: int = 15) -> str:
    """The page's text, then its last `lines` lines written again `copies` times."""
    block = "\n".join(_lines(text)[-lines:])
    return text.rstrip() + "\n" + "\n".join([block] * copies)


def repeated_paragraph(text: str) -> str:
    """The page's text with one of its paragraphs written a second time at the end (MinerU's VLM does it).

    The longest paragraph where the text has several; else its second half, sentence by sentence.
    """
    paragraphs = [p.strip() for p in text.split("\n\n") if p.strip()]
    if len(paragraphs) > 1:
        again = max(paragraphs, key=len)
    else:
        sentences = _lines(text)
        again = " ".join(sentences[len(sentences) // 2 :])
    return text.rstrip() + "\n\n" + again


def failure_answer(kind: str, text: str, language: str) -> tuple[str, str | None] | None:
    """(answer, primary_language) of a failure mode for a page whose right answer is `text`; None for other kinds."""
    if kind == "loop":
        return loop(text), "en"
    if kind == "truncated":
        return truncated(text), "en"
    if kind == "language":
        return FOREIGN[language], language
    if kind == "blank_text":
        return INVENTED, "en"
    if kind == "unrelated":
        return UNRELATED, "en"
    if kind == "invented":
        return INVENTED_PAGE, "en"
    if kind in _GOOD_PAGE_FAILURES:
        return _GOOD_PAGE_FAILURES[kind](text), "en"
    return None


# Failures that keep the page's own text and add to it.
_GOOD_PAGE_FAILURES = {"line_loop": line_loop, "block_loop": block_loop, "repeated_paragraph": repeated_paragraph}
