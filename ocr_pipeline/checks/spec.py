"""Parse and validate a checks folder: dbt_like_checks/*.yml and the singular tests in tests/*.sql; every error
names its file and line, and every query is bound when it loads (sql_validate.py)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from ocr_pipeline.checks.declared import CHECKED_ASSETS, ChecksConfigError, Suite, TestSpec, check_name
from ocr_pipeline.checks.failure_gate import FailureGate
from ocr_pipeline.checks.legacy_expressions import NEW_FORM, ExpressionError, translate
from ocr_pipeline.checks.singular import load_singular, singular_files
from ocr_pipeline.checks.sql_tables import DATASETS, METRICS_TABLE
from ocr_pipeline.checks.sql_validate import validate_suite

__all__ = ["ChecksConfigError", "Suite", "TestSpec", "check_name", "load_dir", "load_file", "shipped_checks_dir"]

# Keys every test accepts; `max_failing`/`max_failing_rate` are the thresholds of row-level tests.
COMMON = {"name", "severity", "blocking", "description"}
ROW_THRESHOLDS = {"max_failing", "max_failing_rate"}
# Test type -> (required params, optional params, whether it judges rows and so takes row thresholds).
TEST_TYPES: dict[str, tuple[set[str], set[str], bool]] = {
    "unique": ({"column"}, set(), True),
    "not_null": ({"column"}, set(), True),
    "accepted_values": ({"column", "values"}, set(), True),
    "relationships": ({"to"}, {"column", "from"}, True),
    "row_count": (set(), {"min", "max"}, False),
    "expression_is_true": ({"expression"}, {"table", "column"}, True),
    # The old spelling: its `row` or `sql_like` expression is translated to expression_is_true when it loads.
    "expression": (set(), {"sql_like", "row"}, True),
    "page_error_rate": ({"max"}, {"false_alarm"}, False),
    "fallback_rate": ({"max"}, set(), False),
    "language_distribution": ({"expected", "min_share"}, set(), False),
    "degenerate_page_share": ({"max"}, {"false_alarm"}, False),
    "median_text_layer_agreement": ({"min"}, {"min_pages"}, False),
    "dolma_schema": (set(), set(), True),
    "inventory_accounting": (set(), set(), True),
    "pages_match_page_count": (set(), set(), True),
}
# The type of a `.sql` file in tests/: not written in YAML.
SINGULAR = "singular"
COLUMN_TESTS = {"unique", "not_null", "accepted_values", "relationships", "expression_is_true"}


# libyaml's loader where PyYAML has it: the same nodes and line marks, a tenth of the pure-Python loader's time
# (0.6 ms against 7 ms for the shipped files), which is most of what loading the checks cost before their SQL.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Parser:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.loader = _LOADER(path.read_text(encoding="utf-8"))

    def fail(self, node: yaml.Node, message: str) -> ChecksConfigError:
        return ChecksConfigError(f"{self.path}:{node.start_mark.line + 1}: {message}")

    def value(self, node: yaml.Node) -> Any:
        return self.loader.construct_object(node, deep=True)

    def mapping(self, node: yaml.Node, what: str) -> list[tuple[str, yaml.Node]]:
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, f"{what} must be a mapping")
        items = [(self.value(k), v) for k, v in node.value]
        keys = [k for k, _ in items]
        for (key, _), (knode, _) in zip(items, node.value, strict=True):
            if keys.count(key) > 1:
                raise self.fail(knode, f"duplicate key {key!r} in {what}")
        return items

    def parse(self, suite: Suite) -> None:
        try:
            root = self.loader.get_single_node()
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line = mark.line + 1 if mark else 0
            raise ChecksConfigError(f"{self.path}:{line}: invalid YAML: {exc.problem or exc}") from exc
        if root is None:
            return
        for key, node in self.mapping(root, "the file"):
            if key == "version":
                if self.value(node) != 1:
                    raise self.fail(node, "only `version: 1` is known")
            elif key == "assets":
                for asset, body in self.mapping(node, "`assets`"):
                    if asset not in CHECKED_ASSETS:
                        known = ", ".join(sorted(CHECKED_ASSETS))
                        raise self.fail(node, f"unknown or unpartitioned asset {asset!r} (tests attach to: {known})")
                    self.asset(asset, body, suite)
            else:
                raise self.fail(node, f"unknown top-level key {key!r} (expected `version`, `assets`)")

    def asset(self, asset: str, body: yaml.Node, suite: Suite) -> None:
        for key, node in self.mapping(body, f"asset {asset}"):
            if key == "columns":
                for column, tests in self.mapping(node, "`columns`"):
                    for test in self.sequence(tests, f"tests of column {column}"):
                        suite.add(self.test(asset, test, column))
            elif key == "tests":
                for test in self.sequence(node, f"tests of {asset}"):
                    suite.add(self.test(asset, test, None))
            else:
                raise self.fail(node, f"unknown key {key!r} under {asset} (expected `columns`, `tests`)")

    def sequence(self, node: yaml.Node, what: str) -> list[yaml.Node]:
        if not isinstance(node, yaml.SequenceNode):
            raise self.fail(node, f"{what} must be a list")
        return list(node.value)

    def test(self, asset: str, node: yaml.Node, column: str | None) -> TestSpec:
        params: dict[str, Any] = {}
        if isinstance(node, yaml.ScalarNode):
            type_ = str(self.value(node))
        else:
            items = self.mapping(node, "a test")
            if len(items) != 1:
                raise self.fail(node, "a test is `name` or a one-key mapping `name: {params}`")
            ((type_, pnode),) = items
            params = self.value(pnode) if not (isinstance(pnode, yaml.ScalarNode) and pnode.value == "") else {}
            if not isinstance(params, dict):
                raise self.fail(pnode, f"the parameters of {type_!r} must be a mapping")
        if type_ not in TEST_TYPES:
            raise self.fail(node, f"unknown test {type_!r} (known: {', '.join(sorted(TEST_TYPES))})")
        if column is not None:
            if type_ not in COLUMN_TESTS:
                raise self.fail(node, f"{type_!r} is not a column test; put it under `tests:`")
            params = {**params, "column": column}
        return self.validate(asset, type_, params, node)

    def validate(self, asset: str, type_: str, params: dict[str, Any], node: yaml.Node) -> TestSpec:
        required, optional, row_level = TEST_TYPES[type_]
        allowed = required | optional | COMMON | (ROW_THRESHOLDS if row_level else set())
        unknown = sorted(set(params) - allowed)
        if unknown:
            raise self.fail(node, f"{type_}: unknown parameter(s) {unknown} (allowed: {sorted(allowed)})")
        missing = sorted(required - set(params))
        if missing:
            raise self.fail(node, f"{type_}: missing parameter(s) {missing}")
        severity = params.pop("severity", "error")
        blocking = params.pop("blocking", False)
        if severity not in {"warn", "error"}:
            raise self.fail(node, f"severity must be `warn` or `error`, not {severity!r}")
        if not isinstance(blocking, bool):
            raise self.fail(node, "blocking must be true or false")
        if blocking and severity == "warn":
            raise self.fail(node, "a warning cannot block: use `severity: error` with `blocking: true`")
        try:
            self.check_params(type_, params)
        except (ExpressionError, ValueError) as exc:
            raise self.fail(node, f"{type_}: {exc}") from exc
        default = f"{params['column']}_{type_}" if "column" in params else type_
        if type_ == "expression":
            type_, params = "expression_is_true", self.legacy(asset, params, node)
        return TestSpec(
            asset=asset,
            type=type_,
            name=check_name(str(params.pop("name", default))),
            params=params,
            severity=severity,
            blocking=blocking,
            description=str(params.pop("description", "")),
            file=str(self.path),
            line=node.start_mark.line + 1,
        )

    def legacy(self, asset: str, params: dict[str, Any], node: yaml.Node) -> dict[str, Any]:
        """An old `expression` test's parameters as expression_is_true's: its expression translated to SQL."""
        per_row = "row" in params
        source = str(params.pop("row" if per_row else "sql_like"))
        try:
            expression = translate(source, asset=asset, per_row=per_row)
        except ExpressionError as exc:
            raise self.fail(node, f"expression: {exc}; the new form: {NEW_FORM}") from exc
        return {**params, "expression": expression, **({} if per_row else {"table": METRICS_TABLE})}

    @staticmethod
    def check_params(type_: str, params: dict[str, Any]) -> None:
        for key in ("min", "max", "max_failing", "max_failing_rate", "min_share"):
            if key in params and (isinstance(params[key], bool) or not isinstance(params[key], (int, float))):
                raise ValueError(f"`{key}` must be a number")
        if "false_alarm" in params:
            # Built once here so a bad value fails the load with the file and line, not the check at run time.
            FailureGate(float(params.get("max", 0.0)), _number(params["false_alarm"], "false_alarm"))
        pages = params.get("min_pages", 0)
        if isinstance(pages, bool) or not isinstance(pages, int):
            raise ValueError("`min_pages` must be a whole number")
        if type_ == "accepted_values" and not isinstance(params["values"], list):
            raise ValueError("`values` must be a list")
        if type_ == "language_distribution" and not isinstance(params["expected"], list):
            raise ValueError("`expected` must be a list of language codes")
        if type_ == "row_count" and not ({"min", "max"} & set(params)):
            raise ValueError("give `min`, `max` or both")
        if type_ == "relationships":
            if "from" not in params and "column" not in params:
                raise ValueError("give `column` (of this asset) or `from: dataset.column`")
            targets = params["to"] if isinstance(params["to"], list) else [params["to"]]
            for ref in targets + ([params["from"]] if "from" in params else []):
                dataset = str(ref).split(".", 1)[0]
                if dataset not in DATASETS or "." not in str(ref):
                    raise ValueError(f"{ref!r} is not `dataset.column` with a dataset in {sorted(DATASETS)}")
        if type_ == "expression" and ("sql_like" in params) == ("row" in params):
            raise ValueError(f"give exactly one of `sql_like` or `row`; better, the new form: {NEW_FORM}")
        if type_ == "expression_is_true":
            if not isinstance(params["expression"], str) or not params["expression"].strip():
                raise ValueError("`expression` must be a SQL boolean, as text")
            table = params.get("table")
            if table is not None and table not in (*DATASETS, METRICS_TABLE):
                raise ValueError(f"`table` must be one of {[*DATASETS, METRICS_TABLE]}, not {table!r}")


def _number(value: Any, key: str) -> float:
    """A YAML number (not a boolean), or a ValueError naming the parameter."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"`{key}` must be a number")
    return float(value)


