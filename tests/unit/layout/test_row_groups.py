"""The one row-grouping primitive: each named rule's band, share and strictness decide which boxes share a row."""

from __future__ import annotations

from ocr_pipeline.layout.boxes import Box
from ocr_pipeline.layout.row_groups import (
    LETTERHEAD_ROW_RULE,
    READING_LINE_RULE,
    TABLE_ROW_RULE,
    group_rows,
)


def _texts(rows: list[list[Box]]) -> list[list[str]]:
    return [[b.text for b in row] for row in rows]


def test_a_union_band_grows_with_a_tall_box_a_median_band_does_not() -> None:
    boxes = [Box(0, 0, 10, 10, "a"), Box(0, 5, 10, 30, "tall"), Box(0, 22, 10, 32, "c")]
    assert _texts(group_rows(boxes, TABLE_ROW_RULE)) == [["a", "tall", "c"]]
    assert _texts(group_rows(boxes, READING_LINE_RULE)) == [["a", "tall"], ["c"]]


def test_a_strict_rule_needs_more_than_the_share() -> None:
    boxes = [Box(0, 0, 10, 10, "a"), Box(20, 5, 30, 15, "half")]  # half of "half" lies in a's row, exactly
    assert _texts(group_rows(boxes, TABLE_ROW_RULE)) == [["a", "half"]]
    assert _texts(group_rows(boxes, LETTERHEAD_ROW_RULE)) == [["a"], ["half"]]


def test_rows_run_top_to_bottom_each_left_to_right() -> None:
    boxes = [Box(50, 20, 60, 30, "d"), Box(40, 0, 50, 10, "b"), Box(0, 1, 10, 11, "a"), Box(0, 20, 10, 30, "c")]
    for rule in (TABLE_ROW_RULE, READING_LINE_RULE, LETTERHEAD_ROW_RULE):
        assert _texts(group_rows(boxes, rule)) == [["a", "b"], ["c", "d"]]
    assert group_rows([], TABLE_ROW_RULE) == []
