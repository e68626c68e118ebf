"""Dream (DESIGN §10): one reviewed maintenance pass, planned as items and written as one change.

:func:`plan_dream` reads a snapshot (and the staleness and consolidation results of the public
APIs of :mod:`memtui.core.judge.staleness` and :mod:`memtui.core.judge.consolidate`) and proposes, in order:

1. ``history`` — the block-level HTML comments of ``MEMORY.md`` move, byte for byte, to
   ``MEMORY-history.md`` (created with a small frontmatter, reachable through the archive
   index, never loaded);
2. ``repair`` — the indexes repaired (:mod:`.index_repair`): dangling pointers repointed where
   one target is evident, broken links in hooks unlinked, duplicates merged with every hook,
   live unreachable files indexed beside their siblings;
   ``documents`` — the folder's own documents (``README``, ``LICENSE``… with no frontmatter) that
   nothing reaches, which the repair leaves out: listed only when a person checks the item;
3. ``supersede-declared`` — the files their author declared superseded (``superseded_by``
   naming an existing file, ``status: superseded``) move to ``archive/``, their entries into the
   archive index under their headings; a file an entry of ``MEMORY.md`` marks superseded
   (:mod:`.index_marks`) is folded into the file the mark names, one item per successor (or, when
   it names none, gets ``status: superseded`` and moves), unchecked when the mark says "partly";
4. ``archive`` — each ``FULLY_STALE`` file (after guards: no guard held it back);
   ``successor`` — the supersessions found in the root (:func:`.supersession.root_supersessions`:
   a later note of the same work item that closes or restates it): the strong ones as one item,
   each earlier note folded into the later (``superseded_by``, then ``archive/``); a weak one,
   or one whose earlier note is a decision or rule record, waits for a person;
5. ``merge`` — each cluster of proposed near-duplicate pairs (rejected pairs stay out);
6. ``supersede`` — each contradiction whose direction is known (the dates differ), unchecked: a
   contradiction is evidence (both sentences quoted), and a person says which note is current;
7. ``lesson`` — a dangling pointer whose hook is the only copy of a lesson becomes its file;
8. ``pointers`` — a prose-dump index rewritten as one entry per topic (:mod:`.prose_index`);
9. ``compact``, ``shorten``, ``detail`` and ``decay`` — only past the fill target
   (:mod:`.index_compact`, :mod:`.index_trim`, :mod:`.index_detail`).

Team memory (a ``team/`` subfolder, written by teammates' sessions) is reported, never changed
here: no item archives, merges, supersedes, indexes or recreates a file under ``team/``.
A file belongs to at most one of the items 3–6 (the first that claims it).  Items start checked
except those needing a person: every contradiction, a cluster holding a pinned file ("needs review:
pinned"), a cluster to be reviewed pair by pair (oversized or chained), and an item the
validator refuses on top of the ones before it.  The selected items compose into ONE changeset
(:func:`compose`): each item's builder runs on the result of the items before it; :func:`preview`
gates the whole selection — one verdict, one journal record, one undo.  After the checked items
are applied, a second plan proposes nothing checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from functools import partial
from pathlib import Path
from typing import Callable, Collection, Iterable, Iterator, Mapping, Sequence

from ..judge.consolidate import clusters_of, scan, scan_cached
from ..judge.contradictions import freshness
from ..judge.stalecache import scored_cached
from ..judge.staleness import Scored, StalenessClass, StalenessResult, score_root
from ..judge.supersession import Supersession, root_supersessions, root_supersessions_cached
from ..judge.usage import consulted_recently, usage_of
from ..model.changeset import (
    Changeset,
    Create,
    Operation,
    VerbError,
    Write,
    apply_to_snapshot,
    diff_files,
    diff_lines,
    unified_diff,
)
from ..model.folder_docs import folder_document
from ..model.frontmatter import parse_frontmatter, set_key
from ..model.gcpause import gc_paused
from ..model.index_edit import IndexDraft, new_entry
from ..model.index_marks import IndexMark, index_marks
from ..model.linediff import CutDiff, DiffCut, cut_diff, cut_hunks
from ..model.snapshot import (
    ARCHIVE_INDEX_NAME,
    INDEX_NAME,
    Finding,
    Index,
    IndexLine,
    LineKind,
    MemoryFile,
    Snapshot,
    encode_text,
    in_team,
)
from ..rules.budget import Budget
from ..rules.incremental import FindingsCache, findings_cache
from ..rules.validate import ERROR
from ..stores.statcache import StatCache, cache_of
from ..tidy.compact import compact
from ..tidy.detail import move_detail
from ..tidy.lines import HISTORY_HEADER, HISTORY_NAME, LineEdit, configured_target_lines, index_op
from ..tidy.prose import pointers
from ..tidy.rebuild import NothingToRebuild, known_paths, unlisted_live, with_born
from ..tidy.repair import index_documents, lesson_paths, lessons, plan_repair
from ..tidy.trim import archive_declared, decay, decay_plan, declared_superseded, shorten
from ..tidy.unreachable import unlisted_documents
from ..verbs.lifecycle import archive, region_covers, supersede
from ..verbs.merge import merge
from ..write import Preview, plan

KINDS = ("history", "repair", "documents", "supersede-declared", "archive", "successor", "merge", "supersede", "lesson",
         "pointers", "compact", "shorten", "detail", "decay")
INDEX_KINDS = ("repair", "lesson", "pointers", "compact", "shorten", "detail", "decay")
PINNED_NOTE = "needs review: pinned"
CONTRADICTION_NOTE = "needs review: a contradiction, read both sentences"
EVIDENCE_SHOWN = 6
DIFF_KEPT_LINES = 5_000

Builder = Callable[[Snapshot], Changeset]


@dataclass(frozen=True)
class DreamItem:
    """One proposed maintenance step: what, on which files, why, and whether it starts checked."""

    kind: str  # one of KINDS
    paths: tuple[str, ...]
    reason: str
    evidence: tuple[str, ...]
    checked: bool
    build: Builder = field(compare=False, repr=False)
    note: str = ""  # why it starts unchecked
    diff: str = field(default="", compare=False, repr=False)  # its diff in the default selection
    # ("" for an unchecked item or a huge index: see :func:`item_diff`)
    parts: tuple[DreamItem, ...] = field(default=(), compare=False, repr=False)  # what it splits into
    # (:func:`split`): the strong successors' item, one item per fold
    built: Changeset | None = field(default=None, compare=False, repr=False)
    # the changeset the plan built and the gate accepted, on the checked items before it

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "paths": list(self.paths), "reason": self.reason,
                "checked": self.checked, "note": self.note, "evidence": list(self.evidence)}


#: the errors no pass fixes that a plan of no item lists (then a count)
ERRORS_SHOWN = 10


@dataclass(frozen=True)
class DreamPlan:
    """The items proposed for one root, in the order they compose."""

    snapshot: Snapshot
    items: tuple[DreamItem, ...]
    validated: FindingsCache | None = field(default=None, repr=False, compare=False)

    @property
    def cache(self) -> FindingsCache:
        """The gate's findings of :attr:`snapshot` (validated when first asked for: a plan whose
        items were all left as they are never needed them)."""
        found = self.validated
        if found is None or found.snapshot is not self.snapshot:
            found = findings_cache(self.snapshot)
            object.__setattr__(self, "validated", found)
        return found

    @property
    def default(self) -> frozenset[int]:
        """The positions of the items that start checked."""
        return frozenset(i for i, item in enumerate(self.items) if item.checked)

    @property
    def waiting(self) -> tuple[DreamItem, ...]:
        """Items that wait for a person (unchecked)."""
        return tuple(item for item in self.items if not item.checked)

    @property
    def errors_left(self) -> tuple[Finding, ...]:
        """A plan of no item: the folder's errors all the same, which no pass fixes (a link out
        of the root, a region glob that matches nothing, an interrupted change …) — what "nothing
        to do" must not hide.  Empty when the plan has items (they may fix some)."""
        if self.items:
            return ()
        return tuple(f for f in self.cache.findings if f.severity == ERROR)


