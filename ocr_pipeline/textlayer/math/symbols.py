"""What a glyph is in a formula: math fonts told by name, TeX's extension-font codes, and the LaTeX for a symbol.

Typesetting systems set formulas in fonts made for math: TeX's CMMI/CMSY/CMEX, the AMS's MSAM/MSBM, Euler, the
Latin Modern and txfonts/pxfonts/kpfonts/MathDesign math fonts, OpenType math fonts (Cambria Math, STIX Math, ...),
publishers' MathematicalPi. Their names say so; a formula's digits, brackets and `=` come from the text font.
"""

from __future__ import annotations

import ctypes
import re
import unicodedata
from functools import lru_cache

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

# Fonts made for math, by name (the six-letter subset prefix removed). MathDesign's text fonts carry "MathDesign" in
# their names too: only its math parts (MathItalic, Symbol, Extension) count. Generic "Symbol" fonts set Greek and
# operators in Word documents' prose ("5 μm", "p < 0.05") and are not on this list: they count as symbols only.
_MATH_FONT = re.compile(
    r"^(cmmi|cmbsy|cmsy|cmex|msam|msbm|eu[frsx][mb]|euex|rsfs|esint|stmary|lasy|wasy|r?tx(mi|sy|ex|bmi|bsy)|r?px(mi|sy|ex)"
    r"|txmia|ntx(mi|sy|ex)|zxlr)"
    r"|lmmath|math(?!design)|-mathitalic|mathdesign.*-(symbol|extension)|mathdesignsymbol|--m-|mathpi|stix.*math"
    r"|euclid(math|symbol)",
    re.IGNORECASE,
)
# Fonts in TeX's math extension encoding (OMX): big operators and delimiters. Without a ToUnicode map pdfium reports
# the character code, so the display sum comes out "X"; the table below reads the code.
_EXTENSION_FONT = re.compile(r"cmex|lmmathextension|^r?[tp]xex|^ntxex|euex|--m-ex|-extension-|mathext", re.IGNORECASE)
_OMX = (
    "()[]\u230a\u230b\u2308\u2309{}\u27e8\u27e9|\u2016/\\"  # 0x00-0x0f: big delimiters
    "()()[]\u230a\u230b\u2308\u2309{}\u27e8\u27e9/\\"  # 0x10-0x1f: Big, bigg
    "()[]\u230a\u230b\u2308\u2309{}\u27e8\u27e9/\\/\\"  # 0x20-0x2f: Bigg, Big / \
    "()[][][]{}{}{}{|"  # 0x30-0x3f: pieces of extensible delimiters
    "()()\u27e8\u27e9\u2a06\u2a06\u222e\u222e\u2a00\u2a00\u2a01\u2a01\u2a02\u2a02"  # 0x40-0x4f
    "\u2211\u220f\u222b\u22c3\u22c2\u2a04\u22c0\u22c1\u2211\u220f\u222b\u22c3\u22c2\u2a04\u22c0\u22c1"  # 0x50-0x5f
    "\u2210\u2210\u02c6\u02c6\u02c6\u02dc\u02dc\u02dc[]\u230a\u230b\u2308\u2309{}"  # 0x60-0x6f
    "\u221a\u221a\u221a\u221a\u221a||\u2016\u2191\u2193{}{}\u21d1\u21d3"  # 0x70-0x7f
)
# TeX's math symbol fonts (OMS): codes 0x00-0x1f, then the digits' codes 0x30-0x39. U+21A6 stands for the bar of
# \mapsto (drawn before an arrow).
_SYMBOL_FONT = re.compile(r"cmsy|cmbsy|lmmathsymbols|^r?[tp]xsy|^ntxsy|--m-sy|-symbol-", re.IGNORECASE)
_OMS = (
    "\u2212\u22c5\u00d7\u2217\u00f7\u22c4\u00b1\u2213\u2295\u2296\u2297\u2298\u2299\u25ef\u2218\u2219"
    "\u224d\u2261\u2286\u2287\u2264\u2265\u2aaf\u2ab0\u223c\u2248\u2282\u2283\u226a\u226b\u227a\u227b"
    "\u2032\u221e\u2208\u220b\u25b3\u25bd\u0338\u21a6\u2200\u2203"
)
_PIECES = dict(zip([chr(c) for c in range(0x239B, 0x23AE)], "((()))[[[]]]{{{{}}}", strict=True))
_EXTRA_SYMBOLS = re.compile(r"txsyc|pxsyc|--m-syc", re.IGNORECASE)
# The LaTeX KaTeX renders for a symbol pdfium reports (letters, digits and plain ASCII stand for themselves): pairs
# of a character and its command, then the characters that look alike (minus signs, dots, micro and ohm) by code.
_GREEK = (
    "alpha beta gamma delta varepsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho varsigma sigma tau "
    "upsilon varphi chi psi omega"
)
_TABLE = r"""
Γ \Gamma  Δ \Delta  Θ \Theta  Λ \Lambda  Ξ \Xi  Π \Pi  Σ \Sigma  Υ \Upsilon  Φ \Phi  Ψ \Psi  Ω \Omega
ϕ \phi  ϵ \epsilon  ϑ \vartheta  ϱ \varrho  ϖ \varpi  × \times  ± \pm  ∓ \mp  ÷ \div  ∗ \ast  ≤ \leq
≥ \geq  ≠ \neq  ≡ \equiv  ∼ \sim  ≈ \approx  ≃ \simeq  ≅ \cong  ∝ \propto  ≪ \ll  ≫ \gg  ≺ \prec
≻ \succ  ⪯ \preceq  ⪰ \succeq  ⊂ \subset  ⊃ \supset  ⊆ \subseteq  ⊇ \supseteq  ∈ \in  ∉ \notin  ∋ \ni
∪ \cup  ∩ \cap  ∧ \wedge  ∨ \vee  ¬ \neg  ∀ \forall  ∃ \exists  ∅ \emptyset  ∞ \infty  ∂ \partial
∇ \nabla  → \to  ← \leftarrow  ↔ \leftrightarrow  ⇒ \Rightarrow  ⇐ \Leftarrow  ⇔ \Leftrightarrow
↦ \mapsto  ↑ \uparrow  ↓ \downarrow  ⟨ \langle  ⟩ \rangle  ‖ \|  ∥ \parallel  ⊥ \perp  ⊤ \top  ℓ \ell
ℏ \hbar  ℜ \Re  ℑ \Im  ℵ \aleph  ∑ \sum  ∏ \prod  ∐ \coprod  ∫ \int  ∮ \oint  ⋃ \bigcup  ⋂ \bigcap
⋀ \bigwedge  ⋁ \bigvee  ⨁ \bigoplus  ⨂ \bigotimes  ⨀ \bigodot  ⨄ \biguplus  ⨆ \bigsqcup  ⊕ \oplus
⊗ \otimes  ⊙ \odot  … \ldots  ⋯ \cdots  ⋮ \vdots  ⋱ \ddots  ⌊ \lfloor  ⌋ \rfloor  ⌈ \lceil  ⌉ \rceil
⊢ \vdash  ⊨ \models  † \dagger  ‡ \ddagger  ⋆ \star  ∖ \setminus  ∠ \angle  △ \triangle  □ \square
⇀ \rightharpoonup  ↽ \leftharpoondown  ⇌ \rightleftharpoons  ⇋ \leftrightharpoons  ∷ ::  ⊖ \ominus
⊘ \oslash  ∬ \iint  ∭ \iiint  〈 \langle  〉 \rangle  ∴ \therefore  ∵ \because  ⋄ \diamond  ◯ \bigcirc
≍ \asymp  ⇑ \Uparrow  ⇓ \Downarrow
↗ \nearrow  ↘ \searrow  ↖ \nwarrow  ↙ \swarrow  ▽ \triangledown  ⊓ \sqcap  ⊔ \sqcup  ⊎ \uplus  ≀ \wr
≢ \not\equiv  ≰ \nleq  ≱ \ngeq  ⊄ \not\subset  ⟶ \longrightarrow  ⟵ \longleftarrow  ⟹ \Longrightarrow
⟺ \Longleftrightarrow  ↪ \hookrightarrow  ↩ \hookleftarrow  ° ^{\circ}
"""
COMMANDS: dict[str, str] = {chr(0x3B1 + k): "\\" + name for k, name in enumerate(_GREEK.split()) if name != "omicron"}
COMMANDS.update(zip(_TABLE.split()[::2], _TABLE.split()[1::2], strict=True))
COMMANDS.update(
    {
        "\u2126": "\\Omega", "\u2206": "\\Delta", "\u00b5": "\\mu", "\u2212": "-", "\u2013": "-", "\u2014": "-",
        "\u2010": "-", "\u2011": "-", "\u00b7": "\\cdot", "\u22c5": "\\cdot", "\u2218": "\\circ", "\u25e6": "\\circ",
        "\u2022": "\\bullet", "\u2219": "\\bullet", "\u2032": "'", "\u2033": "''", "\u2019": "'", "\u2223": "\\mid",
        "\u2236": ":", "\u2329": "\\langle", "\u232a": "\\rangle", "\u03f0": "\\varkappa", "{": "\\{", "}": "\\}",
        "#": "\\#", "%": "\\%", "&": "\\&", "\\": "\\backslash", "$": "\\$",
        "~": "\\sim", "_": "\\_",
    }
)  # fmt: skip
# Styles of Unicode's mathematical alphanumerics, by the words of their names (italic is math's default).
_STYLES = (
    ("DOUBLE-STRUCK", "\\mathbb"), ("FRAKTUR", "\\mathfrak"), ("BLACK-LETTER", "\\mathfrak"), ("SCRIPT", "\\mathcal"),
    ("SANS-SERIF", "\\mathsf"), ("MONOSPACE", "\\mathtt"), ("BOLD", "\\mathbf"),
)  # fmt: skip
# Combining accents (glyphs.py joins a spacing accent to the letter under it) and the LaTeX that draws them.
ACCENTS = {
    "\u0302": "\\hat", "\u0304": "\\bar", "\u0303": "\\tilde", "\u0307": "\\dot", "\u0308": "\\ddot",
    "\u030c": "\\check", "\u0306": "\\breve", "\u0301": "\\acute", "\u0300": "\\grave", "\u20d7": "\\vec",
    "\u0305": "\\bar",
}  # fmt: skip
# Symbols that join two operands (a relation or a binary operator): a formula goes on across them.
OPERATORS = set("=<>+-*/|:\u2212\u00d7\u00b7\u22c5\u00b1\u2213\u00f7\u2217\u2218\u2264\u2265\u2260\u2261\u223c")
OPERATORS |= set("\u2248\u2243\u2245\u221d\u226a\u226b\u2282\u2283\u2286\u2287\u2208\u2209\u220b\u222a\u2229")
OPERATORS |= set("\u2227\u2228\u2192\u2190\u2194\u21d2\u21d0\u21d4\u21a6\u2295\u2297\u2299\u22a2\u22a8\u2216(")
RELATIONS = set("=<>\u2264\u2265\u2260\u2261\u223c\u2248\u2243\u2245\u221d\u2282\u2283\u2286\u2287\u2208\u2192\u21d2")
_UNNAMED = re.compile(r"^[A-Z]{6}\+")


