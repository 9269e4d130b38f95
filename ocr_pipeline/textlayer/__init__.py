"""Reading a PDF's text layer through pdfium: glyphs, word gaps, small caps, page space, form fields, ruling
lines from path objects, math, and the verdict on whether the layer can be trusted."""