# ---------------------------------------------------------------- history out of the index


def comment_blocks(index: Index) -> list[tuple[int, int]]:
    """(first, last) 0-based line positions of each block-level HTML comment of an index.

    A block starts on a line whose text starts with ``<!--`` and ends on the line holding the
    closing ``-->``, with nothing but blanks after it; an unclosed comment is left alone.
    """
    lines = index.lines
    out: list[tuple[int, int]] = []
    if "<!--" not in index.raw_text():  # no line can open a block: one search, not a walk
        return out
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.kind is LineKind.COMMENT and line.raw.lstrip().startswith("<!--"):
            j = i
            rest = line.raw.lstrip()[4:]
            while "-->" not in rest and j + 1 < len(lines) and lines[j + 1].kind is LineKind.COMMENT:
                j += 1
                rest = lines[j].raw
            if "-->" in rest and lines[j].raw.rstrip().endswith("-->"):
                out.append((i, j))
            i = j + 1
            continue
        i += 1
    return out


def _history_text(lines: Iterable[IndexLine]) -> str:
    text = "".join(line.raw + line.ending for line in lines)
    return text if text.endswith(("\n", "\r")) else text + "\n"


def move_history(snapshot: Snapshot) -> Changeset:
    """Move the index's block-level HTML comments, byte for byte, to ``MEMORY-history.md``."""
    index = snapshot.index
    blocks = comment_blocks(index)
    if not blocks:
        raise VerbError(f"{INDEX_NAME} holds no HTML-comment history")
    moved_at = {n for first, last in blocks for n in range(first, last + 1)}
    kept = "".join(line.raw + line.ending for n, line in enumerate(index.lines) if n not in moved_at)
    new_index = (b"\xef\xbb\xbf" if index.bom else b"") + encode_text(kept)
    moved = "".join(_history_text(index.lines[first:last + 1]) for first, last in blocks)
    ops: list[Operation] = [Write(INDEX_NAME, new_index, index.render())]
    history = snapshot.files.get(HISTORY_NAME)
    if history is not None:
        old = history.text
        joined = old + ("" if old.endswith(("\n", "\r")) or not old else "\n") + moved
        ops.append(Write(HISTORY_NAME, encode_text(joined), history.data))
    else:
        text = HISTORY_HEADER + moved
        ops.append(Create(HISTORY_NAME, encode_text(text)))
        history = MemoryFile(HISTORY_NAME, len(encode_text(text)), 0.0, text, parse_frontmatter(text))
    archive_index = snapshot.archive_index
    listed = any(line.resolved == HISTORY_NAME for line in archive_index.entries)
    if not listed and not region_covers(index, HISTORY_NAME):
        draft = IndexDraft(archive_index if archive_index.exists else Index(ARCHIVE_INDEX_NAME, False),
                           snapshot.files.__contains__)
        draft.append_entry(new_entry(history, history.description))
        ops.append(Write(draft.path, draft.render(), draft.original) if draft.original is not None
                   else Create(draft.path, draft.render()))
    lines = len(moved_at)
    return Changeset("dream", f"move {len(blocks)} HTML-comment block{'s' if len(blocks) != 1 else ''} "
                     f"({lines} lines) from {INDEX_NAME} to {HISTORY_NAME}", tuple(ops))


# ---------------------------------------------------------------- the plan


def _archive_items(snapshot: Snapshot, now: datetime | date, repo: Path | str | None,
                   consulted: Mapping[str, str], stat_cache: StatCache | None = None) -> list[DreamItem]:
    items = []
    for result in _scored(snapshot, now, repo, stat_cache):
        if result.cls is not StalenessClass.FULLY_STALE or result.guards or result.path == HISTORY_NAME:
            continue
        if in_team(result.path):  # team memory: reported, changed only when asked
            continue
        if result.path in consulted:  # seed 004: consulted in the last 14 days, never archived as stale
            continue
        f = snapshot.files[result.path]
        if f.pinned:
            continue
        evidence = [m.reason for m in result.modifiers]
        evidence += [f"missing {c.kind.value}: {c.text} ({c.reason})" for c in result.missing[:EVIDENCE_SHOWN]]
        age = result.age
        said = (f"{result.age_days:.0f} days old ({age.source})" if age.known
                else f"age unknown ({age.reason})")
        evidence.append(f"score {result.score:.0f}, {said}, no guard (not pinned, type, recent or "
                        "directive)")

        def build(s: Snapshot, path: str = result.path) -> Changeset:
            return archive(s, path)

        items.append(DreamItem("archive", (result.path,), "fully stale: every reference it makes is "
                               "gone and no guard holds it back", tuple(evidence), True, build))
    return items


def _scored(snapshot: Snapshot, now: datetime | date, repo: Path | str | None,
            stat_cache: StatCache | None) -> Sequence[StalenessResult | Scored]:
    """Every live file scored: from the stat cache's kept facts when ``snapshot`` is its load."""
    if stat_cache is None:
        return score_root(snapshot, now, repo).results
    return scored_cached(snapshot, stat_cache, now, repo)


def _merge_items(snapshot: Snapshot, found: object, today: date, taken: set[str]) -> list[DreamItem]:
    """One item per cluster of the proposed pairs, less the files ``taken`` by earlier items (as
    the next plan would see them, once those are archived)."""
    taken = taken | {HISTORY_NAME}
    pairs = [p for p in getattr(found, "pairs", ())
             if p.a not in taken and p.b not in taken and not in_team(p.a) and not in_team(p.b)]
    items = []
    for cluster in clusters_of((p.a, p.b) for p in pairs):
        members = set(cluster.files)
        inside = [p for p in pairs if p.a in members and p.b in members]
        evidence = tuple(f"{p.a} ↔ {p.b}: overlap {p.score:.2f}, similarity {p.similarity:.2f}"
                         for p in inside[:EVIDENCE_SHOWN])
        pinned = [path for path in cluster.files if snapshot.files[path].pinned]
        note = ""
        if pinned:
            note = f"{PINNED_NOTE} ({', '.join(pinned)})"
        elif cluster.review_pairwise:
            shape = "oversized" if cluster.oversized else "chained"
            note = f"needs review: {shape} cluster, review it pair by pair"

        def build(s: Snapshot, files: tuple[str, ...] = cluster.files) -> Changeset:
            return merge(s, files, confirm_pinned=True, today=today)

        items.append(DreamItem(
            "merge", cluster.files,
            f"near-duplicates: fold {len(cluster.files)} files into one gist (consolidated_from); "
            "the sources move to archive/ with folded_into", evidence, not note, build, note))
    return items


