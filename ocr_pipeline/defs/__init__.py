"""Dagster definitions: a thin layer wiring the pure stages in ocr_pipeline/stages as assets."""
