"""The model: the snapshot of a memory root and its parts — files, frontmatter, the index with its
lines, edits and marks — the changesets that change it, the journal's record format, the folders
memtui uses outside a memory root (:mod:`.places`), and the small tools they are made of (safe
paths, the folder walk, words, line diffs, Claude Code's settings).

The lowest layer of the core: it imports nothing else of memtui.  Every package above may use the
modules named in ``__all__``; :mod:`.linediff` is the changesets' own.  The face loads nothing: the
hooks import one small module of it before deciding anything.
"""

__all__ = ["changeset", "claude_settings", "folder_docs", "frontmatter", "gcpause", "handoff_state", "index",
           "index_edit", "index_read", "index_marks", "journal", "lazyfiles", "places", "safepath", "search_text",
           "snapshot", "standing", "walk", "words"]