class FontNames:
    """The fonts of a text page's characters by name, without a subset prefix ("ABCDEF+CMMI10" -> "CMMI10"), with
    whether the font is a math font (whose codes decode_extension may have to read)."""

    def __init__(self, textpage: pdfium.PdfTextPage) -> None:
        self.raw = textpage.raw
        self.buffer = ctypes.create_string_buffer(128)
        self.flags = ctypes.c_int()
        self.known: dict[bytes, tuple[str, bool]] = {}

    def __call__(self, index: int) -> tuple[str, bool]:
        """Name and math-ness of character `index`'s font (("", False) when pdfium reports none)."""
        size = pdfium_c.FPDFText_GetFontInfo(self.raw, index, self.buffer, len(self.buffer), ctypes.byref(self.flags))
        if not size or size > len(self.buffer):
            return "", False
        raw = self.buffer.value
        font = self.known.get(raw)
        if font is None:  # read once per font: a page has a few dozen fonts and thousands of characters
            name = _UNNAMED.sub("", raw.decode("latin-1"))
            font = self.known[raw] = (name, is_math_font(name) or is_extension_font(name))
        return font


@lru_cache(maxsize=512)
def is_math_font(name: str) -> bool:
    """Whether a font is made for setting formulas (TeX's math fonts and their kin, OpenType math fonts)."""
    return bool(name) and bool(_MATH_FONT.search(name))


