"""Which memory files are logs of work: session logs, hand-offs, status reports, checkpoints,
daily and progress notes — whatever their names.

A log records where the work stood at one time; a later log of the same work often restates it.
The consolidation scan leaves logs out of its merges of equals unless asked (successive beats of
one piece of work share titles and words by construction), and the supersession proposals chain
them (:mod:`.supersession`).  A file is a log when

- **its name says so** (and it is no rule — a ``feedback``, ``user`` or ``reference`` note about
  hand-offs is a rule about them): a word of :data:`LOG_NAME_WORDS` in its name (``session_…``,
  ``handoff-…``, ``project_status_…``, ``checkpoint_3``, ``standup``, ``oturum-durumu``,
  ``引き継ぎ``); the words are the vocabulary of work logs in the languages memory folders are
  written in, fixed from those languages, not read off any folder;
- **its name is one of a dated family**: two or more files of one folder whose names are the same
  once their dates, times, parts of the day and sequence numbers are taken out, one at least a
  date, time or part of the day (``project_status_2026-05-03_morning.md`` … ``_evening.md``;
  ``2026-05-03-standup.md``) — one stem repeated over time is a series of reports, whatever the
  stem says; a stem numbered only (``note_1.md``, ``note_2.md``) is a set of notes;
- **its text opens as one**: its title or first heading names it a status, hand-off or session
  report (``Session log 2026-05-03``, ``Status as of …``, ``KALDIĞIMIZ NOKTA``, ``引き継ぎ``).  Dated
  sections alone do not make one: a project note that keeps its updates under dated headings is a
  living note, not a series of reports.

Pure: reads the files it is given, never the disk.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Callable, Iterable

from ..model.snapshot import MemoryFile

#: words of a file name that make it a log (lower case; a name's words are split at ``_``, ``-``,
#: ``.`` and spaces, and CJK words are matched as substrings)
LOG_NAME_WORDS = frozenset("""
    session sessions handoff handoffs hand-off checkpoint checkpoints status standup standups
    daily dailies devlog worklog changelog progress recap retro retrospective wrapup debrief
    journal diary timeline
    oturum durum devir gunluk günlük ilerleme
    sessao sessão progresso andamento diario diário
    sesion sesión avance bitacora bitácora
    세션 진행 인수인계 현황 일지
    """.split())
_CJK_NAME_WORDS = ("引き継ぎ", "引継ぎ", "進捗", "日報", "作業ログ", "セッション", "交接", "进度", "日志", "会话")
#: the types (and name prefixes) of notes that state a rule, never a log of work
RULE_TYPES = frozenset({"feedback", "user", "reference", "decision", "value"})

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_LETTERS = re.compile(r"[^\W\d_]+", re.UNICODE)
_DATE = re.compile(r"(?<!\d)(?:\d{4}([-_.]?)\d{2}\1\d{2})(?!\d)")
_TIME = re.compile(r"(?<!\d)(?:[01]\d|2[0-3])[-_:h.]?[0-5]\d(?:[-_:.]?[0-5]\d)?(?!\d)")
_PART_OF_DAY = re.compile(
    r"(?<![^\W_])(?:morning|afternoon|evening|night|midday|noon|am|pm|eod|sod|"
    r"sabah|ogle|öğle|aksam|akşam|gece|manha|manhã|tarde|noite|mañana|noche)(?![^\W_])",
    re.IGNORECASE)
_SEQUENCE = re.compile(r"(?<![^\W_\d])(?:[a-z]{0,5})?\d+(?![^\W_])", re.IGNORECASE)
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
#: how a report names itself in its title or first heading (lower case)
_REPORT_TITLE = re.compile(
    r"(?<![^\W_])(?:session (?:log|notes?|summary|recap|handoff)|hand-?off|status (?:report|update|as of)|"
    r"progress (?:report|update|log)|daily (?:log|notes?|standup)|stand-?up|checkpoint|work ?log|"
    r"where we left off|kaldığımız nokta|oturum (?:notu|özeti|durumu)|durum raporu|devir notu|"
    r"relatório de status|status da sessão|estado de la sesión)(?![^\W_])"
    r"|引き継ぎ|進捗|日報|作業ログ|인수인계|진행 상황|세션 (?:로그|요약)|交接|进度|工作日志",
    re.IGNORECASE)
_FIRST_LINES = 15  # the lines a report's own heading is looked for in


def name_family(path: str) -> str | None:
    """A file name less its dates, times, parts of the day and sequence numbers, or None when it
    has none of them: names of one family differ only in when (or which one) they are."""
    folder, _, name = path.rpartition("/")
    stem = name[:-3] if name.lower().endswith(".md") else name
    stem = stem.lower()
    out = _DATE.sub("<date>", stem)
    out = _TIME.sub("<time>", out) if out != stem else out
    out = _PART_OF_DAY.sub("<part>", out)
    out = _SEQUENCE.sub("<n>", out)
    if out == stem:
        return None
    return f"{folder}/{out}"


def _name_says_log(path: str) -> bool:
    name = path.rsplit("/", 1)[-1].lower()
    if any(word in name for word in _CJK_NAME_WORDS):
        return True
    words = _LETTERS.findall(name[:-3] if name.endswith(".md") else name)
    return any(w in LOG_NAME_WORDS for w in words) or "hand-off" in name


def is_rule_note(f: MemoryFile) -> bool:
    """Whether a note states a rule: its type, else its name's first word, is one of :data:`RULE_TYPES`."""
    if f.type in RULE_TYPES:
        return True
    first = _WORD.match(f.name.lower())
    return f.type == "unknown" and first is not None and first.group(0) in RULE_TYPES


def opens_as_log(f: MemoryFile) -> bool:
    """Whether a file's title or first heading names it a report (see the module docstring)."""
    title = f.title or ""
    head = "\n".join(f.body.splitlines()[:_FIRST_LINES])
    first = _HEADING.search(head)
    if _REPORT_TITLE.search(title) is not None:
        return True
    return first is not None and _REPORT_TITLE.search(first.group(1)) is not None


def log_paths(files: Iterable[MemoryFile], opens: Callable[[MemoryFile], bool] | None = None) -> frozenset[str]:
    """The paths of the files that are logs (see the module docstring); ``opens``: how a file's
    opening is read (:func:`opens_as_log` when None; a caller may keep its answers)."""
    opens = opens_as_log if opens is None else opens
    files = list(files)
    families: dict[str, list[str]] = defaultdict(list)
    out = set()
    rules = set()  # the rule notes (asked once a file)
    for f in files:
        family = name_family(f.path)
        if family is not None:
            families[family].append(f.path)
        if is_rule_note(f):
            rules.add(f.path)
        elif _name_says_log(f.path) or opens(f):
            out.add(f.path)
    for family, members in families.items():
        # a stem repeated with dates or times is a series over time; one numbered only (note_1,
        # note_2) is a set of notes unless its name says log (checkpoint_3: caught above)
        if len(members) >= 2 and ("<date>" in family or "<time>" in family or "<part>" in family):
            out.update(m for m in members if m not in rules)
    return frozenset(out)


def is_log_name(path: str) -> bool:
    """Whether a file's name alone says it is a log (a word of :data:`LOG_NAME_WORDS`): what can
    be told without its folder or its text."""
    return _name_says_log(path)
