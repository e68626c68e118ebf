"""The Consolidate view: near-duplicate pairs, their clusters and contradictions to review."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from memtui.core.judge.consolidate import CONTAINED, ScanResult, pairs_summary
from memtui.services.scoring import Cluster, Contradiction, Pair, Proposal, files_of, kind_of

from .row_list import Cell, RowList, Rule, compose_row
from .view import ListView, read_only


def contained(pair: Pair) -> tuple[str, str] | None:
    """(small, large) when the pair is a small file contained in a larger one, else None."""
    if pair.kind == CONTAINED and pair.contained_in is not None:
        return (pair.b if pair.contained_in == pair.a else pair.a), pair.contained_in
    return None


def pair_words(pair: Pair) -> str:
    """A pair as the list shows it: two equals, or the small file contained in the large one."""
    parts = contained(pair)
    return f"{parts[0]}  ⊂  {parts[1]}" if parts else f"{pair.a}  ⇄  {pair.b}"


def contradiction_words(found: Contradiction) -> str:
    """A contradiction: which file the newer one supersedes, or that the order is unknown."""
    if found.ordered:
        return f"{found.old}  →  superseded by  {found.new}"
    return f"{found.old}  ⇄  {found.new}  · order unknown"


def sessions_note(scan: ScanResult, key: str) -> str:
    """What the view says about the session files of the root ('' when it has none)."""
    count = scan.session_files
    if not count:
        return ""
    files = f"{count} session file{'s' if count != 1 else ''}"
    if scan.include_sessions:
        return f"{files} included — press {key} to leave them out"
    return f"{files} left out — press {key} to include"


def _keys(hint: str, widget: Widget) -> str:
    """A line of change keys, or in ``--read-only`` what is said instead (they are disabled)."""
    return "read-only: merging, superseding and rejecting are disabled" if read_only(widget) else hint


def shared_words(row_list: RowList[Proposal], pair: Pair) -> Text:
    """The pair's shared words, after "contained in" when it is one file inside another."""
    text = Text()
    if contained(pair):
        text.append("contained in ", style=row_list.style_of("warn"))
    text.append(", ".join(pair.shared), style=row_list.style_of("muted"))
    return text


