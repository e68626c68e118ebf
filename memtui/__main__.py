"""``python -m memtui``."""

from __future__ import annotations

from memtui.cli.main import main

raise SystemExit(main())