@lru_cache(maxsize=512)
def is_extension_font(name: str) -> bool:
    """Whether a font is in TeX's math extension encoding (big operators and delimiters)."""
    return bool(name) and bool(_EXTENSION_FONT.search(name))


@lru_cache(maxsize=512)
def _symbol_font(name: str) -> bool:
    return bool(name) and bool(_SYMBOL_FONT.search(name))


def decode_extension(name: str, ch: str) -> str:
    """A character of a TeX math font that pdfium could not map (it reports the code): the symbol it draws. Extension
    fonts (OMX) hold nothing but symbols; symbol fonts (OMS) hold letters too, so only codes no letter has count."""
    if len(ch) != 1:
        return ch
    if ch in _PIECES:  # a big delimiter's pieces, where the font maps them (top, middle, bottom of a brace)
        return _PIECES[ch]
    if ord(ch) >= 0x80:
        return ch
    if ch == "," and _EXTRA_SYMBOLS.search(name):  # txfonts' and kpfonts' extra symbols: its comma code is "≠"
        return "\u2260"
    if is_extension_font(name):
        return _OMX[ord(ch)]
    if (ord(ch) < 0x20 or ch.isdigit()) and _symbol_font(name):
        return _OMS[ord(ch) & 0x1F if ord(ch) < 0x20 else 0x20 + ord(ch) - 0x30]
    return ch


