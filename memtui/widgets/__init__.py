"""The widgets of the app, one per file; none of them writes to disk."""