def _supersede_items(snapshot: Snapshot, found: object) -> list[DreamItem]:
    items = []
    for c in getattr(found, "contradictions", ()):
        old, new = snapshot.files.get(c.old), snapshot.files.get(c.new)
        if old is None or new is None or HISTORY_NAME in (c.old, c.new) or in_team(c.old) or in_team(c.new):
            continue
        if not c.ordered:
            continue  # order unknown (the dates do not differ): no direction to propose
        # a contradiction is evidence, not a verdict: a person reads both sentences and checks it
        note = f"{PINNED_NOTE} ({c.old})" if old.pinned else CONTRADICTION_NOTE
        evidence = tuple(e for e in (
            c.evidence or f"cue {c.negation}, overlap {c.score:.2f}",
            *(f"{path}: \u201c{sentence}\u201d" for path, sentence in zip((c.old, c.new), c.sentences) if sentence),
            f"{c.new} is newer ({date.fromtimestamp(freshness(new)).isoformat()}) than "
            f"{c.old} ({date.fromtimestamp(freshness(old)).isoformat()})",
        ) if e)

        def build(s: Snapshot, pair: tuple[str, str] = (c.old, c.new)) -> Changeset:
            return supersede(s, pair[0], pair[1], confirm=True)

        items.append(DreamItem("supersede", (c.old, c.new),
                               f"contradiction: {c.new} says the opposite of {c.old} and is newer",
                               evidence, False, build, note))
    return items


def _index_items(target_lines: int | None, keep: frozenset[str] = frozenset(),
                 stale: frozenset[str] = frozenset(), known: frozenset[str] | None = None,
                 copied: Sequence[str] = (), listed: frozenset[str] | None = None,
                 in_full: str | None = None) -> list[DreamItem]:
    """The index items, built (and explained) on the state the items before them leave.
    ``keep``: the files the decay leaves alone (those the plan's snapshot listed nowhere: the
    repair indexes them); ``stale``: the fully stale files no guard holds; ``copied``: the
    files an index copied from elsewhere names and the folder does not hold
    (:func:`~memtui.core.tidy.repair.copied_from_elsewhere`): said so, nothing checked for them;
    ``listed``: the files ``MEMORY.md`` listed when the pass began (one the pass gives an entry —
    a successor taking the place of the note it supersedes — is kept like one it indexed);
    ``in_full``: how much of its budget the index used when the pass began, when it loaded in
    full (:func:`_loads_in_full`): then the trims only bring it back within its cap (what an
    earlier item added past it) and the trims that cut the author's lines
    (:data:`HEADROOM_KINDS`) are offered unchecked (:func:`_gate_pass`) — the decay, which moves
    whole lines, pays for what the pass added."""
    to_cap = in_full is not None
    if copied:
        lesson = DreamItem(
            "lesson", (INDEX_NAME, *copied),
            f"this index names {len(copied)} files this folder does not hold — copied from elsewhere? "
            "Their pointers are kept as they are", tuple(copied[:EVIDENCE_SHOWN]) + (
                (f"… and {len(copied) - EVIDENCE_SHOWN} more",) if len(copied) > EVIDENCE_SHOWN else ()),
            False, lambda s: lessons(s, every=True),
            note="check to write each of their hooks as a topic file of its own")
    else:
        lesson = DreamItem("lesson", (INDEX_NAME,), "a pointer to a missing file whose hook is the only copy "
                           "of its lesson (a rule, a feedback): the hook becomes that topic file; one whose hook "
                           "holds no lesson (a log's progress note) loses its link, its words kept", (), True,
                           lessons)
    items = [
        DreamItem("repair", (INDEX_NAME, ARCHIVE_INDEX_NAME), "repair the indexes: repoint dangling "
                  "pointers whose target is evident, unlink broken links in hooks (words kept), merge "
                  "duplicate entries keeping every hook, index live unreachable files beside their "
                  "siblings", (), True, _Remembering(_repair_with_report)),
        lesson,
        DreamItem("pointers", (INDEX_NAME,), "the index is a prose dump past its fill target: one "
                  "entry per topic, long sections into topic files, the old text kept whole in "
                  "MEMORY-history.md", (), True, lambda s: pointers(s, target_lines)),
        DreamItem("compact", (INDEX_NAME,), "past the fill target: the repeated folder of a PATH_SCOPE "
                  "section's entries written once, as its Memory base (old lines kept in MEMORY-history.md)",
                  (), True, lambda s: compact(s, target_lines, to_cap and _loads_in_full(s) is None)),
        DreamItem("shorten", (INDEX_NAME,), "past the fill target: entry lines over ~200 characters "
                  "cut to their own operative clauses — status marks, dates, rules, numbers and names "
                  "kept; pins and rules never (full lines kept in MEMORY-history.md)",
                  (), True, lambda s: shorten(s, target_lines, to_cap and _loads_in_full(s) is None)),
        DreamItem("detail", (INDEX_NAME,), "past the fill target, in an index that does not load in full: "
                  "long detail (sub-bullets under an entry, prose blocks) moved byte for byte into topic "
                  "files of its own, each reached by one entry line", (), True,
                  lambda s: move_detail(s, target_lines, to_cap)),
        DreamItem("decay", (INDEX_NAME, ARCHIVE_INDEX_NAME), "past the fill target: entries decay by "
                  "status before age into MEMORY-archive.md under their headings (rules and pins last)",
                  (), True, _Remembering(lambda s: _decay_with_plan(s, target_lines, keep, stale, known,
                                                                   listed, to_cap))),
    ]
    return items


class _Remembering:
    """A builder that keeps what its last build found beside the changeset (the snapshot it read
    and the evidence), so explaining the item reads it again for free.  Each item's own: two
    plans at once (the app's worker and a hook) never see each other's evidence."""

    def __init__(self, build: Callable[[Snapshot], tuple[Changeset, list[str]]]) -> None:
        self._build = build
        self.found: tuple[Snapshot, list[str]] | None = None

    def __call__(self, state: Snapshot) -> Changeset:
        changeset, evidence = self._build(state)
        self.found = (state, evidence)
        return changeset


def _repair_with_report(state: Snapshot) -> tuple[Changeset, list[str]]:
    changeset, report = plan_repair(state)
    return changeset, report.evidence


def _decay_with_plan(state: Snapshot, target_lines: int | None, keep: frozenset[str] = frozenset(),
                     stale: frozenset[str] = frozenset(), known: frozenset[str] | None = None,
                     listed: frozenset[str] | None = None, to_cap: bool = False
                     ) -> tuple[Changeset, list[str]]:
    keep = with_born(keep, state, known)
    if listed is not None:  # the entries this pass gave: the last resort, as the ones it indexed
        keep |= frozenset(line.resolved for line in state.index.entries
                          if line.resolved is not None and line.resolved not in listed)

    chosen = decay_plan(state, target_lines, keep=keep, stale=stale, to_cap=to_cap)
    lines = state.index.lines
    return decay(state, target_lines, chosen), [f"line {pos + 1} {lines[pos].resolved}: {why}" for pos, why in chosen]


def _explain(item: DreamItem, state: Snapshot, changeset: Changeset, target_lines: int | None) -> DreamItem:
    """An index item with the evidence of what it does on ``state``."""
    evidence: list[str] = []
    paths = item.paths
    found = item.build.found if isinstance(item.build, _Remembering) else None
    if found is not None and found[0] is state:
        evidence = found[1]
    elif item.kind == "repair":
        evidence = plan_repair(state)[1].evidence
    elif item.kind == "lesson":
        missing = lesson_paths(state)
        evidence = [f"{path}: missing, no evident target; its hook: '{' '.join(line.hook.split())[:90]}'"
                    for path, line in missing]
        paths = tuple(path for path, _ in missing)
    elif item.kind == "shorten":
        kept = {line.raw for line in apply_to_snapshot(state, changeset.ops).snapshot.index.lines}
        evidence = [f"line {line.number} {line.resolved}: {len(line.raw)} characters" for line in state.index.lines
                    if line.kind is LineKind.ENTRY and line.raw not in kept]
    evidence = [changeset.description] + evidence
    shown = tuple(evidence[: EVIDENCE_SHOWN * 2]) + ((f"… and {len(evidence) - EVIDENCE_SHOWN * 2} more",)
                                                     if len(evidence) > EVIDENCE_SHOWN * 2 else ())
    return _with(item, evidence=shown, paths=paths)


