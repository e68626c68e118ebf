"""The app's adapter over :mod:`memtui.core`: what screens ask for, whichever core pieces exist.

Screens and widgets import from here, never from the core directly, so a core module that is not
there yet (staleness, consolidation, the writer) shows up as "not available" instead of an error.
Everything here is plain Python and safe to call from a worker thread.
"""

from __future__ import annotations
