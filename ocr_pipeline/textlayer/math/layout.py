"""A formula's positioned symbols and rules as LaTeX: fractions, radicals, limits, matrices.

Works on boxes alone (PDF space, y up), the way a typesetter builds a formula: a fraction is a rule with a stack
above and below it; a radical is a root sign with a rule over the radicand; a big operator's limits sit above and
below it; big delimiters around lines of their own hold a matrix. What is left is written line by line
(math_rows.py).
"""

from __future__ import annotations

from dataclasses import replace

from ocr_pipeline.layout.boxes import bounds, right_of, x_span, y_span
from ocr_pipeline.textlayer.math.math_params import MATH_PARAMS, MathParams
from ocr_pipeline.textlayer.math.rows import (
    AXIS,
    RELATIONS,
    FractionBar,
    Item,
    line_axis,
    row_latex,
    rows,
)

# Big delimiters that open and close a matrix, and the matrix each makes (MathParams.cell_gap_sizes parts its cells).
_PAIRS = {"(": ")", "[": "]", "\\{": "\\}", "|": "|", "\\|": "\\|", "\\langle": "\\rangle"}
_MATRICES = {"(": "pmatrix", "[": "bmatrix", "\\{": "Bmatrix", "|": "vmatrix", "\\|": "Vmatrix"}
# Symbols whose limits a display sets above and below them.
BIG_OPERATORS = {
    "\\sum", "\\prod", "\\coprod", "\\bigcup", "\\bigcap", "\\bigwedge", "\\bigvee", "\\bigoplus", "\\bigotimes",
    "\\bigodot", "\\biguplus", "\\bigsqcup", "\\lim", "\\max", "\\min", "\\sup", "\\inf", "\\limsup", "\\liminf",
    "\\det", "\\Pr", "\\gcd", "\\int", "\\oint",
}  # fmt: skip


def _union(latex: str, parts: list[Item], size: float, base: float | None) -> Item:
    return Item(latex, *bounds(parts), size, base)


def _stack(
    items: list[Item], x0: float, x1: float, edge: float, above: bool, params: MathParams, limit: float | None = None
) -> list[Item]:
    """Items over (or under) the span x0..x1 that reach within stack_reach_sizes of `edge`, and those that touch
    them in turn (a numerator's own scripts and stacks; a fraction only when it is near itself: the one on the next
    line of an aligned display is not); none past `limit` (halfway to another rule)."""
    inside = [
        it for it in items
        if x0 - 1 <= it.xc <= x1 + 1
        and (it.y0 >= edge - 0.25 * it.size if above else it.y1 <= edge + 0.25 * it.size)
        and (limit is None or (it.yc < limit if above else it.yc > limit))
    ]  # fmt: skip
    near = [it for it in inside if abs((it.y0 if above else it.y1) - edge) <= params.stack_reach_sizes * it.size]
    grown, seen = list(near), {id(it) for it in near}
    while near:
        lo, hi = y_span(grown)
        near = [
            it for it in inside
            if id(it) not in seen and it.axis is None and it.y0 < hi + 0.3 * it.size and it.y1 > lo - 0.3 * it.size
        ]  # fmt: skip
        grown += near
        seen.update(id(it) for it in near)
    return grown


def _sign(items: list[Item], rule: FractionBar) -> Item | None:
    """The root sign a rule starts from: the rule begins at the sign's right end, in its upper half (boxes are the
    font's, ascent to descent, not the ink's)."""
    return next((it for it in items if it.latex == "\\surd" and it.xc <= rule.x0 <= it.x1 + 0.3 * it.size
                 and it.yc <= rule.y1 <= it.y1 + 0.2 * it.size), None)  # fmt: skip


def _radical(items: list[Item], rule: FractionBar, params: MathParams) -> list[Item] | None:
    """A root sign whose rule starts at its top right: \\sqrt of what is under the rule; None when no sign is."""
    sign = _sign(items, rule)
    if sign is None:
        return None
    under = [it for it in items if it is not sign and rule.x0 - 1 <= it.xc <= rule.x1 + 1
             and it.y1 <= rule.y1 + 0.2 * it.size and it.y0 >= sign.y0 - 0.2 * it.size]  # fmt: skip
    # The sign's box reaches past the rule (a font box, not ink): the rule is the top of the radical.
    top = Item("", sign.x0, sign.y0, rule.x1, rule.y1, sign.size)
    # The radical sits on the line of the radicand's main symbol (a fraction's axis, or a baseline).
    main = max(under, key=lambda it: (it.size, it.axis is not None), default=sign)
    node = _union(f"\\sqrt{{{build(under, [], params)}}}", [top, *under], max(it.size for it in [sign, *under]),
                  line_axis(main) - AXIS * main.size)  # fmt: skip
    used = {id(sign), *map(id, under)}
    return [it for it in items if id(it) not in used] + [node]


