"""A page's header and footer regions, from the shipped layout model (regions/detector.py) on the rendered page.

The model sees the page image the pipeline renders anyway (its CropBox and /Rotate), or, where no image is made
(a layout read apart from its image), a drawing at about the model's input size; its regions are mapped from
pixels to points on the shown page, the frame the text layer's runs
are placed in (textlayer/page_space.py). A page whose text is read turned (a landscape table across a portrait
sheet) gets no regions: the model saw the page upright, the runs are in another frame. Whether the model is asked at
all is the caller's to say (ReadingParams.layout_model, read by pdf/page_rows.py).
"""

from __future__ import annotations

import numpy as np
import pypdfium2 as pdfium

from ocr_pipeline.layout.boxes import Box
from ocr_pipeline.pdf.render import render_scale
from ocr_pipeline.regions import detector
from ocr_pipeline.settings import MAX_PAGE_PIXELS


def furniture_regions(page: pdfium.PdfPage, shown_frame: bool, drawn: np.ndarray | None = None) -> list[Box]:
    """Header and footer regions of a loaded page in points on the shown page (y down); none when the text is read
    in another frame. `drawn` is the page already rendered (RGB pixels, as shown), if it was."""
    if not shown_frame:
        return []
    width_pt, height_pt = page.get_size()
    if drawn is not None:
        return detector.furniture_boxes(drawn, drawn.shape[1] / max(width_pt, 1e-6))
    # Drawn at about the model's own input size (800 px): a larger drawing would only be shrunk again.
    scale = render_scale(width_pt, height_pt, detector.INPUT_H, MAX_PAGE_PIXELS)
    bitmap = page.render(scale=scale, may_draw_forms=True, rev_byteorder=True)
    try:
        pixels = bitmap.to_numpy()
        if pixels.ndim != 3 or pixels.shape[2] != 3:
            pixels = np.asarray(bitmap.to_pil().convert("RGB"))
        return detector.furniture_boxes(pixels, scale)
    finally:
        bitmap.close()
