"""A small safe expression language for `expression` tests: parsed with `ast`, never handed to eval().

Allowed: numbers, strings, True/False/None, lists; + - * / // %; comparisons (also `in`, `is`); and/or/not;
names and dotted names (`metadata.engine`) or `col("metadata.Source-File")` for any column path; scalar
functions len, strip, lower, abs, round, coalesce; and aggregates over the partition's rows: count(),
count(x) (non-null), count_if(p), share(p), sum(x), mean(x), min(x), max(x), count_distinct(x).
Outside an aggregate a bare name is one of the dataset's metrics (`pages`, `fallback_pages`, ...).
Division by zero gives 0 for 0/0 and infinity otherwise, so an empty partition passes a rate bound.
Sizes are bounded, so no check can exhaust the machine: the expression's length, depth and node count when it
loads; `**` and `%` on strings are not in the language; a repetition (`'x' * n`, `[0] * n`), a product of
integers or `round`'s digits that would grow past a bound is an ExpressionError (a failed check) when it runs.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping
from typing import Any

from ocr_pipeline.checks.paths import get_path

# A check is a one-liner: none needs more, and an expression within these cannot make the parser or the
# validator recurse out of the stack.
MAX_EXPRESSION_CHARS = 2_000
MAX_EXPRESSION_DEPTH = 100
MAX_EXPRESSION_NODES = 500
# What evaluation may build: characters or items of one repeated sequence, bits of an integer product.
MAX_SEQUENCE_LENGTH = 1_000_000
MAX_INT_BITS = 4_096
MAX_ROUND_DIGITS = 100

AGGREGATES = {"count", "count_if", "share", "sum", "mean", "min", "max", "count_distinct"}
SCALARS: dict[str, Callable[..., Any]] = {
    "len": lambda x: None if x is None else len(x),
    "strip": lambda x: None if x is None else str(x).strip(),
    "lower": lambda x: None if x is None else str(x).lower(),
    "abs": lambda x: None if x is None else abs(x),
    "round": lambda x, n=0: None if x is None else round(x, _digits(n)),
    "coalesce": lambda *xs: next((x for x in xs if x is not None), None),
}
_ARITH: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Mod: operator.mod,
    ast.FloorDiv: operator.floordiv,
}
_COMPARE: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
}
_ALLOWED = (
    ast.Expression, ast.Constant, ast.Name, ast.Load, ast.Attribute, ast.Call, ast.BinOp, ast.UnaryOp,
    ast.BoolOp, ast.Compare, ast.List, ast.Tuple, ast.And, ast.Or, ast.Not, ast.USub, ast.UAdd, ast.Div,
    *_ARITH, *_COMPARE,
)  # fmt: skip


class ExpressionError(ValueError):
    """An expression outside the allowed language, or one that cannot be evaluated."""


def dotted(node: ast.AST) -> str | None:
    """`a.b.c` for a Name/Attribute chain, or `col("a.b-c")`'s path; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "col"):
        return None
    if len(node.args) == 1 and isinstance(node.args[0], ast.Constant):
        return node.args[0].value if isinstance(node.args[0].value, str) else None
    return None


def parse_expression(source: str, *, per_row: bool) -> ast.Expression:
    """Parse and validate; a per-row expression may not use aggregates; bounded in length, depth and nodes."""
    if len(source) > MAX_EXPRESSION_CHARS:
        raise ExpressionError(f"the expression is {len(source)} characters, more than {MAX_EXPRESSION_CHARS}")
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"cannot parse {source[:80]!r}: {exc.msg}") from exc
    except (RecursionError, MemoryError) as exc:
        raise ExpressionError("the expression is nested too deeply") from exc
    _check_size(tree)
    _validate(tree.body, per_row=per_row, in_aggregate=per_row)
    return tree


def _check_size(tree: ast.AST) -> None:
    """Refuse trees too deep or too large, walking without recursion (so the check itself cannot overflow)."""
    stack, nodes = [(tree, 0)], 0
    while stack:
        node, depth = stack.pop()
        nodes += 1
        if depth > MAX_EXPRESSION_DEPTH or nodes > MAX_EXPRESSION_NODES:
            deep = depth > MAX_EXPRESSION_DEPTH
            bound = f"{MAX_EXPRESSION_DEPTH} levels deep" if deep else f"{MAX_EXPRESSION_NODES} nodes"
            raise ExpressionError(f"the expression is larger than {bound}")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _digits(n: Any) -> int:
    digits = int(n)
    if abs(digits) > MAX_ROUND_DIGITS:
        raise ExpressionError(f"round() to {digits} digits: at most {MAX_ROUND_DIGITS} either way")
    return digits


