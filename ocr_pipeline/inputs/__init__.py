"""What the user points at: input specs, local and S3 listings, archives, and fetching an input to a local file."""
