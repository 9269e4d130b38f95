"""Reading untrusted PDFs and images: probe, sandbox child, rendering, text layer, olmOCR's filters."""
