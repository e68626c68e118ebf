"""The changes a person asks for, each a pure function from a snapshot to a changeset: the
lifecycle verbs, bulk, merge, promotion across layers, quick and group fixes, reverting an outside
change, the ``$EDITOR`` round trip.

Beside :mod:`memtui.core.hooks` (neither imports the other), above :mod:`memtui.core.tidy`.  The face
loads nothing; import the modules.
"""

__all__ = ["bulk", "editor", "group_fix", "lifecycle", "merge", "promote", "quickfix", "review"]
