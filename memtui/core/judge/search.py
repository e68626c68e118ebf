"""Searching memory for the agent's ``memory_search``: ranked hits over title, description, hook
and body, each saying why it matched and whether it loads at session start.

One function, :func:`search` (query, roots, limit → :class:`Hit`), so a better engine can take
its place behind the same signature (DESIGN §14's full-text index in the cache folder): the
callers only read hits.  This one is simple and exact — no index, a pass over the snapshots the
caller already holds:

- the query is case-folded (``str.casefold``, so ``Straße`` finds ``STRASSE``) and split into
  terms at white space (a ``"quoted phrase"`` is one term); a file matches when every term occurs
  as a substring of its title, description, index hook or body (so a CJK term needs no word
  breaks, and ``deploy`` finds ``deploys``);
- each term scores by where it was found — title 8, hook 4, description 4, file name 3, or, when
  none of those holds it, body 1 (plus up to 2 more for repeats in the body), so a score does not
  depend on the order of the terms — and a file matching the whole query as one phrase gets 5 more;
- an archived or superseded note's score is halved (what no longer holds comes after what does);
- ties go to a file that loads at session start, then to the shorter path.

Archived and superseded files are found too (the agent may be looking for what became of a
note) and say so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from ..model.snapshot import LineKind, MemoryFile, Snapshot
from ..rules.budget import budget_of, lines_past_cut

WEIGHTS = (("title", 8), ("hook", 4), ("description", 4), ("name", 3), ("body", 1))
PHRASE_BONUS = 5
RETIRED = 0.5  # an archived or superseded note's score is halved
SNIPPET = 100  # characters of body around the first match

#: where a hit stands at session start
LOADS = "loads at session start"  # a direct entry in the part of MEMORY.md that loads
PAST_CUT = "listed past the loader's cut (not loaded)"
REGION = "reachable by a region pointer (not loaded: found by grep)"
ARCHIVED = "archived (not loaded)"
SUPERSEDED = "superseded (not loaded)"
UNREACHED = "not reachable from MEMORY.md"


@dataclass(frozen=True)
class Hit:
    """One file the query found."""

    root: str  # the root's path
    path: str  # root-relative
    title: str
    hook: str  # the entry's hook in MEMORY.md (else the archive index's, else the description)
    why: tuple[str, ...]  # where each term matched: "title: 'deploy'", "body: …snippet…"
    loads: bool  # a direct entry that loads at session start
    standing: str  # one of LOADS, PAST_CUT, REGION, ARCHIVED, SUPERSEDED, UNREACHED
    score: float


_TERMS = re.compile(r'"([^"]+)"|(\S+)')


def terms_of(query: str) -> list[str]:
    """The query's terms, case-folded: words, and ``"quoted phrases"`` kept whole."""
    return [(a or b).casefold() for a, b in _TERMS.findall(query) if (a or b).strip()]


class _Standing:
    """Where each file of one root stands at session start (computed once a search)."""

    def __init__(self, snapshot: Snapshot) -> None:
        index = snapshot.index
        past = {line.number for line in lines_past_cut(index, budget_of(snapshot))} if index.exists else set()
        self.loaded: dict[str, str] = {}
        self.past: dict[str, str] = {}
        for line in index.entries:
            if line.resolved is None:
                continue
            (self.past if line.number in past else self.loaded).setdefault(line.resolved, line.hook)
        self.archive: dict[str, str] = {}
        for line in snapshot.archive_index.lines:
            if line.kind is LineKind.ENTRY and line.resolved is not None:
                self.archive.setdefault(line.resolved, line.hook)
        self.globs = [re.compile(_glob_regex(line.glob)) for line in index.regions
                      if line.number not in past and line.glob]

    def hook(self, f: MemoryFile) -> str:
        """The hook :meth:`of` gives, without matching the region globs (a file a region reaches
        has no hook of its own; one also listed in the archive index keeps that hook here)."""
        path = f.path
        hook = self.loaded.get(path)
        if hook is not None:
            return hook
        if path not in self.past and path not in self.archive:  # most of a large root
            return ""
        if f.archived or f.status == "archived":
            return self.archive.get(path, "")
        return self.past.get(path) or self.archive.get(path, "")

    def of(self, f: MemoryFile) -> tuple[str, str]:
        """(standing, hook) of a file."""
        if f.path in self.loaded:
            return LOADS, self.loaded[f.path]
        if f.archived or f.status == "archived":
            return ARCHIVED, self.archive.get(f.path, "")
        if f.status == "superseded" or f.frontmatter.names("superseded_by"):
            return SUPERSEDED, self.past.get(f.path) or self.archive.get(f.path, "")
        if f.path in self.past:
            return PAST_CUT, self.past[f.path]
        name = f.path.rsplit("/", 1)[-1]
        if any(g.fullmatch(name) for g in self.globs):
            return REGION, ""
        if f.path in self.archive:
            return ARCHIVED, self.archive[f.path]
        return UNREACHED, ""


def _glob_regex(glob: str) -> str:
    return "".join(".*" if ch == "*" else "." if ch == "?" else re.escape(ch) for ch in glob)


