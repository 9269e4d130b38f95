"""What a failing model answers: the texts of the fake server's failure modes (a loop, a cut answer, another
language, text invented for a blank page, text unrelated to the page), each as a real model's failure reads."""

from __future__ import annotations

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
    return None