def _ruled(items: list[Item], rules: list[FractionBar], body: float, params: MathParams) -> list[Item]:
    """Rules read innermost (narrowest) first: a radical's; with a stack above and below, a fraction's; with a
    stack under it only, an overline. A stack stops halfway to the next rule over the same span not yet read (the
    fraction on the next line of an aligned display)."""
    waiting = sorted(rules, key=lambda r: r.x1 - r.x0)
    radicals = {id(r) for r in rules if _sign(items, r) is not None}
    while waiting:
        rule = waiting.pop(0)
        radical = _radical(items, rule, params)
        if radical is not None:
            items = radical
            continue
        others = [r for r in waiting if r.x0 < rule.x1 and r.x1 > rule.x0 and id(r) not in radicals]
        # Halfway to the next rule up or down: past it a symbol belongs to that rule's stack.
        top = min(((r.y0 + rule.y1) / 2 for r in others if r.y0 > rule.y1), default=None)
        bottom = max(((r.y1 + rule.y0) / 2 for r in others if r.y1 < rule.y0), default=None)
        over = _stack(items, rule.x0, rule.x1, rule.y1, True, params, top)
        under = _stack(items, rule.x0, rule.x1, rule.y0, False, params, bottom)
        if over and under:
            size = max(it.size for it in over + under)
            # In a display, a fraction set smaller than the display's symbols is a \\tfrac.
            frac = "\\tfrac" if size <= params.script_ratio * body else "\\frac"
            node = _union(
                f"{frac}{{{build(over, [], params)}}}{{{build(under, [], params)}}}", over + under, size, None
            )
            node = replace(node, x0=min(rule.x0, node.x0), x1=max(rule.x1, node.x1), axis=(rule.y0 + rule.y1) / 2)
        elif under:
            node = _union(
                f"\\overline{{{build(under, [], params)}}}", under, max(it.size for it in under), under[0].base
            )
        else:
            continue
        used = set(map(id, over + under))
        items = [it for it in items if id(it) not in used] + [node]
    return items


def _limits(items: list[Item], params: MathParams) -> list[Item]:
    """Big operators with stacks above or below them: limits (\\sum_{i=1}^{n}); a relation or arrow with small
    symbols over or under it: \\overset, \\underset."""
    for op in [it for it in items if it.latex in BIG_OPERATORS or it.latex in RELATIONS]:
        rest = [it for it in items if it is not op and it.size < op.size * 1.2]
        top, bottom = op.y1, op.y0
        if op.latex in RELATIONS and op.base is not None:  # a relation's ink is a thin band around the axis
            top, bottom = op.base + 2 * AXIS * op.size, op.base
        script = params.script_ratio * op.size
        over = [it for it in _stack(rest, op.x0, op.x1, top, True, params) if it.size <= script]
        under = [it for it in _stack(rest, op.x0, op.x1, bottom, False, params) if it.size <= script]
        small = [it for it in rest if it.size <= script]
        over, under = _widen(small, over), _widen(small, under)
        if op.latex in RELATIONS:  # what is set over a relation is centred on it: a script before it is not
            over, under = _centred(over, op), _centred(under, op)
        if not over and not under:
            continue
        if op.latex in RELATIONS:
            latex = f"\\overset{{{build(over, [], params)}}}{{{op.latex}}}" if over else op.latex
            latex = f"\\underset{{{build(under, [], params)}}}{{{latex}}}" if under else latex
        else:
            latex = (
                op.latex
                + (f"_{{{build(under, [], params)}}}" if under else "")
                + (f"^{{{build(over, [], params)}}}" if over else "")
            )
        used = {id(op), *map(id, over), *map(id, under)}
        items = [it for it in items if id(it) not in used]
        base = op.base if op.base is not None else op.yc - AXIS * op.size  # the operator stays on its line's axis
        items.append(_union(latex, [op, *over, *under], op.size, base))
    return items


