"""The embedded CPU OCR engine: PDF text layer plus RapidOCR, with orientation and reading order."""

from ocr_pipeline.engines.cpu.cpu_engine import CpuEngine
from ocr_pipeline.quality.language_detector import page_language as detect_language

__all__ = ["CpuEngine", "detect_language"]
