"""Reading one memory root: the loader, the handoff state beside it, the project it talks about and
the references its bodies make, the bundled demo, the user's config file.

Above :mod:`memtui.core.model` only.  The face loads nothing; import the modules.
"""

__all__ = ["demo", "handoff", "project", "project_find", "references", "store", "user_config"]
