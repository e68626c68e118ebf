"""Index maintenance (DESIGN §4.1): the repair, trim, compact, detail and prose items, and
``rebuild``, which runs them in order; :mod:`.lines` is their shared line toolkit.

Above :mod:`memtui.core.judge` (a trim asks staleness which entries go first).  :mod:`.targets` and
:mod:`.unreachable` are the repair's own.  The face loads nothing; import the modules.
"""

__all__ = ["compact", "detail", "lines", "prose", "rebuild", "repair", "trim", "unreachable"]
