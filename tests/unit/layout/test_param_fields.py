"""Every threshold object is frozen and documents each field in one line: "unit: meaning" (a flag: its meaning)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from ocr_pipeline.layout.column_params import COLUMN_PARAMS
from ocr_pipeline.layout.furniture_params import FURNITURE_PARAMS
from ocr_pipeline.layout.page_reader import SCAN_PAGE, TEXT_LAYER_PAGE
from ocr_pipeline.layout.param_fields import doc_field, field_docs
from ocr_pipeline.layout.scan_params import SCAN_PARAMS
from ocr_pipeline.layout.table_params import FOOTNOTE_PARAMS, TABLE_PARAMS
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


def test_doc_field_keeps_default_and_doc() -> None:
    @dataclasses.dataclass(frozen=True)
    class Example:
        width: float = doc_field(0.5, "page width share: an example")

    assert Example().width == 0.5
    assert field_docs(Example) == {"width": "page width share: an example"}
