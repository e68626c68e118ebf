"""The hook policy: judge one proposed memory write, and what Stop and SessionStart should say.

Pure: everything here reads snapshots and strings, never the disk (``memtui.cli.hook`` reads and
prints).  The write is played on the snapshot and gated by :func:`memtui.core.write.preview.plan`, the
same gate every memtui change passes; the hook policy then forgives the one error the agent's
own protocol creates — the topic file it writes first is an orphan until its index line arrives
(CLAUDE-CODE.md: "The agent writes a topic file first and the index line after it") — and adds
one rule the gate leaves to warnings: a write that brings in a ``secret`` is denied.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..model.changeset import Changeset, ChangesetError, Create, Write, is_archive_index, is_index
from ..model.snapshot import (
    AGENT_LOADER,
    ARCHIVE_INDEX_NAME,
    INDEX_NAME,
    BudgetConfig,
    Finding,
    Index,
    Snapshot,
    decode_bytes,
    encode_text,
    in_team,
)
from ..rules.budget import Budget, entries_past_cut, measure
from ..write import plan

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from ..rules.incremental import FindingsCache

#: Claude Code caps hook output strings at 10,000 characters (CLAUDE-CODE.md "Hooks")
OUTPUT_CAP = 10_000
REASON_CAP = OUTPUT_CAP - 200  # room for the JSON around it and a system message
LINE_CAP = 1_000  # one finding's line in a reason
CONTEXT_CAP = 600
#: the tools that write a file (CLAUDE-CODE.md: there is no MultiEdit tool)
WRITE_TOOLS = ("Write", "Edit")


class HookInputError(ValueError):
    """Hook input that is not what Claude Code sends; the hook says so on stderr and allows."""


# ---------------------------------------------------------------- replaying the tool call


def _str_field(obj: Mapping[str, object], key: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise HookInputError(f"tool_input.{key} is missing or not a string")
    return value


def _edit(text: str | None, edit: Mapping[str, object]) -> str | None:
    """One Edit played on a text, or None when Claude Code itself will refuse it."""
    old, new = _str_field(edit, "old_string"), _str_field(edit, "new_string")
    replace_all = edit.get("replace_all") is True
    if text is None:
        return new if old == "" else None  # an empty old_string on a new file creates it
    if old == "" or old == new:
        return None
    count = text.count(old)
    if count == 0 or (count > 1 and not replace_all):
        return None
    return text.replace(old, new) if replace_all else text.replace(old, new, 1)


def proposed_text(tool_name: str, tool_input: Mapping[str, object], current: str | None) -> str | None:
    """The file's text after a Write or Edit call, or None when Claude Code will fail the call on
    its own (an ``old_string`` not found, or found twice without ``replace_all``).

    Tool inputs as CLAUDE-CODE.md lists them: Write ``content``; Edit ``old_string``,
    ``new_string``, ``replace_all``.
    """
    if tool_name == "Write":
        return _str_field(tool_input, "content")
    if tool_name == "Edit":
        return _edit(current, tool_input)
    raise HookInputError(f"tool_name '{tool_name}' is not Write or Edit")


# ---------------------------------------------------------------- the verdict on one write


@dataclass(frozen=True)
class HookVerdict:
    """``allow`` or ``deny`` for one memory write, the reason the agent reads, and a paragraph
    about the change for a person (``--ask``)."""

    decision: str
    reason: str = ""
    summary: str = ""
    refusing: tuple[Finding, ...] = ()
    before: tuple[Finding, ...] | None = None  # the root's findings before the write, when known
    #: the root and its findings once an allowed write lands (when the write was played)
    landed: tuple[Snapshot, FindingsCache] | None = field(default=None, compare=False, repr=False)


_ADVICE = {
    "index-missing": "create MEMORY.md first (a heading will do), then write the topic file and "
                     "add its line",
    "budget": (
        "keep MEMORY.md under {max_lines} lines and {max_bytes:,} {unit} (aim for about {aim} "
        "lines): make this change shorter, or first merge related entries into one line, or "
        "replace a family of entries with one region pointer line such as "
        "\"- region `lesson_*.md` → older lessons; grep the memory dir\" (the files stay "
        "reachable), then write again"
    ),
    "broken-link": "write the topic file first and its index line after, or fix the link",
    "orphan": "keep an index line (or a region pointer) for every memory file this change "
              "would leave unreachable",
    "link-escapes-root": "link only to files inside the memory folder",
    "secret": "leave the credential out of memory (say where it lives instead, e.g. 'in the team "
              "vault as X'), and rotate it if it was real",
}


def _where(f: Finding) -> str:
    return f.path + (f":{f.line}" if f.line else "")


def _current_bytes(snapshot: Snapshot, rel: str) -> bytes | None:
    if rel == INDEX_NAME:
        return snapshot.index.render() if snapshot.index.exists else None
    if is_archive_index(rel):
        return snapshot.archive_index.render() if snapshot.archive_index.exists else None
    f = snapshot.files.get(rel)
    return f.data if f is not None else None


def empty_snapshot(root: Path) -> Snapshot:
    """A memory folder that does not exist yet (the agent's first write creates it)."""
    return Snapshot(root=root, index=Index(INDEX_NAME, False),
                    archive_index=Index(ARCHIVE_INDEX_NAME, False), files={},
                    config=BudgetConfig().for_root(root))


def current_text(snapshot: Snapshot, rel: str) -> str | None:
    """What the snapshot holds for a root-relative path (None: no such memory file)."""
    data = _current_bytes(snapshot, rel)
    return decode_bytes(data) if data is not None else None


def escape_verdict(rel: str, real: str, tool: str) -> HookVerdict:
    """Deny a write whose path leads out of its memory root through a symlink."""
    reason = (
        f"memtui (memory guard) refuses this {tool}: {rel} is inside the memory folder but is a "
        f"symlink (or lies below one) leading out of it, to {real}, so the bytes would land "
        "outside the memory folder (link-escapes-root). What to do: write a regular file inside "
        "the memory folder instead."
    )
    return HookVerdict("deny", reason, reason)


def judge_write(snapshot: Snapshot, rel: str, after_text: str, tool: str = "Write",
                cache: FindingsCache | None = None) -> HookVerdict:
    """Gate a proposed write of ``rel`` (root-relative) with the hook policy (``cache``: the
    snapshot's findings, when known: only what the write can affect is validated again).

    Deny when the write adds an error other than the orphan of ``rel`` itself, grows a budget
    overflow, or adds a ``secret``; allow otherwise (also when the path is not a memory file:
    hidden, not Markdown, inside a nested root).
    """
    if rel in snapshot.outside:
        return escape_verdict(rel, "a path outside the root", tool)
    before = _current_bytes(snapshot, rel)
    after = encode_text(after_text)
    if before == after:
        return HookVerdict("allow", summary=_summary(snapshot, rel, tool, before, after, None, "allow", ""))
    op = Write(rel, after, before) if before is not None else Create(rel, after)
    try:
        preview = plan(snapshot, Changeset("hook", f"{tool} {rel}", (op,)), cache)
    except ChangesetError:
        return HookVerdict("allow")
    had = tuple(preview.before_cache.findings)
    refusing = tuple(f for f in preview.gate.refusing
                     if not (f.rule == "orphan" and f.path == rel) and not in_team(f.path))
    if not snapshot.index.exists and not snapshot.files:
        # no root yet (Claude Code creates a subagent's memory folder empty when it starts): its
        # missing index is no old error, so the session's baseline holds none, and a subagent's
        # first topic file there is held until MEMORY.md exists
        had = tuple(f for f in had if f.rule != "index-missing")
        if snapshot.config.loader == AGENT_LOADER and not is_index(rel):
            refusing += tuple(f for f in preview.findings if f.rule == "index-missing")
    secrets = _added_secrets(had, preview.findings)
    after_budget = measure(preview.after.index, preview.after.config)
    grown = preview.gate.reason
    if not (refusing or secrets or grown):
        return HookVerdict("allow", summary=_summary(snapshot, rel, tool, before, after,
                                                     after_budget, "allow", ""), before=had,
                           landed=(preview.after, preview.cache))
    reason = _deny_reason(snapshot, rel, tool, refusing + secrets, grown, preview.after, after_budget)
    summary = _summary(snapshot, rel, tool, before, after, after_budget, "deny", reason)
    return HookVerdict("deny", reason, summary, refusing + secrets, had)


def _added_secrets(before: Sequence[Finding], after: Sequence[Finding]) -> tuple[Finding, ...]:
    """``secret`` findings beyond those of the same kind the file already had: a secret's
    subject carries its line, so an edit above an old secret must not read as a new one."""
    def kind(f: Finding) -> tuple[str, str]:
        return f.path, f.subject.split(":", 1)[0]

    had = Counter(kind(f) for f in before if f.rule == "secret")
    out = []
    for f in after:
        if f.rule == "secret":
            if had[kind(f)] > 0:
                had[kind(f)] -= 1
            else:
                out.append(f)
    return tuple(out)


def _deny_reason(snapshot: Snapshot, rel: str, tool: str, findings: tuple[Finding, ...],
                 grown: str, after: Snapshot, budget: Budget) -> str:
    """Why the write is refused and what to do, within Claude Code's output cap: the findings
    that fit, "… and N more" for the rest, and the advice always whole."""
    config = snapshot.config
    head = (f"memtui (memory guard) refuses this {tool} of {rel} in the memory folder "
            f"{snapshot.root}:")
    lines: list[str] = []
    advice: list[str] = []
    started = False  # an overflow this write starts is a finding; the gate's growth line repeats it
    for f in findings:
        lines.append(cap(f"- {f.rule} at {_where(f)}: {f.message}", LINE_CAP))
        started = started or f.rule in ("budget-lines", "budget-bytes")
        if f.rule in _ADVICE and _ADVICE[f.rule] not in advice:
            advice.append(_ADVICE[f.rule])
    budget_hit = started or bool(grown)
    if grown and not started:
        past = len(entries_past_cut(after.index, budget))
        lines.insert(0, cap(
            f"- {grown}: the loader stops at {budget.cut_where() or 'the cap'} and {past} "
            f"entr{'y' if past == 1 else 'ies'} would fall past the cut and never load", LINE_CAP))
    if budget_hit:
        advice.insert(0, _ADVICE["budget"].format(max_lines=config.max_lines,
                                                   max_bytes=config.max_bytes, unit=budget.unit,
                                                   aim=int(config.max_lines * 0.7)))
    tail = cap("What to do: " + "; ".join(advice) + ".", REASON_CAP // 2) if advice else ""
    return fit([head], lines, [tail] if tail else [], REASON_CAP,
               f"run `memtui validate {snapshot.root}` for the rest")


def fit(head: Sequence[str], items: Sequence[str], tail: Sequence[str], limit: int,
        rest_hint: str) -> str:
    """``head``, as many ``items`` as fit, "… and N more (hint)" and ``tail``, joined by line
    breaks, within ``limit`` characters (the head and tail are kept whole)."""
    fixed = sum(len(x) + 1 for x in (*head, *tail))
    shown: list[str] = []
    used = fixed
    for k, item in enumerate(items):
        more = len(items) - k - 1
        reserve = len(f"… and {more} more ({rest_hint})") + 1 if more else 0
        if used + len(item) + 1 + reserve > limit:
            break
        shown.append(item)
        used += len(item) + 1
    if len(shown) < len(items):
        shown.append(f"… and {len(items) - len(shown)} more ({rest_hint})")
    return cap("\n".join([*head, *shown, *tail]), limit)


def _summary(snapshot: Snapshot, rel: str, tool: str, before: bytes | None, after: bytes,
             budget: Budget | None, decision: str, reason: str) -> str:
    """One paragraph a person reads before approving a memory write (``hook pre --ask``)."""
    if before is None:
        change = f"create {rel} ({len(after):,} bytes, {_count_lines(after)} lines)"
    else:
        change = (f"change {rel} from {_count_lines(before)} to {_count_lines(after)} lines "
                  f"({len(before):,} → {len(after):,} bytes)")
    parts = [f"Claude wants to {change} in the memory folder {snapshot.root} ({tool})."]
    index_before = measure(snapshot.index, snapshot.config)
    if budget is not None and rel == INDEX_NAME:
        parts.append(f"MEMORY.md goes from {index_before.lines} to {budget.lines} of "
                     f"{budget.max_lines} lines.")
    elif before is None and rel != INDEX_NAME:
        parts.append("It is a new topic file: its MEMORY.md line should follow.")
    if decision == "allow":
        parts.append("memtui's verdict: allowed — the validator finds no new error.")
    else:
        first = reason.split("\n", 2)[1] if "\n" in reason else reason
        parts.append(f"memtui's verdict: it would be denied — {first.lstrip('- ')}")
    return cap(" ".join(parts), REASON_CAP)


def _count_lines(data: bytes) -> int:
    return data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)


def cap(text: str, limit: int) -> str:
    """A string cut to ``limit`` characters (with an ellipsis), for Claude Code's output cap."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---------------------------------------------------------------- Stop and SessionStart


@dataclass(frozen=True)
class RootReport:
    """What the Stop and SessionStart hooks know of one memory root."""

    label: str  # how to name the root to the agent (a path)
    findings: tuple[Finding, ...]
    budget: Budget
    past_cut: int  # entries and region pointers the loader never reads
    to_prune: int = 0  # files whose age-only staleness says prune


def report_of(label: str, snapshot: Snapshot, findings: Sequence[Finding], to_prune: int = 0) -> RootReport:
    budget = measure(snapshot.index, snapshot.config)
    return RootReport(label, tuple(findings), budget, len(entries_past_cut(snapshot.index, budget)),
                      to_prune)


_FIXES = {
    "orphan": "add its line to MEMORY.md (`- [Title](file.md) — one-line hook`)",
    "budget-lines": "shorten MEMORY.md below the cap: merge related entries or replace a family "
                    "of entries with one region pointer",
    "budget-bytes": "shorten the index's hooks, merge related entries, or use region pointers",
    "broken-link": "write the missing topic file, or fix or drop the index line",
    "index-missing": "create MEMORY.md with one line per memory file",
}


def stop_reason(new: Sequence[tuple[str, Sequence[Finding]]], limit: int = 8) -> str | None:
    """Why the agent should not stop yet: the errors *this session introduced* in the memory it
    owns (root label, errors), or None when there are none.  At most ``limit`` are spelled out."""
    items: list[str] = []
    total = shown = 0
    for label, errors in new:
        if not errors:
            continue
        total += len(errors)
        items.append(f"{label}: {len(errors)} new error{'s' * (len(errors) != 1)}")
        for f in errors:
            if shown >= limit:
                continue
            shown += 1
            fix = _FIXES.get(f.rule)
            message = f.message.rstrip(".")
            items.append(cap(f"- {f.rule} at {_where(f)}: {message}" + (f". Fix: {fix}." if fix else "."),
                             LINE_CAP))
    if not items:
        return None
    if total > shown:
        items.append(f"… and {total - shown} more (run `memtui validate` on the folder)")
    head = ("memtui (memory guard): memory writes in this session left "
            f"{total} error{'s' * (total != 1)} that {'were' if total != 1 else 'was'} not there "
            f"when it began; fix {'them' if total != 1 else 'it'} before you stop (each error is "
            "raised once; errors that were there before are left to the person).")
    return fit([head], items, [], REASON_CAP, "run `memtui validate` on the folder")


def session_lines(reports: Sequence[RootReport]) -> list[str]:
    """What the agent is told at session start: one line a root that needs attention (facts
    only), then which commands give the details — ``memtui validate`` and ``memtui loaded``,
    which print and exit with no terminal needed (never the bare app)."""
    notes: list[str] = []
    for report in reports:
        b = report.budget
        bits: list[str] = []
        if b.cut_line is not None:
            entries = (f", {report.past_cut} entr{'y' if report.past_cut == 1 else 'ies'} did "
                       "not load" if report.past_cut else "")
            bits.append(f"MEMORY.md is {b.lines} lines, {b.bytes:,} {b.unit} (limits "
                        f"{b.max_lines}, {b.max_bytes:,}): it loaded up to {b.cut_where()}"
                        f"{entries}")
        elif b.utilization >= 0.9:
            bits.append(f"MEMORY.md uses {b.utilization:.0%} of what loads ({b.lines}/"
                        f"{b.max_lines} lines, {b.bytes:,}/{b.max_bytes:,} {b.unit})")
        errors = [f for f in report.findings if f.severity == "error" and not in_team(f.path)
                  and f.rule not in ("budget-lines", "budget-bytes")]
        if errors:
            rules = sorted({f.rule for f in errors})
            bits.append(f"{len(errors)} error{'s' * (len(errors) != 1)} already there "
                        f"({', '.join(rules)})")
        if report.to_prune:
            bits.append(f"{report.to_prune} file{'s' * (report.to_prune != 1)} old enough to prune")
        if bits:
            notes.append(f"{report.label}: " + "; ".join(bits) + ".")
    if notes:
        notes.append("Details: `memtui validate <folder>` lists the findings, `memtui loaded "
                     "<folder>` shows what loads (both print and exit).")
    return notes


def session_context(lines: Sequence[str]) -> str | None:
    """The SessionStart context made of :func:`session_lines` (and any other line a caller
    adds), at most 600 characters, or None when there is nothing to say."""
    if not lines:
        return None
    return cap("memtui (memory check at session start): " + " ".join(lines), CONTEXT_CAP)
