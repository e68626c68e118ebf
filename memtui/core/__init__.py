"""The domain of memtui: pure Python, no Textual.  Read a root, validate it, change it safely.

Import from the submodules (``memtui.core.store.load_root``, ``memtui.core.validate.validate``):
the package itself loads nothing, so importing one small submodule — the Claude Code hooks import
:mod:`memtui.core.claude_settings` before deciding anything — does not pay for the validator.
"""
