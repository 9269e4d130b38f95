"""Tables found in positioned text runs (and ruling lines, where drawn), rebuilt as HTML `<table>` (olmOCR's form).

Pure geometry over `Box`es (y grows downwards), so the text layer and the OCR of a scan share it. A table is
(1) text between ruling lines whose rows split into cells at shared column gaps (booktabs: horizontal rules only;
grids: both), or (2) without rules, three or more consecutive rows of three or more short cells whose gaps line
up. Body text in columns is not a table: its runs are long, a table's cells short.
"""

from __future__ import annotations

import html
import statistics
from collections.abc import Sequence

from ocr_pipeline.layout.boxes import Box, Rule, bottom_of, left_of, right_of, top_of, x_span
from ocr_pipeline.layout.budget import LayoutBudget
from ocr_pipeline.layout.columns import line_number_stacks
from ocr_pipeline.layout.layout_params import LAYOUT_PARAMS, LayoutParams
from ocr_pipeline.layout.row_groups import TABLE_ROW_RULE, group_rows


def rows_of(boxes: Sequence[Box]) -> list[list[Box]]:
    """Boxes grouped into visual rows (vertical overlap), top to bottom, each left to right."""
    return group_rows(boxes, TABLE_ROW_RULE)


def _column_edges(
    rows: list[list[Box]], x0: float, x1: float, rules: Sequence[Rule], params: LayoutParams
) -> list[float]:
    """Separator x positions: interior vertical rules, else gaps shared by every row's cells."""
    verticals = sorted({round((r.x0 + r.x1) / 2, 1) for r in rules if not r.horizontal and x0 + 3 < r.x0 < x1 - 3})
    if verticals:
        return verticals
    width = max(x1 - x0, 1.0)
    cells = sorted(
        (b.x0, b.x1) for row in rows for b in row if b.x1 - b.x0 < params.tables.max_cell_width_share * width
    )
    if not cells:
        return []
    edges, end = [], cells[0][1]
    for a, b in cells[1:]:
        if a > end + 2:
            edges.append((end + a) / 2)
        end = max(end, b)
    return edges


def _grid(rows: list[list[Box]], edges: list[float], budget: LayoutBudget) -> list[list[tuple[str, int]]]:
    """Each row as (cell text, colspan) pairs over the columns `edges` define."""
    ncols = len(edges) + 1
    out = []
    for row in rows:
        budget.charge((len(row) + 1) * ncols)
        texts: list[list[str]] = [[] for _ in range(ncols)]
        spans = [1] * ncols
        for b in row:
            first = sum(e < b.x0 for e in edges)
            last = sum(e < b.x1 for e in edges)
            texts[first].append(b.text.strip())
            spans[first] = max(spans[first], last - first + 1)
        cells, c = [], 0
        while c < ncols:
            cells.append((" ".join(texts[c]), spans[c]))
            c += spans[c]
        out.append(cells)
    return out


def to_html(grid: list[list[tuple[str, int]]]) -> str:
    """olmOCR's table form: the first row as header cells."""
    lines = ["<table>"]
    for r, row in enumerate(grid):
        tag = "th" if r == 0 else "td"
        cells = "".join(
            f"<{tag}{f' colspan={chr(34)}{span}{chr(34)}' if span > 1 else ''}>{html.escape(text, quote=False)}</{tag}>"
            for text, span in row
        )
        lines.append(f"<tr>{cells}</tr>")
    lines.append("</table>")
    return "\n".join(lines)


def _table_box(
    boxes: list[Box], rules: Sequence[Rule], min_cols: int, budget: LayoutBudget, params: LayoutParams
) -> Box | None:
    """The HTML table of `boxes`, as one box covering them, or None when they do not form a table."""
    budget.charge(len(boxes) + len(rules))
    rows = rows_of(boxes)
    x0, x1 = x_span(boxes)
    edges = _column_edges(rows, x0, x1, rules, params)
    if len(edges) + 1 < min_cols or len(rows) < 2:
        return None
    multi = sum(1 for row in rows if len(row) >= 2)
    long_runs = sum(1 for b in boxes if b.x1 - b.x0 >= params.tables.max_cell_width_share * (x1 - x0))
    if multi < 0.5 * len(rows) or long_runs > 0.25 * len(boxes):
        return None
    if not rules and _prose_like(boxes, params):
        return None
    grid = _grid(rows, edges, budget)
    return Box(x0, top_of(boxes), x1, bottom_of(boxes), to_html(grid))


def _prose_between(boxes: Sequence[Box], a: Rule, b: Rule, budget: LayoutBudget, params: LayoutParams) -> bool:
    """Whether a line of running text lies between two rules (then they rule different tables)."""
    budget.charge(len(boxes))
    x0, x1 = x_span((a, b))
    # Only text across the rules counts: a paragraph in the next column beside a table splits nothing.
    return any(
        a.y0 < box.yc < b.y0
        and min(box.x1, x1) - max(box.x0, x0) > params.tables.max_cell_width_share * (x1 - x0)
        and len(box.text) > 40
        for box in boxes
    )


def _sentence(box: Box, params: LayoutParams) -> bool:
    """A run that reads as a line of running text (many words, few digits): never an unruled table's cell."""
    text = box.text.strip()
    words = text.split()
    digits = sum(c.isdigit() for c in text)
    if len(words) >= params.tables.min_sentence_words and digits < 0.1 * len(text):
        return True
    # Shorter lines of a narrow column: a sentence ends or breaks in them ("… bit.", "… de-").
    return len(words) >= 4 and not digits and (". " in text or text[-1] in ".,;-\ufffe\xad")


