"""Every threshold object is frozen, documents each field in one line ("unit: meaning"; a flag: its meaning) and
checks its values when built, so a variant made with dataclasses.replace fails where it is made."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from ocr_pipeline.layout.column_params import COLUMN_PARAMS
from ocr_pipeline.layout.furniture_params import FURNITURE_PARAMS
from ocr_pipeline.layout.layout_params import LAYOUT_PARAMS
from ocr_pipeline.layout.page_reader import SCAN_PAGE, TEXT_LAYER_PAGE
from ocr_pipeline.layout.param_fields import doc_field, field_docs
from ocr_pipeline.layout.scan_params import SCAN_PARAMS
from ocr_pipeline.layout.table_params import FOOTNOTE_PARAMS, TABLE_PARAMS
from ocr_pipeline.textlayer.math.math_params import MATH_PARAMS
from ocr_pipeline.textlayer.reading_params import READING_PARAMS
from ocr_pipeline.textlayer.textlayer_params import TEXT_LAYER_PARAMS

PARAMS = [
    COLUMN_PARAMS,
    SCAN_PARAMS,
    TEXT_LAYER_PAGE,
    SCAN_PAGE,
    FURNITURE_PARAMS,
    TABLE_PARAMS,
    FOOTNOTE_PARAMS,
    TEXT_LAYER_PARAMS,
    MATH_PARAMS,
    LAYOUT_PARAMS,
    READING_PARAMS,
]


@pytest.mark.parametrize("params", PARAMS, ids=lambda p: type(p).__name__)
def test_every_field_has_a_one_line_doc(params: Any) -> None:
    docs = field_docs(params)
    assert docs and all(doc.strip() and "\n" not in doc for doc in docs.values())
    for f in dataclasses.fields(params):
        # A number has a unit before its meaning; a flag is its meaning alone.
        if not isinstance(getattr(params, f.name), bool):
            assert ": " in docs[f.name], (f.name, docs[f.name])


@pytest.mark.parametrize("params", PARAMS, ids=lambda p: type(p).__name__)
def test_params_are_frozen(params: Any) -> None:
    name = dataclasses.fields(params)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(params, name, 0)


def test_the_bundles_hold_the_documented_defaults() -> None:
    assert READING_PARAMS.layout is LAYOUT_PARAMS and READING_PARAMS.math is MATH_PARAMS
    assert READING_PARAMS.text_layer is TEXT_LAYER_PARAMS and READING_PARAMS.layout_model
    parts = (LAYOUT_PARAMS.columns, LAYOUT_PARAMS.furniture, LAYOUT_PARAMS.tables, LAYOUT_PARAMS.footnotes)
    assert parts == (COLUMN_PARAMS, FURNITURE_PARAMS, TABLE_PARAMS, FOOTNOTE_PARAMS)
    assert LAYOUT_PARAMS.scan is SCAN_PARAMS


@pytest.mark.parametrize(
    ("params", "change", "why"),
    [
        (FURNITURE_PARAMS, {"band_share": 1.5}, "a share lies within 0..1"),
        (FURNITURE_PARAMS, {"apart_heights": -1.0}, "a finite number, 0 or more"),
        (COLUMN_PARAMS, {"upright_heights": float("nan")}, "a finite number, 0 or more"),
        (FURNITURE_PARAMS, {"place_share": 0.0}, "must be above 0"),
        (FURNITURE_PARAMS, {"small_share": 0.9, "title_share": 0.8}, "small_share (0.9) is above title_share (0.8)"),
        (FOOTNOTE_PARAMS, {"min_gap_heights": 4.0}, "min_gap_heights (4.0) is above max_gap_heights (3.0)"),
        (TEXT_LAYER_PARAMS, {"vowel_share_range": (0.6, 0.27)}, "a range runs from low to high"),
        (TEXT_LAYER_PARAMS, {"vowel_share_range": (0.2, 1.5)}, "a share lies within 0..1"),
        (TABLE_PARAMS, {"min_plain_rows": 2.5}, "an int"),
        (TEXT_LAYER_PAGE, {"footnotes": 1}, "a bool"),
        (MATH_PARAMS, {"inline": "some"}, "one of stacked, all, none"),
        (LAYOUT_PARAMS, {"columns": FURNITURE_PARAMS}, "a ColumnParams"),
        (READING_PARAMS, {"layout_model": "yes"}, "a bool"),
    ],
)
def test_a_variant_out_of_range_is_refused_where_it_is_made(params: Any, change: dict[str, Any], why: str) -> None:
    with pytest.raises(ValueError, match=why.replace("(", r"\(").replace(")", r"\)")):
        dataclasses.replace(params, **change)


def test_a_variant_in_range_is_made() -> None:
    strict = dataclasses.replace(LAYOUT_PARAMS, furniture=dataclasses.replace(FURNITURE_PARAMS, band_share=0.08))
    assert strict.furniture.band_share == 0.08 and LAYOUT_PARAMS.furniture.band_share == 0.1


def test_doc_field_keeps_default_and_doc() -> None:
    @dataclasses.dataclass(frozen=True)
    class Example:
        width: float = doc_field(0.5, "page width share: an example")

    assert Example().width == 0.5
    assert field_docs(Example) == {"width": "page width share: an example"}
