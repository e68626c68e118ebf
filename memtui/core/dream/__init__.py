"""Dream (DESIGN §10): one reviewed maintenance pass, planned as items and written as one change.

The top of the core: it may use every package below.  The face loads nothing; import :mod:`.plan`.
"""

__all__ = ["fleet", "plan"]
