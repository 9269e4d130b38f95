"""The child process that opens untrusted PDF bytes (child), the parent's side (parent), spares and memory caps."""