def _document_items(snapshot: Snapshot, leaving: Collection[str] = ()) -> list[DreamItem]:
    """The folder's own documents (README, LICENSE, a second index…: the one predicate,
    :func:`~memtui.core.model.folder_docs.folder_document`) that nothing reaches: the repair leaves them
    unlisted.  A second index beside ``MEMORY.md`` that names files the folder no longer holds
    as live (missing, archived, superseded, or ``leaving`` with this pass: the merges and
    supersessions before it) is stale: an item of its own, unchecked, archives it (what a curator
    does with a competing index gone stale); one whose names all live is offered for the archive
    too, unchecked (the agent loads ``MEMORY.md`` only: an index listed in the index is budget
    spent on a pointer to pointers).  The other documents get one item, unchecked, that lists them
    when a person says the agent should read them."""
    documents = unlisted_documents(snapshot)
    if not documents:
        return []
    items: list[DreamItem] = []
    said = [(path, folder_document(path, snapshot.files[path])) for path in documents]
    named = {path: _second_index_names(snapshot, path, leaving) for path, what in said
             if what is not None and what.kind == "index"}
    stale = {path: gone for path, (gone, _live) in named.items() if gone}
    for path, names in stale.items():
        shown = ", ".join(names[:EVIDENCE_SHOWN]) + (f", … and {len(names) - EVIDENCE_SHOWN} more"
                                                     if len(names) > EVIDENCE_SHOWN else "")

        def build(s: Snapshot, stale_path: str = path) -> Changeset:
            return archive(s, stale_path)

        items.append(DreamItem(
            "documents", (path,),
            f"{path} is a second index of the folder gone stale: it names {len(names)} file"
            f"{'s' if len(names) != 1 else ''} that {'are' if len(names) != 1 else 'is'} no longer live "
            "here or that this pass archives — archive it (archive/, listed in MEMORY-archive.md)",
            (f"{path} names {shown}", f"{path}: the agent loads MEMORY.md only; a second index goes stale"),
            False, build, note="a stale competing index: check to archive it"))
    for path, what in said:  # a second index whose names all live: competing all the same
        if what is None or what.kind != "index" or path in stale:
            continue

        def build_live(s: Snapshot, second: str = path) -> Changeset:
            return archive(s, second)

        names = named[path][1]
        entries = {line.resolved for line in snapshot.index.entries}
        held = sum(1 for name in names if name in entries)
        items.append(DreamItem(
            "documents", (path,),
            f"{path} is a second index of the folder: the agent loads MEMORY.md only, so its links reach "
            "nothing at session start — archive it (archive/, listed in MEMORY-archive.md) rather than list "
            "an index in the index",
            (f"{path} names {len(names)} memory file{'s' if len(names) != 1 else ''}, {held} of them "
             "entries of MEMORY.md", f"{path}: {what.what}"),
            False, build_live, note="a competing index: check to archive it"))
    indexes = {path for path, what in said if what is not None and what.kind == "index"}
    rest = [path for path in documents if path not in indexes]
    if rest:
        shown_docs = [(path, what) for path, what in said if path in rest][: EVIDENCE_SHOWN * 2]
        items.append(DreamItem(
            "documents", (INDEX_NAME, *rest),
            f"{len(rest)} of the folder's own documents reached by nothing: list them in "
            "MEMORY.md only if the agent should read them",
            tuple(f"{path}: {what.what if what else 'the folder’s own document'}, not a memory"
                  for path, what in shown_docs),
            False, partial(index_documents, only=tuple(rest)),
            note="the folder's own documents, not memories: check to list them"))
    return items


def _second_index_names(snapshot: Snapshot, path: str, leaving: Collection[str]
                        ) -> tuple[list[str], list[str]]:
    """The memory files a second index names (its links, wikilinks and mentions): those not
    live in the folder (missing, archived, superseded, or ``leaving`` with this pass: as the
    index writes them), and those live (root-relative paths)."""
    from ..model.index import parse_index
    from ..rules.validate import names_of

    f = snapshot.files[path]
    files = snapshot.files
    by_name = names_of(files)
    second = parse_index(f.data, path, files.__contains__)
    stale: dict[str, None] = {}
    live: dict[str, None] = {}
    for line in second.lines:
        for ref in line.refs:
            target = ref.resolved
            if target is None or not target.lower().endswith(".md") or ref.escapes:
                continue
            if target not in files and "/" not in ref.target:
                hits = by_name.get(ref.target.lower(), [])
                target = hits[0] if len(hits) == 1 else target
            g = files.get(target)
            if target in (INDEX_NAME, path) or g is not None and folder_doc(g):
                continue
            gone = g is None or g.archived or g.status == "superseded" or target in leaving \
                or bool(g.frontmatter.names("superseded_by")) or bool(g.frontmatter.names("folded_into"))
            if gone:
                stale[ref.target] = None
            else:
                live[target] = None
    return list(stale), list(live)


def folder_doc(f: MemoryFile) -> bool:
    from ..model.folder_docs import is_folder_document

    return is_folder_document(f.path, f)


def _declared_items(snapshot: Snapshot) -> list[DreamItem]:
    found = declared_superseded(snapshot)
    if not found:
        return []
    paths = tuple(path for path, _ in found)
    evidence = tuple(f"{path}: {why}" for path, why in found[: EVIDENCE_SHOWN * 2])
    if len(found) > EVIDENCE_SHOWN * 2:
        evidence += (f"… and {len(found) - EVIDENCE_SHOWN * 2} more",)

    def build(s: Snapshot, chosen: tuple[str, ...] = paths) -> Changeset:
        return archive_declared(s, [p for p in chosen if p in s.files])

    return [DreamItem("supersede-declared", paths,
                      f"{len(paths)} file{'s' if len(paths) != 1 else ''} their author declared superseded: "
                      "move to archive/, their entries into the archive index under their headings",
                      evidence, True, build)]


def _bounded(evidence: list[str]) -> tuple[str, ...]:
    """At most ``EVIDENCE_SHOWN * 2`` lines of evidence, and how many more there are."""
    shown = tuple(evidence[: EVIDENCE_SHOWN * 2])
    more = len(evidence) - len(shown)
    return shown + ((f"… and {more} more",) if more else ())


