"""Claude Code's hooks: the policy (judge one proposed memory write; what Stop and SessionStart
say), judging a write from the root's kept answer, the session's baseline, and installing the hooks.

Beside :mod:`memtui.core.verbs` (neither imports the other).  Every hook is a new process, so the
face loads nothing and the modules defer what a hook's answer may not need.
"""

__all__ = ["install", "judge", "policy", "session"]
