"""Whether a text layer holds words of a language, not just letters: the share of its words that are function words.

A font whose ToUnicode map is shifted ("7KH FRPPLWWHH" for "THE COMMITTEE") or scrambled gives letters in plausible
proportions, and langdetect names a language for them with full confidence; what it cannot give is the short words
every sentence of a language is built with. In running text of the languages below, the words listed here are a
quarter to a half of all words; in a shifted or scrambled layer they are next to none. The lists are the most
frequent function words of each language (articles, prepositions, conjunctions, pronouns, auxiliaries), written
down here rather than learned, so a page in a language without a list goes to the model, never to the router.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LISTS = {
    "en": "the of and to in a is that for it as with was on be by at this are from or an which not but have his "
    "had they were been their has its we you he she will can would there all one",
    "de": "der die und in den von zu das mit sich des auf für ist im dem nicht ein eine als auch es an werden aus er "
    "hat dass sie nach wird bei einer um am sind noch wie einem über einen so zum war",
    "fr": "de la le et les des en du un une est que pour dans qui par sur au pas plus ce il sont avec se ne ou à "
    "son sa ses leur aux été cette nous vous elle",
    "es": "de la que el en y a los del se las por un para con no una su al es lo como más o pero sus le ha me si "
    "sin sobre este ya entre cuando todo esta ser son dos también",
    "it": "di e il la che in a per un è del non una le si con i da al dei della alla sono come più anche ma ha "
    "nel gli lo questo delle nella o se",
    "pt": "de a o que e do da em um para é com não uma os no se na por mais as dos como mas foi ao ele das tem à "
    "seu sua ou ser quando muito há nos já está também",
    "nl": "de van een het en in is dat op te zijn voor met die niet aan er om ook als bij of door naar dan tot "
    "maar wordt uit nog worden over deze",
    "sv": "och i att det som en på är av för med till den inte har om de ett var jag men så han sig från vi kan "
    "eller vid också efter",
    "da": "og i at det en den til er som på de med han af for ikke der var mig sig men et har om vi min havde "
    "fra kan eller også efter",
    "no": "og i det som en på er til av at for med har den ikke de om et var men så seg fra kan eller også etter",
    "fi": "ja on ei se että oli hän mutta kun niin ovat ole myös tai kuin sen vain jo ne joka mitä nyt",
    "pl": "i w na z do nie się że to jest o jak po a od za przez dla jego co są lub ale być jako może tym jej "
    "oraz tak już przy",
    "cs": "a se na v je že s z do o k i to by jako pro ale jeho které jsou také od po za při jejich byl není",
    "sk": "a sa na v je že s z do o k i to by ako pre ale jeho ktoré sú tiež od po za pri ich bol nie",
    "hu": "a az és hogy nem is egy meg de van volt el ez csak már mint még ki be fel vagy sem mert",
    "ro": "de și în a la cu o pe că se din nu un care sunt este mai pentru ce ca sau prin au fost al lui",
    "hr": "i u je na se da za od su s o ne a koji iz kao što do bi ili su te će bio",
    "sl": "in je v na se da za so z ki pa od tudi iz bi ali kot to po ne",
    "tr": "ve bir bu da de için ile olarak olan çok daha gibi ne en ama var kadar sonra her",
    "id": "yang dan di dengan untuk dari dalam ini itu pada adalah tidak akan ke oleh juga atau karena bahwa ada "
    "sebagai dapat",
    "ca": "de la i el que a en els les del per un una és amb no al es com més",
    "ru": "и в не на я что с он как а по это к но из у за то от все так же для бы о его она",
    "uk": "і в на не що з до як у та це за від але по він я його для так",
    "bg": "и на в да се за не от с е че по това са като които но той",
    "el": "και το η της του να ο σε με που τα των για από την τον στο είναι",
    "lt": "ir į kad yra su iš ne jo tai bet kaip per o už nuo",
    "lv": "un ir ar par no uz ka kas to tas bet kā arī lai",
    "et": "ja on ei et see oli ka kui nii aga mis oma ta",
}
FUNCTION_WORDS = {lang: frozenset(words.split()) for lang, words in _LISTS.items()}
_WORD = re.compile(r"[^\W\d_]{2,30}")


@dataclass(frozen=True)
class WordEvidence:
    """How much of a text is words of its language: its words, and the share that are that language's function
    words (`language` None: no language with a list could be named)."""

    words: int
    language: str | None
    share: float


def function_word_share(text: str, language: str | None) -> WordEvidence:
    """The share of `text`'s words that are function words of `language` (an ISO 639-1 code, as langdetect names it)."""
    words = [w.lower() for w in _WORD.findall(text)]
    listed = FUNCTION_WORDS.get(_base(language)) if language else None
    if not words or listed is None:
        return WordEvidence(len(words), None, 0.0)
    return WordEvidence(len(words), _base(language), sum(w in listed for w in words) / len(words))


def _base(language: str | None) -> str:
    """langdetect's variants to one list: Norwegian Bokmål/Nynorsk to "no", Serbian and Bosnian Latin to "hr"."""
    aliases = {"nb": "no", "nn": "no", "sr": "hr", "bs": "hr", "ms": "id"}
    code = (language or "").split("-")[0].lower()
    return aliases.get(code, code)