def chain_ends(successor: Mapping[str, str | None]) -> tuple[dict[str, str], dict[str, int]]:
    """For each file of a chain of successors (a file with ``None`` names none): where its chain
    ends (the first file named that names none on, a file naming none itself, or on a circle
    the file the walk comes back to), and how many files its walk reaches, itself included.

    Each file is walked once: a chain of thousands of marks stays linear (walking from every
    file to the end was quadratic)."""
    ends: dict[str, str] = {}
    sizes: dict[str, int] = {}
    for start in successor:
        if start in ends:
            continue
        path: list[str] = []
        at: dict[str, int] = {}
        node: str | None = start
        while node is not None and node in successor and node not in ends and node not in at:
            at[node] = len(path)
            path.append(node)
            node = successor[node]
        if node is not None and node in at:  # a circle: each member ends at itself
            k = at[node]
            for member in path[k:]:
                ends[member], sizes[member] = member, len(path) - k
            end, size, path = node, len(path) - k, path[:k]
        elif node is not None and node in ends:  # an earlier walk's chain
            end, size = ends[node], sizes[node]
        elif node is None:  # the last file walked names none: it ends the chain
            end, size = path[-1], 0
        else:  # a file no entry names on
            end, size = node, 1
        for i in range(len(path) - 1, -1, -1):
            size += 1
            ends[path[i]], sizes[path[i]] = end, size
    return ends, sizes


def _marked_items(snapshot: Snapshot) -> tuple[list[DreamItem], set[str]]:
    """The files MEMORY.md's own entries mark superseded (:func:`memtui.core.model.index_marks.index_marks`),
    and those files: one item per successor the marks name, each earlier note folded into it
    (``superseded_by``, then archive/) — a chain (a mark naming a file marked in turn) one item;
    for a mark naming none, one item per file (``status: superseded``, then archive/).  An item
    starts checked — it is the author's word — unless a mark in it says "partly"."""
    marks = index_marks(snapshot)
    marked = {m.path: m for m in marks}

    ends = chain_ends({path: m.successor for path, m in marked.items()})[0]

    def last(mark: IndexMark) -> str:
        """Where a chain of marks from this one ends: the first file named that no mark names
        on (a file marked with no successor ends it too)."""
        if marked[mark.path] is mark:
            return ends[mark.path]
        seen, path = {mark.path}, mark.successor  # a file marked twice: its first mark's walk
        while path is not None and path in marked and path not in seen:
            seen.add(path)
            if marked[path].successor is None:
                return path
            path = marked[path].successor
        return path if path is not None else mark.path

    groups: dict[str, list[IndexMark]] = {}
    for mark in marks:
        groups.setdefault(last(mark), []).append(mark)
    items: list[DreamItem] = []
    for end, group in groups.items():
        pairs = tuple((m.path, m.successor) for m in group if m.successor is not None)
        unnamed = tuple(m.path for m in group if m.successor is None)
        olds = tuple(m.path for m in group)
        evidence = _bounded([f"{INDEX_NAME} line {m.line}: \u201c{m.words}\u201d" for m in group])
        evidence += _bounded([f"\u2192 {m.successor}: {m.why}" for m in group if m.successor is not None])
        partial = [m.path for m in group if m.partial]
        note = (f"needs review: {INDEX_NAME} says {', '.join(partial)} "
                f"{'is' if len(partial) == 1 else 'are'} only partly superseded") if partial else ""

        def build(s: Snapshot, pairs: tuple[tuple[str, str], ...] = pairs,
                  unnamed: tuple[str, ...] = unnamed) -> Changeset:
            return _fold_marked(s, pairs, unnamed)

        if not pairs:
            reason = (f"{INDEX_NAME} marks {olds[0]} superseded and names no successor: status: "
                      "superseded, then archive/ with its entry")
        elif len(pairs) == 1 and not unnamed:
            reason = (f"{INDEX_NAME} marks {olds[0]} superseded by {pairs[0][1]}: fold it into it "
                      "(superseded_by), then archive/")
        else:
            reason = (f"{INDEX_NAME} marks {len(olds)} files superseded, each by the next, ending at "
                      f"{end}: fold each into the one its mark names (superseded_by), then archive/")
        paths = olds + ((end,) if end not in olds else ())
        items.append(DreamItem("supersede-declared", paths, reason, evidence, not partial, build, note=note))
    return items, set(marked)


def _fold_marked(snapshot: Snapshot, pairs: Sequence[tuple[str, str]], unnamed: Sequence[str]) -> Changeset:
    """The marked notes of one chain: each folded into the note its mark names, then the ones
    whose mark names none archived with ``status: superseded``; one changeset."""
    ops: list[Operation] = []
    state = snapshot
    if pairs:
        folded = fold_successors(state, pairs)
        ops += folded.ops
        state = apply_to_snapshot(state, folded.ops).snapshot
    for path in unnamed:
        moved = _archive_marked(state, path)
        ops += moved.ops
        state = apply_to_snapshot(state, moved.ops).snapshot
    if pairs:
        return Changeset("supersede", f"fold the notes {INDEX_NAME} marks superseded into the notes "
                         "the marks name, then archive/", tuple(ops))
    return Changeset("archive", f"archive {', '.join(unnamed)}, which {INDEX_NAME} marks superseded", tuple(ops))


def _archive_marked(snapshot: Snapshot, path: str) -> Changeset:
    """A file the index marks superseded, naming no successor: ``status: superseded`` in its
    frontmatter, then moved to archive/ with its entry (as the files declared so)."""
    f = snapshot.files.get(path)
    if f is None or f.archived or f.status == "superseded":
        raise VerbError(f"{path} is no longer a live note to mark superseded")
    ops: list[Operation] = [Write(path, encode_text(set_key(f.text, "status", "superseded")), f.data)]
    moved = archive_declared(apply_to_snapshot(snapshot, ops).snapshot, [path])
    return Changeset("archive", f"archive {path}, which {INDEX_NAME} marks superseded", tuple(ops) + moved.ops)


def fold_successors(snapshot: Snapshot, pairs: Sequence[tuple[str, str]]) -> Changeset:
    """Fold each earlier note into the later one that supersedes it (``(old, new)`` pairs, a
    chain in order): ``status: superseded`` and ``superseded_by`` on the old, ``supersedes`` on
    the new (only those frontmatter lines change); the last successor of the chain gets an entry
    below the old one's when it has none; then the old files move to ``archive/`` with their
    entries, byte for byte, into the archive index under their headings."""
    files = snapshot.files
    texts: dict[str, str] = {}  # each file's new text, every breadcrumb in it: one write per file
    olds: list[str] = []
    taken = dict(pairs)
    for old, new in pairs:
        old_f, new_f = files.get(old), files.get(new)
        if old_f is None or new_f is None or old_f.pinned or old_f.frontmatter.names("superseded_by"):
            continue
        if new_f.archived or new_f.frontmatter.names("superseded_by") and new not in taken:
            continue
        text = set_key(set_key(texts.get(old, old_f.text), "status", "superseded"), "superseded_by", new)
        texts[old] = text
        current = texts.get(new, new_f.text)
        names = list(parse_frontmatter(current).names("supersedes"))
        if old not in names:
            texts[new] = set_key(current, "supersedes", ", ".join(names + [old]))
        olds.append(old)
    if not olds:
        raise VerbError("no earlier note is left to fold into its successor")
    ops: list[Operation] = [Write(path, encode_text(text), files[path].data) for path, text in texts.items()]
    state = apply_to_snapshot(snapshot, ops).snapshot
    # the last successor of a chain takes the place of an earlier note's entry when it has none
    successor = {old: taken[old] for old in olds}
    ends = chain_ends(successor)[0]
    index = state.index
    listed = {line.resolved for line in index.entries}
    edit = LineEdit(index)
    for pos, line in enumerate(index.lines):
        if line.kind is not LineKind.ENTRY or line.scope or line.resolved not in successor:
            continue
        last = ends[line.resolved]
        if last in listed or last not in state.files:
            continue
        f = state.files[last]
        indent = line.raw[: len(line.raw) - len(line.raw.lstrip())]
        edit.insert_after(pos, indent + new_entry(f, f.description or f.title))
        listed.add(last)
    if edit.changed:
        placed = index_op(index, edit.render())
        state = apply_to_snapshot(state, placed).snapshot
        ops += placed
    moved = archive_declared(state, olds)
    return Changeset("supersede", f"fold {len(olds)} earlier note{'s' if len(olds) != 1 else ''} into the "
                     "later notes that supersede them (superseded_by, then archive/)", tuple(ops) + moved.ops)


