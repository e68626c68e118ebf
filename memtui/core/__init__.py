"""The domain of memtui: pure Python, no Textual.  Read a root, validate it, change it safely.

Layered packages, highest first; each imports only those below it (``lint-imports`` checks it):

- :mod:`.dream` — the reviewed maintenance pass;
- :mod:`.hooks` and :mod:`.verbs` — Claude Code's hooks; the changes a person asks for (neither
  imports the other);
- :mod:`.tidy` — index maintenance: repair, trim, compact, detail, prose, rebuild;
- :mod:`.judge` — staleness, ages, use, consolidation, contradictions, supersession, layers;
- :mod:`.roots` — finding the memory roots on a machine;
- :mod:`.stores` — memtui's own files: the stat cache, kept answers, the seen store, side files;
- :mod:`.write` — the only writer, sealed behind its face (``attempt()``);
- :mod:`.rules` — the validator and the gate's rules;
- :mod:`.read` — reading one root: the loader, the handoff state, the project, the demo;
- :mod:`.model` — the snapshot and its parts, changesets, the journal's format.

Import the modules (``memtui.core.read.store.load_root``, ``memtui.core.rules.validate.validate``):
no package face but the writer's loads anything, so importing one small module — the Claude Code
hooks import :mod:`memtui.core.model.claude_settings` before deciding anything — does not pay for
the validator.
"""