def _arith(op: ast.operator, left: Any, right: Any) -> Any:
    """`left op right`, refusing what would build a huge value before building it."""
    if isinstance(op, ast.Mod) and isinstance(left, (str, bytes)):
        raise ExpressionError("`%` formatting of strings is not allowed in a check expression")
    if isinstance(op, ast.Mult):
        for seq, times in ((left, right), (right, left)):
            repeated = isinstance(seq, (str, bytes, list, tuple)) and isinstance(times, int)
            if repeated and len(seq) * max(times, 0) > MAX_SEQUENCE_LENGTH:
                raise ExpressionError(f"a repetition longer than {MAX_SEQUENCE_LENGTH} items or characters")
        if isinstance(left, int) and isinstance(right, int) and left.bit_length() + right.bit_length() > MAX_INT_BITS:
            raise ExpressionError(f"an integer product of more than {MAX_INT_BITS} bits")
    return _ARITH[type(op)](left, right)


def _validate(node: ast.AST, *, per_row: bool, in_aggregate: bool) -> None:
    if not isinstance(node, _ALLOWED):
        raise ExpressionError(f"{type(node).__name__} is not allowed in a check expression")
    if isinstance(node, ast.Call):
        if dotted(node) is not None:
            return
        if not isinstance(node.func, ast.Name) or node.keywords:
            raise ExpressionError("only plain calls of the listed functions are allowed")
        name = node.func.id
        if name in AGGREGATES:
            if per_row or in_aggregate:
                raise ExpressionError(f"{name}() cannot be used {'per row' if per_row else 'inside an aggregate'}")
            if len(node.args) != 1 and not (name == "count" and not node.args):
                raise ExpressionError(f"{name}() takes one argument")
            for arg in node.args:
                _validate(arg, per_row=per_row, in_aggregate=True)
            return
        if name not in SCALARS:
            raise ExpressionError(f"unknown function {name!r} (allowed: {sorted(AGGREGATES | set(SCALARS) | {'col'})})")
    elif isinstance(node, (ast.Attribute, ast.Name)):
        path = dotted(node)
        # Paths are looked up as dict keys, never as attributes; dunder names are refused all the same.
        if path is None or "__" in path:
            raise ExpressionError("only column paths like `metadata.engine` may use dots")
    for child in ast.iter_child_nodes(node):
        if isinstance(node, ast.Attribute):
            break
        _validate(child, per_row=per_row, in_aggregate=in_aggregate)


def _divide(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return None
    if b == 0:
        return 0.0 if a == 0 else math.inf
    return a / b


class Evaluator:
    """Evaluates a parsed expression over rows (aggregates) with metrics for bare names."""

    def __init__(self, rows: list[dict[str, Any]], metrics: Mapping[str, Callable[[], Any]]) -> None:
        self.rows = rows
        self.metrics = metrics

    def value(self, tree: ast.Expression) -> Any:
        """The expression's value for the whole partition."""
        return self._eval(tree.body, None)

    def row_value(self, tree: ast.Expression, row: dict[str, Any]) -> Any:
        """The expression's value for one row (names are that row's columns)."""
        return self._eval(tree.body, row)

    def _eval(self, node: ast.AST, row: dict[str, Any] | None) -> Any:
        path = dotted(node)
        if path is not None:
            if row is not None:
                return get_path(row, path)
            if path not in self.metrics:
                raise ExpressionError(
                    f"unknown metric {path!r} (known: {sorted(self.metrics)}); use it in an aggregate"
                )
            return self.metrics[path]()
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.List, ast.Tuple)):
            return [self._eval(e, row) for e in node.elts]
        if isinstance(node, ast.UnaryOp):
            operand = self._eval(node.operand, row)
            if isinstance(node.op, ast.Not):
                return not operand
            return None if operand is None else (-operand if isinstance(node.op, ast.USub) else +operand)
        if isinstance(node, ast.BoolOp):
            values = (self._eval(v, row) for v in node.values)
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.BinOp):
            left, right = self._eval(node.left, row), self._eval(node.right, row)
            if isinstance(node.op, ast.Div):
                return _divide(left, right)
            return None if left is None or right is None else _arith(node.op, left, right)
        if isinstance(node, ast.Compare):
            return self._compare(node, row)
        if isinstance(node, ast.Call):
            assert isinstance(node.func, ast.Name)
            if node.func.id in AGGREGATES:
                return self._aggregate(node.func.id, node.args)
            return SCALARS[node.func.id](*(self._eval(a, row) for a in node.args))
        raise ExpressionError(f"cannot evaluate {ast.dump(node)}")

    def _compare(self, node: ast.Compare, row: dict[str, Any] | None) -> bool:
        left = self._eval(node.left, row)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = self._eval(right_node, row)
            ordering = isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE))
            # An unknown value satisfies no ordering (as in SQL), instead of raising TypeError.
            if ordering and (left is None or right is None):
                return False
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True

    def _aggregate(self, name: str, args: list[ast.expr]) -> Any:
        if name == "count" and not args:
            return len(self.rows)
        values = [self._eval(args[0], row) for row in self.rows]
        present = [v for v in values if v is not None]
        if name == "count":
            return len(present)
        if name in {"count_if", "share"}:
            hits = sum(1 for v in values if v)
            return hits if name == "count_if" else _divide(hits, len(values))
        if name == "count_distinct":
            return len({repr(v) for v in present})
        if name == "sum":
            return sum(present)
        if not present:
            return None
        if name == "mean":
            return sum(present) / len(present)
        return min(present) if name == "min" else max(present)