def _strong_successors(snapshot: Snapshot, rejected: Collection[tuple[str, str]], taken: set[str]
                       ) -> tuple[list[Supersession], list[Supersession]]:
    """(the strong supersessions, one successor per note, a chain from its oldest link; every
    proposal) of a root, less pinned files, team memory and files earlier items claim."""
    stat_cache = cache_of(snapshot)  # the stat cache's load: its kept answer, if it still holds
    proposed = (root_supersessions(snapshot, rejected) if stat_cache is None
                else root_supersessions_cached(snapshot, stat_cache, rejected))
    found = [x for x in proposed
             if not {x.old, x.new} & (taken | {HISTORY_NAME}) and not in_team(x.old) and not in_team(x.new)
             and x.old in snapshot.files and not snapshot.files[x.old].pinned]
    olds: dict[str, str] = {}
    strong = []
    for x in sorted((x for x in found if x.strong and not _a_record(snapshot.files[x.old])),
                    key=lambda x: (x.old, x.new)):
        if x.old not in olds:  # one successor per note: the first strong one
            olds[x.old] = x.new
            strong.append(x)

    reach = chain_ends(olds)[1]  # a chain folds from its oldest link

    return sorted(strong, key=lambda x: (1 - reach[x.old], x.old)), found


def _a_record(f: MemoryFile) -> bool:
    """A decision or a rule: its reasons are not restated by the log that closes the work, so a
    fold into it waits for a person."""
    kind = f.frontmatter.get("type").strip().lower()
    return kind in ("decision", "feedback", "user") or "decision" in f.stem.lower().replace("_", "-").split("-")


#: rounds of folding a plan looks ahead: a chain's earlier links point at their successor only
#: once the notes between are folded (design → execution → closed)
FOLD_ROUNDS = 4


def _successor_items(snapshot: Snapshot, rejected: Collection[tuple[str, str]], taken: set[str]) -> list[DreamItem]:
    """The supersessions found in the root (:func:`memtui.core.judge.supersession.root_supersessions`):
    the strong ones as one checked item — folded round after round, as the notes between a
    chain's links leave, so that the next plan finds none — and each weak one on its own,
    unchecked.  Pinned files, team memory and files earlier items claim are left out."""
    ordered, found = _strong_successors(snapshot, rejected, taken)
    chosen: list[Supersession] = []
    state = snapshot
    for _ in range(FOLD_ROUNDS):
        fresh = [x for x in ordered if x.old not in {c.old for c in chosen}]
        if not fresh:
            break
        try:
            state = apply_to_snapshot(state, fold_successors(state, [(x.old, x.new) for x in fresh]).ops).snapshot
        except VerbError:
            break
        chosen += fresh
        ordered, _ = _strong_successors(state, rejected, taken)
    items: list[DreamItem] = []
    if chosen:
        pairs = tuple((x.old, x.new) for x in chosen)
        evidence = tuple(f"{x.old} → {x.new} ({x.kind}): {'; '.join(x.evidence[:2])}"
                         for x in chosen[: EVIDENCE_SHOWN * 2])
        if len(chosen) > EVIDENCE_SHOWN * 2:
            evidence += (f"… and {len(chosen) - EVIDENCE_SHOWN * 2} more",)

        def build(s: Snapshot, chosen_pairs: tuple[tuple[str, str], ...] = pairs) -> Changeset:
            return fold_successors(s, chosen_pairs)

        paths = tuple(dict.fromkeys(p for pair in pairs for p in pair))
        parts = tuple(_successor_item(x, True) for x in chosen) if len(chosen) > 1 else ()
        items.append(DreamItem("successor", paths,
                               f"{len(pairs)} note{'s' if len(pairs) != 1 else ''} superseded by a later note of "
                               "the same work item: fold the earlier into the later (superseded_by, archive/)",
                               evidence, True, build, parts=parts))
    folded = {x.old for x in chosen}
    for x in found:
        if x.strong and not _a_record(snapshot.files[x.old]) or x.old in folded or x.new in folded:
            continue
        items.append(_successor_item(x, False))
    return items


def _successor_item(x: Supersession, checked: bool) -> DreamItem:
    """One fold of an earlier note into a later one: checked (a part of the strong successors'
    item), or waiting for review with the reason why."""

    def build_one(s: Snapshot, pair: tuple[str, str] = (x.old, x.new)) -> Changeset:
        return fold_successors(s, [pair])

    note = ("" if checked else "needs review: a decision or rule record" if x.strong
            else "needs review: the later note only names the earlier")
    reason = f"{x.new} supersedes {x.old}" if checked else f"{x.new} may supersede {x.old}"
    return DreamItem("successor", (x.old, x.new), f"{reason} ({x.proposal})",
                     tuple(x.evidence[:EVIDENCE_SHOWN]), checked, build_one, note)


def split(plan: DreamPlan, position: int) -> DreamPlan:
    """The plan with the item at ``position`` replaced by its parts (:attr:`DreamItem.parts`, in
    the order they fold: a chain from its oldest link), so that one fold of the strong
    successors can be left out; the same plan when that item has no parts.  Checked together
    the parts make the change the whole item made; the parts of an item the gate left unchecked
    start unchecked, with its reason."""
    item = plan.items[position]
    if not item.parts:
        return plan
    parts = item.parts if item.checked else tuple(_with(p, checked=False, note=item.note) for p in item.parts)
    items = plan.items[:position] + parts + plan.items[position + 1:]
    return DreamPlan(plan.snapshot, items, plan.validated)