def symbol_latex(ch: str) -> str:
    """LaTeX for one reported character: a command for Greek letters and operators, a style command around a
    mathematical alphanumeric (U+1D400...: bold, double-struck, script), an accent command around an accented letter,
    nothing for a glyph mapped to no character, the character itself otherwise."""
    if ch in COMMANDS:
        return COMMANDS[ch]
    if len(ch) == 1 and (0x1D400 <= ord(ch) <= 0x1D7FF or 0x2100 <= ord(ch) <= 0x214F):
        plain = unicodedata.normalize("NFKC", ch)
        if plain != ch and len(plain) == 1:
            name = unicodedata.name(ch, "")
            style = next((cmd for key, cmd in _STYLES if key in name), "")
            return f"{style}{{{symbol_latex(plain)}}}" if style else symbol_latex(plain)
    decomposed = unicodedata.normalize("NFD", ch)
    if len(decomposed) > 1 and all(c in ACCENTS for c in decomposed[1:]):
        out = symbol_latex(decomposed[0])
        for mark in decomposed[1:]:
            out = f"{ACCENTS[mark]}{{{out}}}"
        return out
    # Glyphs the font maps to no character (private-use codes, U+FFFD) are nothing KaTeX can read: left out.
    return "" if any(c == "\ufffd" or unicodedata.category(c) in ("Co", "Cn", "Cs", "Cc", "Cf") for c in ch) else ch


# Words the text font sets inside formulas: TeX's operator names (\operatorname's usual ones); LaTeX has commands for
# the first lot.
_OPERATOR_WORDS = (
    "sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh coth log ln lg exp lim liminf limsup max min sup inf "
    "det dim ker deg arg gcd hom Pr"
)
_NAMED_WORDS = "lcm mod tr diag rank sgn sign span Re Im id const var cov erf"
COMMAND_NAMES = frozenset(_OPERATOR_WORDS.split())
OPERATOR_NAMES = frozenset(_OPERATOR_WORDS.split() + _NAMED_WORDS.split())
_BOLD = re.compile(r"bold|medi|black|heavy|semibold|demi|-b\b|bx", re.IGNORECASE)
_ITALIC = re.compile(r"ital|oblique|-it\b|\bit\b|-i\b", re.IGNORECASE)
# Letter styles of math fonts: blackboard bold, Fraktur, calligraphic capitals (TeX's symbol fonts hold those).
_STYLED = (
    (re.compile(r"msbm|bbold|doublestroke|blackboard|mathdesignsymbola", re.IGNORECASE), "\\mathbb"),
    (re.compile(r"eufm|eufb|fraktur", re.IGNORECASE), "\\mathfrak"),
    (
        re.compile(r"cmsy|cmbsy|eusm|eusb|rsfs|symbols|-symbol-|txsy|pxsy|-sy-|calligraph|script", re.IGNORECASE),
        "\\mathcal",
    ),
)
# Math fonts whose letters are variables (one symbol each).
_VARIABLES = re.compile(r"cmmi|mathitalic|rtxb?mi|txmia|ntxmi|pxmi|--m-(medium)?italic|eur[mb]|zxlr", re.IGNORECASE)
# Families whose phi and epsilon code points are the other shape's.
_SWAPS = (
    (re.compile(r"cmmi|--m-|mathdesign", re.IGNORECASE), {"\u03c6": "\u03d5", "\u03d5": "\u03c6"}),
    (re.compile(r"cmmi|mathdesign", re.IGNORECASE), {"\u03b5": "\u03f5", "\u03f5": "\u03b5"}),
)


@lru_cache(maxsize=512)
def is_italic(name: str) -> bool:
    """Whether a font's name says italic (or oblique)."""
    return bool(_ITALIC.search(name))


@lru_cache(maxsize=512)
def is_bold(name: str) -> bool:
    """Whether a font's name says bold (or medium, black, demi)."""
    return bool(_BOLD.search(name))


@lru_cache(maxsize=512)
def letter_style(name: str) -> str:
    """The style command a math font's letters need (\\mathbb for MSBM, ...), or ''."""
    return next((cmd for pattern, cmd in _STYLED if pattern.search(name)), "") if is_math_font(name) else ""


@lru_cache(maxsize=512)
def is_word_font(name: str) -> bool:
    """Whether a font's ASCII letters, drawn side by side, make a word: the text font's upright letters, and the
    letters of Unicode math fonts, whose variables are U+1D400... code points and whose ASCII letters spell "log"."""
    if not is_math_font(name):
        return not is_italic(name)
    return not (_VARIABLES.search(name) or letter_style(name))


def own_shape(name: str, ch: str) -> str:
    """The character for the shape a font draws: some families name phi's (and epsilon's) two shapes the other way
    round from Unicode."""
    for family, swap in _SWAPS:
        ch = swap.get(ch, ch) if family.search(name) else ch
    return ch
