"""The old `expression` tests' language, translated to SQL so files written for it keep working.

`expression: {row: "..."}` becomes `expression_is_true` over the asset's table, `expression: {sql_like: "..."}`
`expression_is_true` over its one-row `metrics` table, with each aggregate a subquery over the asset's table. The
language was Python's expression syntax (parsed with `ast`, never evaluated): numbers, strings, True/False/None,
lists, + - * / // %, comparisons (also `in`, `is`), and/or/not, column paths (`metadata.engine`, `col("a.b-c")`),
len, strip, lower, abs, round, coalesce, and the aggregates count(), count(x), count_if(p), share(p), sum, mean, min,
max, count_distinct. Its rules are kept: a comparison with a null is false (not SQL's null), `==`/`!=` treat two
nulls as equal, 0/0 is 0, a sum of nothing is 0. Sizes stay bounded when the file loads.
"""

from __future__ import annotations

import ast

from ocr_pipeline.checks.generic_sql import literal
from ocr_pipeline.checks.sql_tables import METRICS, column_sql, quote

# A check is a one-liner: none needs more, and one within these cannot make the parser recurse out of the stack.
MAX_EXPRESSION_CHARS = 2_000
MAX_EXPRESSION_DEPTH = 100
MAX_EXPRESSION_NODES = 500

AGGREGATES = {"count", "count_if", "share", "sum", "mean", "min", "max", "count_distinct"}
SCALARS = {
    "len": "len",
    "strip": "strip_text",
    "lower": "lower",
    "abs": "abs",
    "round": "round",
    "coalesce": "coalesce",
}
_ARITH = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Mod: "%", ast.FloorDiv: "//"}
_ORDERING = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
NEW_FORM = 'expression_is_true: {expression: "<SQL>"} (add `table: metrics` for a partition-wide value)'


class ExpressionError(ValueError):
    """An old-style expression outside the language, or one that cannot be translated."""