def _snippet(text: str, folded: str, term: str) -> str:
    """The body around the first place ``term`` occurs, on one line."""
    at = folded.find(term)
    if at < 0 or len(folded) != len(text):  # casefold changed the length: no offsets to trust
        return term
    start = max(0, at - SNIPPET // 2)
    piece = " ".join(text[start: at + len(term) + SNIPPET // 2].split())
    return ("…" if start else "") + piece + ("…" if at + len(term) + SNIPPET // 2 < len(text) else "")


class Folded:
    """Case-folded titles, descriptions, names and bodies kept between searches (a caller that
    keeps its roots loaded keeps one): a file is folded again only when the snapshot holds
    another object for its path."""

    def __init__(self) -> None:
        #: per root: path -> (file, title, description, file name, body or None until asked)
        self._kept: dict[str, dict[str, tuple[MemoryFile, str, str, str, str | None]]] = {}

    def _of(self, root: str) -> dict[str, tuple[MemoryFile, str, str, str, str | None]]:
        return self._kept.setdefault(root, {})

    @staticmethod
    def _fold(f: MemoryFile) -> tuple[MemoryFile, str, str, str, str | None]:
        return f, f.title.casefold(), f.description.casefold(), f.path.rsplit("/", 1)[-1].casefold(), None

    def fields(self, root: str, f: MemoryFile) -> tuple[str, str, str]:
        """(title, description, file name), case-folded."""
        kept = self._of(root)
        got = kept.get(f.path)
        if got is None or got[0] is not f:
            got = kept[f.path] = self._fold(f)
        return got[1], got[2], got[3]

    def body(self, root: str, f: MemoryFile) -> str:
        kept = self._of(root)
        got = kept.get(f.path)
        if got is None or got[0] is not f:
            got = self._fold(f)
        if got[4] is None:
            got = kept[f.path] = (*got[:4], f.body.casefold())
        assert got[4] is not None
        return got[4]


def search(query: str, roots: Sequence[Snapshot], limit: int = 10, *,
           folded: Folded | None = None) -> list[Hit]:
    """The files of ``roots`` that hold every term of ``query``, best first (at most ``limit``);
    ``folded`` keeps the folded texts for the next search."""
    folded = folded if folded is not None else Folded()
    terms = terms_of(query)
    if not terms or limit <= 0:
        return []
    phrase = " ".join(terms) if len(terms) > 1 else None
    scored: list[tuple[float, str, MemoryFile, _Standing, str, tuple[tuple[str, str], ...]]] = []
    fold = Folded._fold
    for snapshot in roots:
        standing = _Standing(snapshot)
        where = str(snapshot.root)
        kept = folded._of(where)
        loaded, past, archive = standing.loaded, standing.past, standing.archive
        for path, f in snapshot.files.items():  # (one step of this loop a file: kept lean)
            hook = loaded.get(path)
            if hook is None:  # (most files of a large root have no entry: no hook)
                hook = standing.hook(f) if path in past or path in archive else ""
            hook = hook.casefold() if hook else ""
            got = kept.get(path)
            if got is None or got[0] is not f:
                got = kept[path] = fold(f)
            _, title, description, name, body = got
            score = 0.0
            why: list[tuple[str, str]] = []  # (where, term): said for the hits shown only
            for term in terms:
                # the fields a term is in, each adding its weight; said by the first of them
                weight, first = 0, ""
                if term in title:
                    weight, first = 8, "title"
                if term in hook:
                    weight, first = weight + 4, first or "hook"
                if term in description:
                    weight, first = weight + 4, first or "description"
                if term in name:
                    weight, first = weight + 3, first or "name"
                if weight:
                    score += weight
                    why.append((first, term))
                    continue
                if body is None:
                    body = f.body.casefold()
                    kept[path] = (f, title, description, name, body)
                count = body.count(term)  # (a term is never empty)
                if not count:
                    score = -1.0
                    break
                score += 1 + min(2, count - 1) * 0.5
                why.append(("body", term))
            if score < 0:
                continue
            if phrase is not None and (phrase in title or phrase in hook or phrase in description
                                       or phrase in name):
                score += PHRASE_BONUS
            scored.append((score, where, f, standing, body or "", tuple(why)))
    # best first: where each hit stands (a few lookups a file) is asked of the best ones only; a
    # score only falls with it (halved when retired), so the walk stops once the best ``limit``
    # already beat the next file's score as found
    scored.sort(key=lambda h: -h[0])
    best: list[tuple[tuple[float, bool, int, str, str], Hit]] = []
    for score, where, f, standing, body, matched in scored:
        if len(best) >= limit and best[limit - 1][0][0] < -score:
            break
        place, hook = standing.of(f)
        final = score * RETIRED if place in (ARCHIVED, SUPERSEDED) else score
        said = tuple(f"{field}: '{term}'" if field != "body" else
                     f"body: {_snippet(f.body, body or folded.body(where, f), term)}" for field, term in matched)
        hit = Hit(where, f.path, f.title, hook or f.description, said, place == LOADS, place, final)
        best.append(((-final, not hit.loads, len(f.path), f.path, where), hit))
        best.sort(key=lambda item: item[0])
        del best[limit:]
    return [hit for _, hit in best]
