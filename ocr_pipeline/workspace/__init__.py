"""Where outputs live: local and S3 storage, workspace keys, Parquet/JSONL tables, the ledger and the page memo."""