class CandidateList(RowList[Proposal]):
    """Pairs, clusters and contradictions under one heading each."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(empty_text="scanning for near-duplicates…", id=id)

    def item_key(self, item: Proposal) -> object:
        return (kind_of(item), files_of(item))

    def render_rule(self, rule: Rule, width: int) -> Text:
        return Text(rule.text, no_wrap=True)

    def render_item(self, item: Proposal, width: int) -> Text:
        match item:
            case Pair():
                cells = [
                    Cell(Text(f"{item.score:.2f}", style=self.style_of("accent")), 4),
                    Cell(Text(f"~{item.similarity:.2f}", style=self.style_of("muted")), 5),
                    Cell(pair_words(item), None, weight=3),
                    Cell(shared_words(self, item), None, weight=1),
                ]
            case Cluster():
                flag = "oversized" if item.oversized else "chained" if item.chained else "merge"
                cells = [
                    Cell(Text(f"{len(item.files)} files", style=self.style_of("accent")), 8),
                    Cell(Text(flag, style=self.style_of("warn" if item.review_pairwise else "ok")), 9),
                    Cell(", ".join(item.files), None),
                ]
            case Contradiction():
                cells = [
                    Cell(Text(item.negation, style=self.style_of("warn")), 14),
                    Cell(contradiction_words(item), None),
                ]
        return compose_row(cells, width)


class ConsolidateView(ListView[Proposal]):
    """Candidates on the left, what the selected one would do on the right."""

    LIST_ID = "candidate-list"

    #: the key of "Include sessions" as the note names it (the main screen sets the registry's)
    sessions_key = "S"

    class Review(Message):
        """Enter on a candidate: open the merge review (or the supersede confirmation)."""

        def __init__(self, candidate: Proposal) -> None:
            super().__init__()
            self.candidate = candidate

    def compose(self) -> ComposeResult:
        yield Static(id="sessions-note", classes="list-header", markup=False)
        with Horizontal(classes="view-columns"):
            yield CandidateList(id="candidate-list")
            yield Static(id="candidate-detail")

    @property
    def candidate_list(self) -> CandidateList:
        return self.query_one("#candidate-list", CandidateList)

    def selected_candidate(self) -> Proposal | None:
        return self.highlighted

    def selected_path(self) -> str | None:
        candidate = self.selected_candidate()
        return files_of(candidate)[0] if candidate is not None else None

    def refill(self) -> None:
        workspace = self.workspace
        if workspace is None:
            return
        scan = workspace.candidates
        candidate_list = self.candidate_list
        self._show_sessions_note(scan)
        if scan is None:
            candidate_list.empty_text = ("scanning for near-duplicates…" if workspace.complete
                                         else "scanning the folder…")
            candidate_list.set_items([])
            self._update_detail()
            return
        items: list[Proposal | Rule] = []
        if scan.pairs:
            items.append(Rule(f"Pairs · {pairs_summary(scan.pairs, scan.threshold)} · columns: "
                              "overlap, ~text similarity", "group"))
            items.extend(scan.pairs)
        multi = [c for c in scan.clusters if len(c.files) > 2]
        if multi:
            items.append(Rule(f"Clusters · {len(multi)}", "group"))
            items.extend(multi)
        if scan.contradictions:
            items.append(Rule(f"Contradictions · {len(scan.contradictions)} → supersede or review",
                              "group"))
            items.extend(scan.contradictions)
        candidate_list.empty_text = (f"no candidates among {scan.considered} files — "
                                     "nothing looks duplicated")
        keep = candidate_list.item_key(candidate_list.highlighted) if candidate_list.highlighted else None
        candidate_list.set_items(items, keep=keep)
        self._update_detail()

    def _show_sessions_note(self, scan: ScanResult | None) -> None:
        note = self.query_one("#sessions-note", Static)
        text = sessions_note(scan, self.sessions_key) if scan else ""
        note.update(text)
        note.display = bool(text)

    def cursor_moved(self) -> None:
        self._update_detail()

    def _update_detail(self) -> None:
        detail = self.query_one("#candidate-detail", Static)
        candidate = self.selected_candidate()
        if candidate is None or self.workspace is None:
            detail.update("")
            return
        files = self.workspace.snapshot.files
        text = Text()
        for path in files_of(candidate):
            memory_file = files.get(path)
            title = memory_file.title if memory_file else "(missing)"
            text.append(f"{path}\n", style="bold")
            text.append(f"  {title}\n")
        text.append("\n")
        match candidate:
            case Pair():
                if parts := contained(candidate):
                    small, large = parts
                    text.append(f"{small} is contained in {large} — the small "
                                "file's content is in the larger one, not a merge of equals\n",
                                style="bold")
                text.append(f"evidence: {candidate.evidence} · cosine {candidate.cosine:.2f}\n")
                titles = "—" if candidate.title_score is None else f"{candidate.title_score:.2f}"
                bodies = "—" if candidate.body_score is None else f"{candidate.body_score:.2f}"
                text.append(f"overlap {candidate.score:.2f} (titles {titles}, title+body {bodies})\n")
                text.append(f"similarity {candidate.similarity:.2f}\n")
                text.append(f"shared: {', '.join(candidate.shared)}"
                            f"{' …' if candidate.shared_count > len(candidate.shared) else ''}\n\n")
                text.append(_keys("m / enter  review the merge · x  reject the pair", self),
                            style="italic")
            case Cluster():
                text.append(f"{candidate.pairs} of {candidate.possible} possible pairs proposed\n")
                if candidate.review_pairwise:
                    text.append("too loose to merge at once: review it pair by pair\n", style="bold")
                text.append("\n" + _keys("m / enter  review the merge", self), style="italic")
            case Contradiction():
                text.append(f"one says {candidate.negation} of the other, overlap {candidate.score:.2f}\n")
                if candidate.subject:
                    text.append(f"about: {' '.join(candidate.subject)}\n")
                text.append("what each says:\n")
                for path, sentence in zip((candidate.old, candidate.new), candidate.sentences):
                    if sentence:
                        text.append(f"  {path}: ", style="bold")
                        text.append(f"\u201c{sentence}\u201d\n")
                if candidate.evidence:
                    text.append(f"evidence: {candidate.evidence}\n", style=self.candidate_list.style_of("muted"))
                if candidate.ordered:
                    text.append(f"proposal: supersede {candidate.old} by the newer "
                                f"{candidate.new}\n\n")
                    text.append(_keys("s / enter  supersede · x  reject", self), style="italic")
                else:
                    text.append("order unknown: the two files carry the same date, so which one "
                                "is current is yours to say\n\n", style="bold")
                    text.append(_keys("enter  pick the current one · x  reject", self),
                                style="italic")
        detail.update(text)

    @on(RowList.Selected, "#candidate-list")
    def _on_selected(self, event: RowList.Selected) -> None:
        self.post_message(self.Review(event.item))
