"""The OCR engines behind one page contract: the embedded CPU engine and the VLM client."""