def plan_dream(
    snapshot: Snapshot,
    now: datetime | date,
    *,
    repo: Path | str | None = None,
    rejected: Collection[tuple[str, str]] = (),
    cache: FindingsCache | None = None,
    consulted: Mapping[str, str] | None = None,
    target_lines: int | None = None,
) -> DreamPlan:
    """Every maintenance item for one root, each gated on top of the checked ones before it.

    ``consulted`` maps the files the agent read in the last 14 days to why (by default read from
    Claude Code's transcripts, :func:`memtui.core.judge.usage.consulted_recently`): none of them is
    archived as stale.  ``target_lines`` is the index's fill target (default: config
    ``index.target_lines``, else 80% of the line cap).
    """
    today = now.date() if isinstance(now, datetime) else now
    if consulted is None:
        consulted = _consulted(snapshot, now)
    if target_lines is None:
        target_lines = configured_target_lines()
    proposals: list[DreamItem] = []
    if comment_blocks(snapshot.index):
        blocks = comment_blocks(snapshot.index)
        lines = sum(last - first + 1 for first, last in blocks)
        proposals.append(DreamItem(
            "history", (INDEX_NAME, HISTORY_NAME),
            f"history in the index: {lines} lines of HTML comments are loaded every session",
            tuple(f"lines {first + 1}–{last + 1}" for first, last in blocks[:EVIDENCE_SHOWN]),
            True, move_history))

    stat_cache = cache_of(snapshot)  # a load through the stat cache: its kept facets and answers
    stale_items = _archive_items(snapshot, now, repo, consulted, stat_cache)
    keep = unlisted_live(snapshot)
    stale = frozenset(p for item in stale_items for p in item.paths)
    known = known_paths(snapshot)
    from ..tidy.repair import copied_from_elsewhere

    copied = copied_from_elsewhere(snapshot)
    listed = frozenset(line.resolved for line in snapshot.index.entries if line.resolved is not None)
    in_full = _loads_in_full(snapshot)
    index_items = _index_items(target_lines, keep, stale, known, copied, listed, in_full)
    proposals += [item for item in index_items if item.kind == "pointers"]
    proposals += [item for item in index_items if item.kind == "repair"]
    documents_at = len(proposals)  # proposed here, once the items that archive files are known
    declared = _declared_items(snapshot)
    marked, marked_paths = _marked_items(snapshot)
    proposals += declared + marked
    # the marked notes are taken; their successors stay free for the other proposals
    taken = {p for item in declared for p in item.paths} | marked_paths
    archived = [item for item in stale_items if not taken & set(item.paths)]
    proposals += archived
    found = (scan(snapshot, rejected=rejected) if stat_cache is None
             else scan_cached(snapshot, stat_cache, rejected=rejected))
    successors = _successor_items(snapshot, rejected, taken | {p for item in archived for p in item.paths})
    proposals += successors
    folded = {p for item in successors if item.checked for p in item.paths}
    proposals += _merge_items(snapshot, found, today,
                              taken | folded | {p for item in archived for p in item.paths})
    proposals += _supersede_items(snapshot, found)
    # what this pass archives, as far as a second index naming it goes stale: the declared
    # superseded, the fully stale, the merged sources, the older side of a supersession
    leaving = {p for item in declared + archived for p in item.paths}
    leaving |= {p for item in proposals if item.checked and item.kind == "merge" for p in item.paths}
    leaving |= {item.paths[0] for item in proposals if item.checked and item.kind == "supersede"}
    proposals[documents_at:documents_at] = _document_items(snapshot, leaving)
    proposals += [item for item in index_items if item.kind not in ("pointers", "repair")]

    if cache is not None and cache.snapshot is not snapshot:
        cache = None
    validated: list[FindingsCache] = [cache] if cache is not None else []
    items = _gate_in_order(snapshot, validated, proposals, target_lines,
                           lambda: _index_items(target_lines, keep, stale, known, copied, listed, in_full))
    if stat_cache is not None:
        stat_cache.save()  # what was learnt, for the next plan (the user's cache folder)
    return DreamPlan(snapshot, tuple(items), validated[0] if validated else None)


def _consulted(snapshot: Snapshot, now: datetime | date) -> Mapping[str, str]:
    """The files read in the last 14 days, from the transcripts (none when unreadable)."""
    try:
        return consulted_recently(usage_of(snapshot), now)
    except (OSError, ValueError):
        return {}


#: the findings of an index past its cap: an item refused for these alone may be carried
BUDGET_RULES = frozenset({"budget-lines", "budget-bytes"})
#: the trims that buy headroom only while the index loads in full: offered unchecked then
HEADROOM_KINDS = ("compact", "shorten")
HEADROOM_NOTE = ("the index loads in full ({budget}): trimming it only buys headroom — "
                 "your call, not the pass's")


def _gate_in_order(snapshot: Snapshot, validated: list[FindingsCache], proposals: list[DreamItem],
                   target_lines: int | None = None,
                   index_items: Callable[[], list[DreamItem]] | None = None) -> list[DreamItem]:
    """Build and gate each proposal on the result of the checked ones before it.

    ``validated`` holds the snapshot's findings cache, or is empty: then the snapshot is
    validated when the first item is gated (and its cache added), not when none is.
    An item the validator refuses only because it grows an index over its cap or past it (a repair
    indexing unreachable files into a rotted index, or standing rules into a full one) is carried
    on: the trims after it are built
    on it, and when they bring the index back — no larger than before it, or within its cap —
    it stands, each trim proposed once.  When they do not, the plan is made again without
    carrying: such an item is tried once more after the index items, followed by those again
    when it then passes — so that applying the checked items leaves nothing checked for the
    next plan.
    """
    items = _gate_pass(snapshot, validated, proposals, target_lines, index_items, carry=True)
    if items is None:
        items = _gate_pass(snapshot, validated, proposals, target_lines, index_items, carry=False)
    assert items is not None
    return items


def _loads_in_full(state: Snapshot) -> str | None:
    """How much of its budget an index that loads in full uses, in words; None when it does not."""
    from ..rules.budget import measure

    budget = measure(state.index, state.config)
    if budget.cut_line is not None or budget.over_lines or budget.over_bytes:
        return None
    return (f"{budget.lines} of {budget.max_lines} lines, {budget.bytes:,} of {budget.max_bytes:,} "
            f"{budget.unit}")


def _grows_past_cap(before: Budget, state: Snapshot) -> bool:
    """Whether the index of ``state`` is over its cap and larger than ``before`` (a budget)."""
    from ..rules.budget import measure

    after = measure(state.index, state.config)
    return bool(after.over_lines and after.lines > max(before.lines, after.max_lines)
                or after.over_bytes and after.bytes > max(before.bytes, after.max_bytes))


def _gate_pass(snapshot: Snapshot, validated: list[FindingsCache], proposals: list[DreamItem],
               target_lines: int | None, index_items: Callable[[], list[DreamItem]] | None,
               carry: bool) -> list[DreamItem] | None:
    """One pass of :func:`_gate_in_order`; None when ``carry`` carried an item the trims after
    it did not pay for."""
    from ..rules.budget import measure

    state, state_cache = snapshot, validated[0] if validated else None
    claimed: set[str] = set()
    items: list[DreamItem] = []
    held: list[DreamItem] = []
    carried_from: Budget | None = None  # the budget before the first item carried

    def attempt(item: DreamItem, last_try: bool, again: bool = False) -> bool:
        """Gate one item on the state so far; ``again``: an index item tried a second time, after
        a held item passed (one that waits for a person is listed once)."""
        nonlocal state, state_cache, carried_from
        if not item.checked:  # waits for a person: built (for its diff) only when looked at
            if not again:
                items.append(item)
            return True
        try:
            changeset = item.build(state)
        except VerbError:  # NothingToRebuild, or a file an earlier item already moved
            return True
        # a diff is kept for the view when cheap; a huge index's diff is built when looked at
        small = len(state.index.lines) + len(state.archive_index.lines) <= DIFF_KEPT_LINES
        diff = changeset.diff or (unified_diff(state, changeset) if small else "")
        if item.kind in INDEX_KINDS:
            item = _explain(item, state, changeset, target_lines)
        if item.kind in HEADROOM_KINDS:
            # the index loads in full, or did when the pass began (what the pass added, the decay
            # pays for, moving whole lines): cutting the author's lines is the person's call
            budget = _loads_in_full(state) or _loads_in_full(snapshot)
            if budget is not None:
                if not (again and any(other.kind == item.kind for other in items)):
                    items.append(_with(item, checked=False, diff=diff, note=HEADROOM_NOTE.format(budget=budget)))
                return True
        if state_cache is None:  # the first item gated: the snapshot validated once, kept
            state_cache = findings_cache(state)
            validated.append(state_cache)
        gated = plan(state, changeset, state_cache)
        if not gated.accepted and carry and (gated.gate.reason or gated.gate.refusing) and \
                all(f.rule in BUDGET_RULES for f in gated.gate.refusing):
            # refused only for growing an index over its cap (or past it): carried, for the trims
            # after it to pay for
            if carried_from is None:
                carried_from = measure(state.index, state.config)
            state, state_cache = gated.after, gated.cache
            items.append(_with(item, diff=diff, built=changeset))
            return True
        if gated.accepted:
            state, state_cache = gated.after, gated.cache
            items.append(_with(item, diff=diff, built=changeset))
            return True
        if last_try:
            items.append(_with(item, checked=False, diff=diff,
                               note=gated.refusal_message()))
        return False

    with gc_paused():  # each state of a long index is many acyclic lines: no collector passes
        for item in proposals:
            if item.kind in ("supersede-declared", "archive", "merge", "supersede") or \
                    item.kind == "successor" and item.checked:
                if claimed & set(item.paths):
                    continue
                claimed.update(item.paths)
            if not attempt(item, last_try=False):
                held.append(item)
        if carried_from is not None and _grows_past_cap(carried_from, state):
            return None  # the trims did not pay for what was carried: plan without carrying
        if held:
            before = len(items)
            for item in held:
                attempt(item, last_try=True)
            if any(item.checked for item in items[before:]):
                for item in (index_items() if index_items is not None else _index_items(target_lines)):
                    attempt(item, last_try=True, again=True)
    return items