def _read(path: Path, suite: Suite) -> None:
    if path.suffix == ".sql":
        suite.add(load_singular(path))
    else:
        _Parser(path).parse(suite)


def load_file(path: Path, suite: Suite | None = None) -> Suite:
    """Parse one YAML file or singular `.sql` test into (or onto) a suite, and bind its queries."""
    suite = suite if suite is not None else Suite()
    added = Suite()
    _read(path, added)
    validate_suite(added)
    for tests in added.tests.values():
        for test in tests:
            suite.add(test)
    return suite


def load_dir(directory: Path) -> Suite:
    """Every `*.yml`/`*.yaml` file of a folder, then its `tests/*.sql`, in name order; a missing folder is an
    error; every query is bound before the suite is returned."""
    if not directory.is_dir():
        raise ChecksConfigError(f"{directory}:0: the checks folder does not exist")
    suite = Suite()
    for path in sorted([*directory.glob("*.yml"), *directory.glob("*.yaml")]):
        _read(path, suite)
    for path in singular_files(directory):
        _read(path, suite)
    validate_suite(suite)
    return suite


def shipped_checks_dir() -> Path:
    """The shipped data tests: the repository's dbt_like_checks/, which the build maps into the package."""
    # importlib.resources, so an installed wheel finds its copy and an editable install the checkout's folder.
    return Path(str(resources.files("ocr_pipeline.checks.dbt_like_checks")))