def dotted(node: ast.AST) -> str | None:
    """`a.b.c` for a Name/Attribute chain, or `col("a.b-c")`'s path; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "col"):
        return None
    if len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.args[0].value
    return None


def parse_expression(source: str) -> ast.Expression:
    """Parse an old expression, bounded in length, depth and nodes."""
    if len(source) > MAX_EXPRESSION_CHARS:
        raise ExpressionError(f"the expression is {len(source)} characters, more than {MAX_EXPRESSION_CHARS}")
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"cannot parse {source[:80]!r}: {exc.msg}") from exc
    except (RecursionError, MemoryError) as exc:
        raise ExpressionError("the expression is nested too deeply") from exc
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    nodes = 0
    while stack:  # without recursion, so the check itself cannot overflow
        node, depth = stack.pop()
        nodes += 1
        if depth > MAX_EXPRESSION_DEPTH or nodes > MAX_EXPRESSION_NODES:
            deep = depth > MAX_EXPRESSION_DEPTH
            bound = f"{MAX_EXPRESSION_DEPTH} levels deep" if deep else f"{MAX_EXPRESSION_NODES} nodes"
            raise ExpressionError(f"the expression is larger than {bound}")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return tree


def translate(source: str, *, asset: str, per_row: bool) -> str:
    """The SQL boolean an old `row` (per_row) or `sql_like` expression of `asset` means."""
    return _Translator(asset, per_row).sql(parse_expression(source).body)


class _Translator:
    def __init__(self, asset: str, per_row: bool) -> None:
        self.asset = asset
        self.per_row = per_row
        self.in_aggregate = False

    def sql(self, node: ast.AST) -> str:
        path = dotted(node)
        if path is not None:
            return self.path(path)
        if isinstance(node, ast.Constant):
            if not (node.value is None or isinstance(node.value, (bool, int, float, str))):
                raise ExpressionError(f"the constant {node.value!r} is not allowed in a check expression")
            return literal(node.value)
        if isinstance(node, (ast.List, ast.Tuple)):
            return f"row({', '.join(self.sql(e) for e in node.elts)})"
        if isinstance(node, ast.UnaryOp):
            operand = self.sql(node.operand)
            if isinstance(node.op, ast.Not):
                return f"(({operand}) IS NOT TRUE)"
            if isinstance(node.op, (ast.USub, ast.UAdd)):
                return f"({'-' if isinstance(node.op, ast.USub) else '+'}{operand})"
            raise ExpressionError(f"{type(node.op).__name__} is not allowed in a check expression")
        if isinstance(node, ast.BoolOp):
            joiner = " AND " if isinstance(node.op, ast.And) else " OR "
            return "(" + joiner.join(f"({self.sql(v)})" for v in node.values) + ")"
        if isinstance(node, ast.BinOp):
            left, right = self.sql(node.left), self.sql(node.right)
            if isinstance(node.op, ast.Div):
                return f"safe_divide({left}, {right})"
            if type(node.op) in _ARITH:
                return f"({left} {_ARITH[type(node.op)]} {right})"
            raise ExpressionError(f"{type(node.op).__name__} is not allowed in a check expression")
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            return self.call(node.func.id, node.args)
        raise ExpressionError(f"{type(node).__name__} is not allowed in a check expression")

    def path(self, path: str) -> str:
        if "__" in path:
            raise ExpressionError("only column paths like `metadata.engine` may use dots")
        if self.per_row or self.in_aggregate:
            return column_sql(path)
        known = METRICS.get(self.asset, {})
        if path not in known:
            raise ExpressionError(f"unknown metric {path!r} (known: {sorted(known)}); use it in an aggregate")
        return quote(path)

    def compare(self, node: ast.Compare) -> str:
        parts, left = [], node.left
        for op, right in zip(node.ops, node.comparators, strict=True):
            parts.append(self.comparison(op, left, right))
            left = right
        return parts[0] if len(parts) == 1 else "(" + " AND ".join(parts) + ")"

    def comparison(self, op: ast.cmpop, left_node: ast.expr, right_node: ast.expr) -> str:
        left, right = self.sql(left_node), self.sql(right_node)
        if isinstance(op, (ast.Eq, ast.Is)):
            return f"({left} IS NOT DISTINCT FROM {right})"
        if isinstance(op, (ast.NotEq, ast.IsNot)):
            return f"({left} IS DISTINCT FROM {right})"
        if type(op) in _ORDERING:
            # An unknown value satisfies no ordering (false, where SQL says null).
            return f"coalesce({left} {_ORDERING[type(op)]} {right}, false)"
        if isinstance(op, (ast.In, ast.NotIn)):
            negate = "NOT " if isinstance(op, ast.NotIn) else ""
            if isinstance(right_node, (ast.List, ast.Tuple)):
                items = ", ".join(self.sql(e) for e in right_node.elts) or "NULL"
                return f"coalesce({left} {negate}IN ({items}), {'true' if negate else 'false'})"
            return f"({negate}coalesce(contains({right}, {left}), false))"
        raise ExpressionError(f"{type(op).__name__} is not allowed in a check expression")

    def call(self, name: str, args: list[ast.expr]) -> str:
        if name in SCALARS:
            return f"{SCALARS[name]}({', '.join(self.sql(a) for a in args)})"
        if name not in AGGREGATES:
            known = sorted(AGGREGATES | set(SCALARS) | {"col"})
            raise ExpressionError(f"unknown function {name!r} (allowed: {known})")
        if self.per_row or self.in_aggregate:
            raise ExpressionError(f"{name}() cannot be used {'per row' if self.per_row else 'inside an aggregate'}")
        if len(args) != 1 and not (name == "count" and not args):
            raise ExpressionError(f"{name}() takes one argument")
        self.in_aggregate = True
        try:
            inner = self.sql(args[0]) if args else "*"
        finally:
            self.in_aggregate = False
        aggregate = {
            "count": f"count({inner})",
            "count_if": f"count_if(coalesce({inner}, false))",
            "share": f"safe_divide(count_if(coalesce({inner}, false)), count(*))",
            "sum": f"coalesce(sum({inner}), 0)",
            "mean": f"avg({inner})",
            "min": f"min({inner})",
            "max": f"max({inner})",
            "count_distinct": f"count(DISTINCT {inner})",
        }[name]
        return f"(SELECT {aggregate} FROM {quote(self.asset)})"