def _centred(group: list[Item], op: Item) -> list[Item]:
    """`group` less its outermost symbols until it is centred over `op`."""
    group = sorted(group, key=lambda it: it.x0)
    while len(group) > 1:
        middle = (group[0].x0 + group[-1].x1) / 2
        if abs(middle - op.xc) <= 0.2 * op.size:
            break
        group = group[1:] if middle < op.xc else group[:-1]
    return group


def _widen(items: list[Item], seed: list[Item]) -> list[Item]:
    """A limit wider than its operator: the symbols on the seed's line that run on from it without a wide gap."""
    out, seen = list(seed), set(map(id, seed))
    grew = bool(seed)
    while grew:
        (lo, hi), (left, right) = y_span(out), x_span(out)
        more = [
            it for it in items
            if id(it) not in seen and lo <= it.yc <= hi
            and (-0.3 <= (it.x0 - right) / it.size <= 0.5 or -0.3 <= (left - it.x1) / it.size <= 0.5)
        ]  # fmt: skip
        out += more
        seen.update(map(id, more))
        grew = bool(more)
    return out


def _grids(items: list[Item], params: MathParams) -> list[Item]:
    """Lines stacked between a pair of big delimiters (or after a big left brace, with nothing to close it): a
    binomial, a matrix, cases."""
    tall = sorted((it for it in items if it.latex in _PAIRS.keys() | _PAIRS.values() and it.y1 - it.y0 > 1.6 * it.size),
                  key=lambda it: it.x0)  # fmt: skip
    for left in [it for it in tall if it.latex in _PAIRS]:
        right = next((it for it in tall if it.x0 > left.x1 and it.latex == _PAIRS[left.latex]
                      and min(it.y1, left.y1) - max(it.y0, left.y0) > 0.7 * (left.y1 - left.y0)), None)  # fmt: skip
        if right is None and left.latex != "\\{":
            continue
        end = right.x0 if right is not None else float("inf")
        inner = [it for it in items if left.x1 - 1 <= it.xc <= end + 1 and left.y0 <= it.yc <= left.y1
                 and it is not left and it is not right]  # fmt: skip
        lines = rows(inner, params)
        if len(lines) < 2:
            continue
        cells = [_cells(line, params) for line in lines]
        if left.latex == "(" and len(cells) == 2 and all(len(c) == 1 for c in cells):
            latex = f"\\binom{{{cells[0][0]}}}{{{cells[1][0]}}}"
        else:
            env = "cases" if right is None else _MATRICES.get(left.latex, "matrix")
            body = " \\\\ ".join(" & ".join(c) for c in cells)
            latex = f"\\begin{{{env}}}{body}\\end{{{env}}}"
        parts = [left, *inner] + ([right] if right is not None else [])
        used = set(map(id, parts))
        items = [it for it in items if id(it) not in used]
        items.append(_union(latex, parts, left.size, left.yc - AXIS * left.size))
    return items


def _cells(line: list[Item], params: MathParams) -> list[str]:
    """A matrix line's cells: its symbols cut where a gap wider than the size stands between them."""
    line = sorted(line, key=lambda it: it.x0)
    cells: list[list[Item]] = [[]]
    for it in line:
        if cells[-1] and it.x0 - right_of(cells[-1]) > params.cell_gap_sizes * it.size:
            cells.append([])
        cells[-1].append(it)
    return [row_latex(cell, params=params) for cell in cells]


def build(items: list[Item], rules: list[FractionBar], params: MathParams = MATH_PARAMS) -> str:
    """LaTeX for a formula's items and rules (rows of a multi-line display joined by `\\\\`)."""
    return " \\\\ ".join(row_latex(line, params=params) for line in build_rows(items, rules, params=params))


def build_rows(
    items: list[Item], rules: list[FractionBar], display: bool = False, params: MathParams = MATH_PARAMS
) -> list[list[Item]]:
    """The formula's lines, each one item list with fractions, radicals, limits and matrices already built (in a
    `display`, fractions smaller than its symbols as \\tfrac)."""
    body = max((it.size for it in items), default=0.0) if display else 0.0
    return rows(_grids(_limits(_ruled(items, rules, body, params), params), params), params)
