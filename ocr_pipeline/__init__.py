"""ocr-pipeline."""
