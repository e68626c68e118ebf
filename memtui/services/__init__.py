"""The app's thin, typed adapter over :mod:`memtui.core`: workspaces, scores, plans and outcomes.

The app passes a core builder (``Callable[[Snapshot], Changeset]``) and gets a typed ``Plan`` /
``Outcome`` back (:mod:`.writer`); everything here is plain Python, safe in a worker thread.
"""

from __future__ import annotations
