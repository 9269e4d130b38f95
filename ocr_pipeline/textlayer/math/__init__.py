"""Formulas in a text layer: finding math glyphs, grouping them in y-up rows and writing LaTeX."""