def _prose_like(boxes: Sequence[Box], params: LayoutParams) -> bool:
    """Columns of running text (a three-column page) rather than cells: wordy runs and few numbers."""
    words = statistics.fmean(len(b.text.split()) for b in boxes)
    numeric = sum(1 for b in boxes if any(c.isdigit() for c in b.text)) / len(boxes)
    return words > params.tables.max_plain_cell_words and numeric < 0.3


def _ruled_regions(
    rules: Sequence[Rule], boxes: Sequence[Box], h: float, budget: LayoutBudget, params: LayoutParams
) -> list[tuple[float, float, float, float]]:
    """Areas bounded by two or more horizontal rules of about the same extent (x0, y0, x1, y1)."""
    flat = sorted((r for r in rules if r.horizontal and r.x1 - r.x0 > 4 * h), key=lambda r: r.y0)
    regions: list[list[Rule]] = []
    for r in flat:
        budget.charge(len(regions))
        for group in regions:
            g = group[-1]
            overlap = min(g.x1, r.x1) - max(g.x0, r.x0)
            if (
                overlap > 0.8 * max(g.x1 - g.x0, r.x1 - r.x0)
                and r.y0 - g.y0 < params.tables.max_rule_gap_heights * h
                and not _prose_between(boxes, g, r, budget, params)
            ):
                group.append(r)
                break
        else:
            regions.append([r])
    return [(left_of(g), g[0].y0, right_of(g), g[-1].y1) for g in regions if len(g) >= 2]


def _outside_prose_columns(
    row: list[Box], sentences: Sequence[Box], h: float, budget: LayoutBudget, params: LayoutParams
) -> list[Box]:
    """The row without the short last lines of a paragraph column that lies beside the rest of the row."""
    out = list(row)
    budget.charge(len(sentences) * len(row))
    for s in sentences:
        if not any(abs(b.yc - s.yc) <= params.tables.max_paragraph_gap_heights * h for b in row):
            continue
        inside = [b for b in out if b.x0 >= s.x0 - 2 and b.x1 <= s.x1 + 2]
        beside = [b for b in out if b.x0 >= s.x1 - 2 or b.x1 <= s.x0 + 2]
        # Runs under a paragraph line, the rest of the row in another column: the paragraph's lines, not cells.
        if inside and beside and len(inside) + len(beside) == len(out):
            out = beside
    return out


def _plain_blocks(boxes: list[Box], h: float, budget: LayoutBudget, params: LayoutParams) -> list[list[Box]]:
    """Runs of consecutive rows with min_plain_cols or more cells each, close together."""
    blocks: list[list[list[Box]]] = []
    prev_bottom = None
    # Prose lines stay out: beside a table (two columns) they would add a column to each of its rows.
    sentences = [b for b in boxes if _sentence(b, params)]
    for row in rows_of([b for b in boxes if not _sentence(b, params)]):
        row = _outside_prose_columns(row, sentences, h, budget, params)
        top = top_of(row)
        if (
            len(row) >= params.tables.min_plain_cols
            and blocks
            and prev_bottom is not None
            and top - prev_bottom < params.tables.max_row_gap_heights * h
        ):
            blocks[-1].append(row)
        elif len(row) >= params.tables.min_plain_cols:
            blocks.append([row])
        else:
            blocks.append([])
        prev_bottom = bottom_of(row)
    return [[b for row in rows for b in row] for rows in blocks if len(rows) >= params.tables.min_plain_rows]


def find_tables(
    boxes: Sequence[Box],
    rules: Sequence[Rule] = (),
    budget: LayoutBudget | None = None,
    params: LayoutParams = LAYOUT_PARAMS,
) -> tuple[list[Box], list[Box]]:
    """Split `boxes` into (boxes outside tables, one box per table whose text is its HTML)."""
    rest = [b for b in boxes if b.text.strip()]
    if len(rest) < 4:
        return rest, []
    budget = budget or LayoutBudget()
    h = statistics.median(b.height for b in rest)
    # Line numbers in a margin stand beside every line like a table's first column: set aside, they make none.
    numbers = [b for stack in line_number_stacks(rest, h, budget, params) for b in stack]
    numbered = {id(b) for b in numbers}
    rest = [b for b in rest if id(b) not in numbered]
    tables: list[Box] = []
    for x0, y0, x1, y1 in _ruled_regions(rules, rest, h, budget, params):
        budget.charge(len(rest) + len(rules))
        inside = [b for b in rest if b.x0 >= x0 - 2 and b.x1 <= x1 + 2 and b.yc > y0 and b.yc < y1]
        ruling = [r for r in rules if y0 - 2 <= r.y0 and r.y1 <= y1 + 2]
        table = _table_box(inside, ruling, 2, budget, params) if inside else None
        if table is not None:
            tables.append(table)
            # Equal boxes stand at one place, inside the region or not, so taking out `inside` by identity is the same.
            taken = {id(b) for b in inside}
            rest = [b for b in rest if id(b) not in taken]
    for block in _plain_blocks(rest, h, budget, params):
        table = _table_box(block, (), params.tables.min_plain_cols, budget, params)
        if table is not None:
            tables.append(table)
            ids = {id(b) for b in block}
            rest = [b for b in rest if id(b) not in ids]
    return rest + numbers, tables
