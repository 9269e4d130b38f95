"""The model canary: a small shipped olmOCR-Bench-format set every engine and server must pass before a backfill."""
