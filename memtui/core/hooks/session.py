"""What one Claude Code session found in its memory when it began, so that its Stop hooks block
only for errors the session itself introduced (DESIGN §9).

A session's state is a small JSON file in the user's cache folder
(``<cache>/sessions/<hash of the session id>.json``, never in a memory folder): per memory root,
the error findings it had when the session first looked (its *baseline*, counted by finding key),
and the keys a Stop hook has already blocked for (each error blocks once).  The baseline is taken
at SessionStart (``complete``: a root missing from it is new in this session, so all its errors
are the session's) or, when no SessionStart hook ran, at the session's first hook call (then a
root first seen later gets its baseline then, and cannot block that time).  Team memory
(``team/…``) never counts: it is reported, never blocking.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from .. import write  # the writer's lazy face: a Stop that changes nothing loads none of it
from ..model.places import sessions_dir as sessions_dir
from ..model.snapshot import Finding, in_team

#: a session's state older than this is removed when another is saved
KEEP_SECONDS = 14 * 24 * 3600
ERROR = "error"


def _key(f: Finding) -> str:
    return json.dumps([f.rule, f.path, f.subject], ensure_ascii=False)


def counted_errors(findings: Iterable[Finding]) -> Counter[str]:
    """The error findings that can block, counted by key (team memory left out)."""
    return Counter(_key(f) for f in findings if f.severity == ERROR and not in_team(f.path))


@dataclass
class SessionState:
    """One session's baseline and what its Stop hooks blocked for."""

    session_id: str
    complete: bool = False  # the baseline was taken at SessionStart, for every root
    baseline: dict[str, dict[str, int]] = field(default_factory=dict)
    blocked: dict[str, list[str]] = field(default_factory=dict)
    said: list[str] = field(default_factory=list)  # one-time notes already given (e.g. "ask")
    existed: bool = False  # read from disk (not new)
    dirty: bool = True  # changed since read

    @classmethod
    def path_for(cls, session_id: str) -> Path:
        digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        return sessions_dir() / f"{digest}.json"

    @classmethod
    def load(cls, session_id: str) -> SessionState:
        """The session's state, or a new empty one (``existed`` False)."""
        try:
            data = json.loads(cls.path_for(session_id).read_bytes())
        except (OSError, ValueError):
            return cls(session_id)
        if not isinstance(data, dict) or data.get("session_id") != session_id:
            return cls(session_id)
        baseline = data.get("baseline")
        blocked = data.get("blocked")
        said = data.get("said")
        return cls(
            session_id,
            data.get("complete") is True,
            {str(r): {str(k): int(n) for k, n in v.items()} for r, v in baseline.items()
             if isinstance(v, dict)} if isinstance(baseline, dict) else {},
            {str(r): [str(k) for k in v] for r, v in blocked.items() if isinstance(v, list)}
            if isinstance(blocked, dict) else {},
            [str(s) for s in said] if isinstance(said, list) else [],
            True,
            False,
        )

    def has(self, root: str) -> bool:
        return root in self.baseline

    def take(self, root: str, findings: Iterable[Finding]) -> None:
        """Record a root's baseline (kept if it has one already)."""
        if root not in self.baseline:
            self.baseline[root] = dict(counted_errors(findings))
            self.dirty = True

    def introduced(self, root: str, findings: Iterable[Finding]) -> list[Finding]:
        """The errors of a root beyond its baseline that no Stop hook blocked for yet.

        A root without a baseline: all its errors when the baseline was complete (the root is
        new in this session), else none (its baseline is taken now)."""
        findings = [f for f in findings if f.severity == ERROR and not in_team(f.path)]
        if root not in self.baseline:
            if not self.complete:
                self.take(root, findings)
                return []
            self.baseline[root] = {}
            self.dirty = True
        had = Counter(self.baseline[root])
        done = Counter(self.blocked.get(root, []))
        out = []
        for f in findings:
            key = _key(f)
            if had[key] > 0:
                had[key] -= 1
            elif done[key] > 0:
                done[key] -= 1
            else:
                out.append(f)
        return out

    def mark_blocked(self, root: str, findings: Iterable[Finding]) -> None:
        self.blocked.setdefault(root, []).extend(_key(f) for f in findings)
        self.dirty = True

    def save(self) -> None:
        """Write the state atomically (a temp file, then replace) when it changed; old sessions'
        files go when a new one is first written."""
        if not self.dirty:
            return
        folder = sessions_dir()
        folder.mkdir(parents=True, exist_ok=True)
        data = json.dumps({"session_id": self.session_id, "complete": self.complete,
                           "saved": int(time.time()), "baseline": self.baseline,
                           "blocked": self.blocked, "said": self.said},
                          ensure_ascii=False).encode("utf-8")
        target = self.path_for(self.session_id)
        write.replace_file(os.path.realpath(folder), target.name, data)
        self.dirty = False
        if not self.existed:
            self.existed = True
            _prune(folder)


def _prune(folder: Path) -> None:
    """Remove session states older than :data:`KEEP_SECONDS` (best effort)."""
    cutoff = time.time() - KEEP_SECONDS
    try:
        with os.scandir(folder) as it:
            for entry in it:
                try:
                    if entry.name.endswith(".json") and entry.stat().st_mtime < cutoff:
                        os.unlink(entry.path)
                except OSError:
                    continue
    except OSError:
        return
