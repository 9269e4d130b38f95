"""Synthetic PDFs and scans with known content: what the tests, the benchmarks and scripts/make_canary_set.py build.

Made with reportlab, pypdf and pypdfium2, or written byte by byte where reportlab cannot make the quirk. Nothing
here imports the package under test (an import-linter contract), so the pages a test reads do not bend with the
code it checks; nothing here ships in the wheel.
"""
