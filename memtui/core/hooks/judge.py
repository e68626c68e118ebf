"""Judging one memory write for the PreToolUse hook: from the root's kept answer when it can be
trusted, else by the full replay over the whole root — the same verdict either way.

:func:`judge_full` is the replay :func:`memtui.core.hooks.policy.judge_write` always did: the whole
root read through its stat cache, validated, the write played on it.  It leaves the root's kept
answer (:mod:`memtui.core.stores.kept`) for the next write.  :func:`judge_kept` judges from that kept
answer, reading the listing, the indexes, the files judged writes named since, and the few files
the write can affect.

The quick run trusts the files no judged write named to be as they were kept (a shell or an
editor rewriting one in place is seen by the next verified run).  A verdict such a file could
change is judged again on a *verified* run, which checks every file's stat key as a warm
``validate`` does: a deny (its reason may say an error was "already there" in another file), a
write that brings a ``superseded_by`` (a cycle runs through other files), and the session's
first call (its baseline is every error of the root).

Both leave a line in the root's dirty log (:func:`memtui.core.stores.kept.mark_dirty`): the write lands
after the answer, and the next run must look at that file again.  A quick run keeps what it read
again, and an allowed write as it will land, as a patch of the kept answer
(:func:`memtui.core.stores.kept.keep_patch`); a verified run keeps a whole new answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path

from ..model.frontmatter import parse_frontmatter
from ..model.snapshot import INDEX_NAME
from ..read.store import list_root
from ..rules.incremental import findings_cache
from ..stores.kept import Stale, current, keep, keep_current, keep_patch, mark_dirty
from ..stores.statcache import StatCache
from . import policy as hooks
from .policy import HookVerdict, current_text, empty_snapshot, proposed_text

Clock = Callable[[], int]


class NoKept(Exception):
    """The root's kept answer cannot be used for this write: judge it in full."""


def needs_verifying(verdict: HookVerdict, rel: str, after: str, baseline_needed: bool) -> bool:
    """Whether a quick run's verdict may depend on files the quick run trusts unread."""
    if verdict.decision != "allow" or baseline_needed:
        return True
    return rel != INDEX_NAME and bool(parse_frontmatter(after).names("superseded_by"))


def judge_kept(root: str | Path, rel: str, tool: str, tool_input: Mapping[str, object], *,
               baseline_needed: bool, clock: Clock = time.time_ns) -> HookVerdict | None:
    """The verdict from the root's kept answer, or None for an edit Claude Code refuses itself;
    raises :class:`NoKept` when there is no kept answer to use (or a file it trusted changed:
    :class:`memtui.core.stores.kept.Stale`), and :class:`memtui.core.hooks.policy.HookInputError`."""
    cache = StatCache.open(root, clock, read=False)  # where the kept answer is
    try:
        for verify in (False, True):
            now = current(root, verify=verify, cache=cache)
            if now is None:
                raise NoKept(str(root))
            after = proposed_text(tool, tool_input, current_text(now.snapshot, rel))
            if after is None:
                return None
            verdict = hooks.judge_write(now.snapshot, rel, after, tool, now.found)
            if now.verified or not needs_verifying(verdict, rel, after, baseline_needed):
                if now.verified:
                    keep_current(cache, now)
                else:  # what it read again, and the write as it will land, are not read next time
                    keep_patch(cache, now, rel if verdict.decision == "allow" else None,
                               verdict.landed)
                if not mark_dirty(cache, rel):
                    raise NoKept(str(root))
                return verdict
    except Stale as exc:
        raise NoKept(str(exc)) from None
    raise NoKept(str(root))  # pragma: no cover - the loop returns


def judge_full(root: str | Path, rel: str, tool: str, tool_input: Mapping[str, object], *,
               clock: Clock = time.time_ns) -> HookVerdict | None:
    """The verdict from the whole root read through its stat cache (which keeps the answer for
    the next write), or None for an edit Claude Code refuses itself.  Raises
    :class:`memtui.core.read.store.RootError` and :class:`memtui.core.hooks.policy.HookInputError`."""
    if not Path(root).exists() and not Path(root).is_symlink():
        snapshot = empty_snapshot(Path(root))
        after = proposed_text(tool, tool_input, current_text(snapshot, rel))
        return None if after is None else hooks.judge_write(snapshot, rel, after, tool)
    cache = StatCache.open(root, clock)  # unchanged files are not parsed again
    listing = list_root(root)
    snapshot = cache.load(listing)
    after = proposed_text(tool, tool_input, current_text(snapshot, rel))
    if after is None:
        return None  # Claude Code refuses this edit itself (old_string not found, ambiguous)
    found = findings_cache(snapshot)
    verdict = hooks.judge_write(snapshot, rel, after, tool, found)
    cache.save()  # in the user's cache folder, never in the memory folder
    keep(cache, listing, snapshot, found, cache.used.get)
    mark_dirty(cache, rel)
    return verdict
