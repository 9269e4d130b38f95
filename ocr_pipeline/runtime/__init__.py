"""What the package's long-lived processes do for their host: give freed memory back (heap.py)."""