def _with(item: DreamItem, **changes: object) -> DreamItem:
    from dataclasses import replace

    return replace(item, **changes)  # type: ignore[arg-type]


# ---------------------------------------------------------------- one changeset


def compose(dream: DreamPlan, selected: Iterable[int]) -> Changeset:
    """The selected items as one changeset, each built on the result of the ones before it.

    The checked items the plan built and gated in a row, from the first, are not built again:
    while the selection follows the default one, each item would be built on the very state the
    plan built it on (a long index's repair and detail cost seconds each)."""
    chosen = sorted(set(selected))
    default = sorted(dream.default)
    reused = 0
    while reused < min(len(chosen), len(default)) and chosen[reused] == default[reused] \
            and dream.items[chosen[reused]].built is not None:
        reused += 1
    prebuilt = [dream.items[i].built for i in chosen[:reused]]
    return compose_items(dream.snapshot, [dream.items[i] for i in chosen],
                         [c for c in prebuilt if c is not None])


def compose_items(snapshot: Snapshot, items: Sequence[DreamItem], prebuilt: Sequence[Changeset] = ()) -> Changeset:
    """Items (in plan order) as one changeset on ``snapshot`` — a builder the app can plan again
    on the folder as it is when the change is made.  ``prebuilt``: the changesets of the first
    items, already built on ``snapshot`` and the results before them (the plan's own)."""
    state = snapshot
    ops: list[Operation] = []
    done: list[str] = []
    for position, item in enumerate(items):
        if position < len(prebuilt):
            changeset = prebuilt[position]
        else:
            if position and position == len(prebuilt):  # the state the prebuilt ones leave
                for earlier in prebuilt:
                    state = apply_to_snapshot(state, earlier.ops).snapshot
            try:
                changeset = item.build(state)
            except NothingToRebuild:
                continue
            except VerbError as exc:
                raise VerbError(f"{item.kind} {', '.join(item.paths)} no longer applies: {exc}") from None
            state = apply_to_snapshot(state, changeset.ops).snapshot
        ops += changeset.ops
        done.append(item.kind)
    if not ops:
        raise VerbError("nothing to do: no item selected")
    counts = ", ".join(f"{done.count(kind)} {kind}" for kind in KINDS if kind in done)
    return Changeset("dream", f"dream: {counts}", tuple(ops))


def item_diff(dream: DreamPlan, position: int, selected: Iterable[int] = ()) -> str:
    """The diff of one item, built on the result of the ``selected`` items before it."""
    return next(item_diffs(dream, selected, position, position + 1))


def item_diffs(dream: DreamPlan, selected: Iterable[int] = (), start: int = 0,
               stop: int | None = None) -> Iterator[str]:
    """:func:`item_diff` of each item from ``start`` to ``stop`` in turn, each selected item
    applied once on the way (not again for every item after it).  On the default selection a
    checked item's changeset and diff are the plan's own: it built them on that very state."""
    return (cut.text for cut in cut_item_diffs(dream, selected, start, stop))


def cut_item_diffs(dream: DreamPlan, selected: Iterable[int] = (), start: int = 0,
                   stop: int | None = None, cut: DiffCut | None = None) -> Iterator[CutDiff]:
    """:func:`item_diffs`, each diff cut to its first hunks by ``cut`` (whole without one).

    A diff is read from the changeset's own operations; the state an item is built on is made
    (the changesets before it played, an index parsed once per state) only for an item the
    plan did not build: on the default selection, for the items waiting for a person."""
    chosen, stop = set(selected), len(dream.items) if stop is None else stop
    planned = chosen == set(dream.default)
    state: Snapshot | None = dream.snapshot
    pending: list[Changeset] = []  # played on ``state`` when an item is next built on it
    failed: VerbError | None = None  # what left no state to build on
    for position in range(stop):
        item = dream.items[position]
        changeset: Changeset | None = item.built if planned else None
        error: VerbError | None = None
        if changeset is None and state is not None and (position >= start or position in chosen):
            for earlier in pending:
                try:
                    state = apply_to_snapshot(state, earlier.ops).snapshot
                except VerbError as exc:
                    state, failed = None, exc
                    break
            pending.clear()
            if state is not None:
                try:
                    changeset = item.build(state)
                except VerbError as exc:
                    error = exc
        if position >= start:
            if state is None or error is not None:
                yield CutDiff(f"# {error if error is not None else failed}\n")
            elif planned and item.checked and item.diff:
                yield _cut(iter(item.diff.splitlines(keepends=True)), cut)
            else:
                assert changeset is not None
                yield (_cut(iter(changeset.diff.splitlines(keepends=True)), cut) if changeset.diff
                       else CutDiff("".join(diff_lines(changeset.ops))) if cut is None
                       else cut_hunks(diff_files(changeset.ops), cut))
        if position in chosen and state is not None:
            if isinstance(error, NothingToRebuild):
                continue
            if error is not None:  # the items after it are built on nothing: each says so
                state, failed = None, error
                continue
            assert changeset is not None
            pending.append(changeset)


def _cut(lines: Iterator[str], cut: DiffCut | None) -> CutDiff:
    return CutDiff("".join(lines)) if cut is None else cut_diff(lines, cut)


def preview(dream: DreamPlan, selected: Iterable[int]) -> Preview:
    """The selected items composed and gated as one change (nothing touched)."""
    with gc_paused():  # a long index's states are many acyclic lines, as in the plan
        return plan(dream.snapshot, compose(dream, selected), dream.cache)


def plan_json(dream: DreamPlan, verdict: Preview | None) -> dict[str, object]:
    """The ``--json`` shape: root, items, and the verdict of the default selection."""
    if verdict is None:
        accepted, findings = True, []
    else:
        shown = verdict.gate.refusing if not verdict.accepted else tuple(verdict.new_findings)
        accepted, findings = verdict.accepted, [f.to_json() for f in shown]
    out: dict[str, object] = {"root": str(dream.snapshot.root),
                              "items": [item.to_json() for item in dream.items],
                              "accepted": accepted, "findings": findings}
    if not dream.items:
        out["errors_left"] = [f.to_json() for f in dream.errors_left]
    return out
