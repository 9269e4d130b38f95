"""A formula's lines as LaTeX: each line's symbols left to right with their sub- and superscripts, lines stacked.

The items are a formula's symbols and the parts math_layout.py built (fractions, radicals, limits), with boxes in
PDF space (y up). A script is a smaller symbol raised or lowered beside its base; lines of the main size that no
stack explains are the lines of a display (aligned equations).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ocr_pipeline.textlayer.math.math_params import MATH_PARAMS, MathParams

# The math axis (fraction bars, the middle of + and =) sits this share of the size above the baseline.
AXIS = 0.25
_ENDS_IN_COMMAND = re.compile(r"\\[a-zA-Z]+$")
# Operators a display sets their limits above and below (beside them only when told: \\nolimits).
LIMITS = {"\\sum", "\\prod", "\\coprod", "\\bigcup", "\\bigcap", "\\bigwedge", "\\bigvee", "\\bigoplus",
          "\\bigotimes", "\\bigodot", "\\biguplus", "\\bigsqcup", "\\lim", "\\max", "\\min", "\\sup", "\\inf",
          "\\limsup", "\\liminf", "\\det", "\\Pr", "\\gcd"}  # fmt: skip
# Ordinary symbols: letters, digits, Greek, styled and accented letters, built parts (fractions, radicals,
# matrices). Between two of them TeX puts no space: a gap there is the author's own (\\, \\; \\quad).
_ORDINARY = re.compile(
    r"([A-Za-z0-9]+|\\(var)?(alpha|beta|gamma|delta|epsilon|zeta|eta|theta|iota|kappa|lambda|mu|nu|xi|pi|rho|sigma"
    r"|tau|upsilon|phi|chi|psi|omega|Gamma|Delta|Theta|Lambda|Xi|Pi|Sigma|Upsilon|Phi|Psi|Omega|ell|hbar|partial"
    r"|infty|nabla|aleph|Re|Im|math[a-z]+|hat|bar|tilde|dot|ddot|vec|check|breve|acute|grave|t?frac|sqrt|binom"
    r"|begin|overline)(?![a-zA-Z]))"
)
_OPENING = ("(", "[", "\\{", "\\langle", "\\lfloor", "\\lceil")
_CLOSING = (")", "]", "\\}", "\\rangle", "\\rfloor", "\\rceil")
# An author's spaces by width in sizes: \qquad (2), \quad (1), \; (5/18), \, (3/18).
_SPACES = ((1.6, "\\qquad "), (0.8, "\\quad "), (0.24, "\\;"), (0.12, "\\,"))
# Relations a multi-line display is aligned at.
RELATIONS = {"=", "<", ">", "\\leq", "\\geq", "\\equiv", "\\approx", "\\sim", "\\simeq", "\\cong", "\\neq",
             "\\to", "\\longrightarrow", "\\Rightarrow", "\\Leftrightarrow", "\\in", "\\subset", "\\subseteq",
             "\\propto"}  # fmt: skip


@dataclass(frozen=True)
class Item:
    """A symbol or a built part of a formula: its LaTeX, box (y up), size drawn, baseline (None: unknown)."""

    latex: str
    x0: float
    y0: float
    x1: float
    y1: float
    size: float
    base: float | None = None
    axis: float | None = None  # a fraction's rule: it sits on the math axis of the line it belongs to

    @property
    def xc(self) -> float:
        """Horizontal centre."""
        return (self.x0 + self.x1) / 2

    @property
    def yc(self) -> float:
        """Vertical centre."""
        return (self.y0 + self.y1) / 2


@dataclass(frozen=True)
class FractionBar:
    """A drawn horizontal line (fraction bar, radical's vinculum, overline), y up."""

    x0: float
    y0: float
    x1: float
    y1: float


def _script(it: Item, base: Item, params: MathParams) -> str:
    """'^' or '_' when `it` is a script of `base` (a smaller symbol, raised or lowered), else ''."""
    if it.size > params.script_ratio * base.size:
        # At TeX's smallest script size a script's script is no smaller: told by its shift alone.
        if not (it.size <= base.size <= params.smallest_script and it.base is not None and base.base is not None):
            return ""
        shift = (it.base - base.base) / base.size
        return "^" if shift > 0.25 else "_" if shift < -0.25 else ""
    if it.axis is not None and base.base is not None:  # a fraction (\tfrac) set on the base's line is no script
        shift = (it.axis - base.base - AXIS * base.size) / base.size
        return "^" if shift > 0.3 else "_" if shift < -0.3 else ""
    if it.base is not None and base.base is not None:
        shift = (it.base - base.base) / base.size
        return "^" if shift > params.sup_shift else "_" if shift < -params.sub_shift else ""
    shift = (it.yc - base.yc) / base.size
    return "^" if shift > 0.15 else "_" if shift < -0.1 else ""


def _join(parts: list[str]) -> str:
    out = ""
    for k, part in enumerate(parts):
        if part == "{}" and not (k + 1 < len(parts) and parts[k + 1][:1] in "_^"):
            continue  # an empty base is needed only under scripts
        if _ENDS_IN_COMMAND.search(out) and part[:1].isalpha():
            out += " "
        out += part
    return out


def _ordinary(latex: str, side: str) -> bool:
    """Whether a symbol is one TeX sets no space beside: an ordinary symbol, or a bracket on its outer side."""
    return bool(_ORDINARY.match(latex)) or latex in (_CLOSING if side == "left" else _OPENING)


def _scripted(latex: str) -> bool:
    """Whether `latex` ends in a script at its top level ("x_{i}", "\\sum_{k}^{n}")."""
    depth = 0
    for c in latex:
        depth += (c == "{") - (c == "}")
        if depth == 0 and c in "_^":
            return True
    return False


def _space(gap: float) -> str:
    """The spacing command for a gap of `gap` sizes between two ordinary symbols ('' for none)."""
    return next((cmd for limit, cmd in _SPACES if gap >= limit), "")


def row_latex(items: list[Item], align: bool = False, display: bool = False, params: MathParams = MATH_PARAMS) -> str:
    """One line of symbols, left to right, with each base's scripts; with `align`, a `&` before its first
    relation; in a `display`, a big operator's scripts set beside it (not above and below) marked \\nolimits."""
    items = sorted(items, key=lambda it: (it.x0, -it.size))
    parts: list[str] = []
    k = 0
    base: Item | None = None
    end = 0.0  # the right end of the last base and its scripts
    while k < len(items):
        it = items[k]
        if base is None or not _script(it, base, params):
            if align and it.latex in RELATIONS:
                parts.append("&")
                align = False
            if base is not None and _ordinary(base.latex, "left") and _ordinary(it.latex, "right"):
                parts.append(_space((it.x0 - end) / max(it.size, base.size)))
            parts.append(it.latex or "{}")  # a glyph mapped to nothing still holds its scripts
            base, k, end = it, k + 1, it.x1
            continue
        group: list[Item] = []
        # A script's own script (m_r in x^{m_r}) may sit level with the base: it goes with the script it belongs to.
        while k < len(items) and (_script(items[k], base, params) or group
                                  and items[k].size <= params.script_ratio * group[-1].size
                                  and _script(items[k], group[-1], params)):  # fmt: skip
            group.append(items[k])
            end = max(end, items[k].x1)
            k += 1
        sub = [g for g in group if g.yc < base.yc and _script(g, base, params) == "_"]
        sup = [g for g in group if all(g is not s for s in sub)]
        if display and base.latex in LIMITS:
            parts.append("\\nolimits")
        elif _scripted(parts[-1]):  # a base that has its scripts already (limits): these go on an empty base
            parts.append("{}")
        if sub:
            parts.append(f"_{{{row_latex(sub, params=params)}}}")
        if sup:
            body = row_latex(sup, params=params)
            parts.append(body if set(body) == {"'"} else "^{" + body.replace("'", "\\prime ").rstrip() + "}")
    return _join(parts)


def line_axis(it: Item) -> float:
    """Height of the math axis of the line `it` sits on: a fraction's rule, a baseline lifted, or its box's middle."""
    if it.axis is not None:
        return it.axis
    return it.base + AXIS * it.size if it.base is not None else it.yc


def rows(items: list[Item], params: MathParams = MATH_PARAMS) -> list[list[Item]]:
    """The items of the main size grouped into lines by their axes, the smaller ones given to the nearest line."""
    if not items:
        return []
    big = max(it.size for it in items)
    lines: list[list[Item]] = []
    axes: list[float] = []
    for it in sorted((it for it in items if it.size > params.script_ratio * big), key=lambda it: -line_axis(it)):
        if axes and axes[-1] - line_axis(it) <= 0.5 * big:
            lines[-1].append(it)
        else:
            lines.append([it])
            axes.append(line_axis(it))
    for it in items:
        if it.size <= params.script_ratio * big:
            lines[min(range(len(lines)), key=lambda n: abs(axes[n] - it.yc))].append(it)
    return lines


def display_latex(lines: list[list[Item]], params: MathParams = MATH_PARAMS) -> str:
    """A display's lines: one as it is; several as one aligned display, aligned at each line's first relation when
    every line has one (a display of one line each, stacked, reads the same)."""
    lines = [line for line in lines if any(it.latex for it in line)] or lines
    if len(lines) == 1:
        return row_latex(lines[0], display=True, params=params)
    if all(any(it.latex in RELATIONS for it in line) for line in lines):
        body = " \\\\ ".join(row_latex(line, True, True, params) for line in lines)
        return "\\begin{aligned}" + body + "\\end{aligned}"
    gathered = " \\\\ ".join(row_latex(line, display=True, params=params) for line in lines)
    return "\\begin{gathered}" + gathered + "\\end{gathered}"
