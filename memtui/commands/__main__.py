"""``python -m memtui.commands`` prints the README's key table."""

from __future__ import annotations

from memtui.commands.registry import key_table_markdown

print(key_table_markdown())
