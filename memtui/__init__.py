"""memtui: triage the file memory that coding agents keep between sessions."""

from __future__ import annotations

__version__ = "0.1.0"
