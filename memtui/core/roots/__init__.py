"""Finding memory roots on this machine: a given path, the current folder, Claude Code's
per-project and agent folders, the usual places under a git work tree.

Above :mod:`memtui.core.stores`: a long walk keeps its answer in the user's cache folder.  The face
loads nothing; import the module.
"""

__all__ = ["discover", "machine"]
