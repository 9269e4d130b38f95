"""Page geometry shared by text layers and scans: boxes, rows, columns, reading order, furniture, tables, notes.

Nothing here knows where a box came from (a PDF's text layer or an OCR detector); the import-linter contracts in
pyproject.toml keep PDF, the text-layer reader and the engines out.
"""
