"""Helpers shared by the tests, imported by one path: ``tests.support`` — ``roots`` (corpora,
root builders, topic text, the demo), ``writer`` (a valid root, tree snapshots, fault
injection), ``app`` (the app under Pilot), ``usage`` (recorded Claude Code transcripts)."""
