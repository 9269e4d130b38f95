"""The shipped YAML data tests; the build maps this folder to the package ocr_pipeline.checks.dbt_like_checks."""

# A regular package, not a bare folder: setuptools' editable install maps only regular packages to another folder,
# and importlib.resources then finds these files in the checkout as it finds the wheel's copy when installed.
