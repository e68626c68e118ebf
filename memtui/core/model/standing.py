"""Whether a text or a note states a standing rule or decision, in the languages of real memory
folders.  (A text predicate over the model, with nothing below it: it belongs in ``model/``,
beside :mod:`memtui.core.model.words`.)

:func:`line_states_rule` is what the index edits keep where it loads (an English directive in
the imperative, or one of :data:`RULE_WORDS`); :func:`standing_reason` is why a dated note is a
standing rule or decision that staleness does not retire for its date alone: its title or
description states a rule or names a decision, one of its first lines states a rule, its first
heading names its decisions, or it says not to change it ("do not change without …", "no cambiar sin
revisar esto", "geri ekleme", "변경 금지").
"""

from __future__ import annotations

import re

from .snapshot import MemoryFile

#: "always", "never", "must", "do not", "forbidden", "required" in the other languages of real
#: memory folders (Korean, Japanese, Chinese, Vietnamese, Spanish, French, German, Portuguese,
#: Turkish): a block holding one is a standing rule (a false alarm only keeps a block where it
#: loads)
RULE_WORDS = re.compile(
    r"항상|절대|반드시|금지|지\s?(?:말 것|말것|마세요|마라|말아|마\b)|하지\s?않|필수|주의"
    r"|必ず|絶対|禁止|しない|常に|必须|必須|不要|不得|总是|永远|務必|务必"
    r"|(?<!\w)(?:luôn|đừng|không bao giờ|không được|bắt buộc|cấm|nunca|siempre|jamais|toujours|ne jamais|niemals"
    r"|immer|nie|verboten|sempre|não|asla|her zaman|yasak|istisna yok|geri ekleme)(?!\w)",
    re.IGNORECASE)


#: an English directive where a sentence or clause starts (``Never …``, ``— do not …``), or a
#: word that makes one anywhere; "never" inside a sentence ("retired the never-build flag") is
#: a fact, not a rule
_IMPERATIVE = re.compile(r"(?i)(?:^|[.,;:!?(]\s+|\s[-—–]\s+|\*\*\s*|[-*+]\s+)"
                         r"(?:never|do not|don't|don’t|avoid|always)\b|\b(?:must not|mustn't|mandatory)\b")


#: cheap checks before the expressions (most lines hold none of these): a Korean, Japanese or
#: Chinese character, or one of the Latin-script words
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_EN_CUES = ("never", "do not", "don't", "don’t", "avoid", "always", "must not", "mustn't", "mandatory")
_LATIN_CUES = ("nunca", "siempre", "jamais", "toujours", "niemals", "immer", "nie", "verboten", "sempre",
               "luôn", "đừng", "không", "bắt buộc", "cấm", "não", "asla", "her zaman", "yasak",
               "istisna", "geri ekleme")


def _rule_word(text: str, lowered: str) -> bool:
    """Whether the text holds one of :data:`RULE_WORDS`."""
    if _CJK.search(text) is None and not any(cue in lowered for cue in _LATIN_CUES):
        return False
    return RULE_WORDS.search(text) is not None


def line_states_rule(text: str) -> bool:
    """Whether an index line (or hook) states a standing rule: an English directive in the
    imperative (:data:`_IMPERATIVE`) or one of :data:`RULE_WORDS`."""
    lowered = text.lower()
    if any(cue in lowered for cue in _EN_CUES) and _IMPERATIVE.search(text) is not None:
        return True
    return _rule_word(text, lowered)


#: a note that records a decision, by the words its title, description or a heading use
DECISION_WORDS = re.compile(
    r"(?i)(?<!\w)(?:decisions?|decided|locked(?: in)?|hard rule|hard-lock|settled|"
    r"decisi[oó]n(?:es)?|decis[aã]o|decis[oõ]es|karar(?:lar[ıi]?|ı)?|kalıcı kararlar?)(?!\w)"
    r"|결정|확정|원칙|하드룰|決定|方針|决定|决策")
#: "do not change without …" and its kin: an instruction to leave the note's content as it is
#: (matched on the lower-cased text)
KEEP_AS_IS = re.compile(
    r"(?<![a-z])(?:do not|don't|don’t|never|must not)\s+(?:change|alter|modify|edit|revert|remove|"
    r"delete|widen|reopen|add (?:it )?back)(?![a-z])"
    r"|(?<![a-z])no (?:cambiar|modificar|tocar|revertir)(?![a-z])|sin revisar"
    r"|não (?:alterar|mudar|modificar)|geri (?:ekleme|açma)"
    r"|(?:변경|수정|삭제)\s?금지|変更(?:しない|禁止)|修正禁止|不要修改|禁止修改")
BODY_LINES = 10  # the first non-blank lines of a body read for a directive
#: words that make a file's name a log of work (a session, a hand-off, a status report): a log
#: that quotes a rule it followed is still a log, retired with its date
LOG_NAME_WORDS = frozenset({"session", "sessions", "handoff", "checkpoint", "status", "progress",
                            "standup", "daily"})
_NAME_WORDS = re.compile(r"[a-z]+")


def is_log_name(path: str) -> bool:
    """Whether a file's name says it is a log of work (:data:`LOG_NAME_WORDS`) and not the
    decisions of one (``decisions_session1_2026-04-11.md``)."""
    name = path.rsplit("/", 1)[-1].lower()
    words = _NAME_WORDS.findall(name)
    return not LOG_NAME_WORDS.isdisjoint(words) and DECISION_WORDS.search(" ".join(words)) is None


#: what :data:`KEEP_AS_IS` needs in a body's lower-cased text to match at all (most bodies hold
#: none: the expression is not run over them)
_KEEP_CUES = ("do not", "don't", "don’t", "never", "must not", "cambiar", "modificar", "tocar",
              "revertir", "sin revisar", "não", "geri ", "금지", "変更", "修正禁止", "修改")
_STRONG = ("must not", "mustn't", "mandatory")  # a directive wherever it stands
_CLAUSE_WORDS = ("never", "do not", "don't", "don’t", "avoid", "always")  # one where a clause starts


def _word_at(lowered: str, pos: int, end: int) -> bool:
    """Whether ``lowered[pos:end]`` is a whole word (no letter, digit or ``_`` either side)."""
    before = lowered[pos - 1] if pos else " "
    after = lowered[end] if end < len(lowered) else " "
    return not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_")


def _clause_start(line: str) -> bool:
    """Whether what precedes a word on its line starts a clause, as :data:`_IMPERATIVE` reads it:
    nothing, or a stop or bracket and a space, a dash between spaces, ``**``, a bullet."""
    stripped = line.rstrip()
    if not stripped:
        return not line
    gap = len(line) - len(stripped)
    last = stripped[-1]
    if stripped.endswith("**"):
        return True
    if gap and last in ".,;:!?(-*+":
        return True
    return bool(gap) and last in "—–" and len(stripped) > 1 and stripped[-2].isspace()


def _states_rule_lines(text: str) -> bool:
    """:func:`line_states_rule` of every line of ``text`` at once, found from the cue words (a
    scan of the whole text with the expression costs more than the words' ``find``)."""
    lowered = text.lower()
    for word in _STRONG:
        pos = lowered.find(word)
        while pos >= 0:
            if _word_at(lowered, pos, pos + len(word)):
                return True
            pos = lowered.find(word, pos + 1)
    for word in _CLAUSE_WORDS:
        pos = lowered.find(word)
        while pos >= 0:
            end = pos + len(word)
            if _word_at(lowered, pos, end) and _clause_start(lowered[lowered.rfind("\n", 0, pos) + 1:pos]):
                return True
            pos = lowered.find(word, end)
    return _rule_word(text, lowered)


def standing_reason(f: MemoryFile, lowered: str | None = None) -> str | None:
    """Why a note is a standing rule or decision (see the module docstring), in words, or None;
    never for a file named as a log of work (:func:`is_log_name`).  ``lowered``: the body
    lower-cased, when the caller has it."""
    if is_log_name(f.path):
        return None
    title, description = f.frontmatter.get("name"), f.frontmatter.get("description")
    for label, text in (("title", title), ("description", description)):
        if text and line_states_rule(text):
            return f"its {label} states a rule"
        if text and DECISION_WORDS.search(text):
            return f"its {label} records a decision"
    body = f.body
    first: list[str] = []
    titled = False  # the body's first heading (its title) was read
    for line in body.split("\n", 4 * BODY_LINES):
        stripped = line.strip()
        if not stripped or stripped == "---" or stripped.startswith("<!--"):
            continue
        if stripped.startswith("#"):
            if not titled and DECISION_WORDS.search(stripped):
                return "its heading names its decisions"
            titled = True
            continue
        first.append(stripped)
        if len(first) >= BODY_LINES:
            break
    if first and _states_rule_lines("\n".join(first)):
        return "its first lines state a rule"
    if lowered is None:
        lowered = body.lower()
    for cue in _KEEP_CUES:  # the expression only where a cue is: most bodies have none
        pos = lowered.find(cue)
        while pos >= 0:
            keep = KEEP_AS_IS.search(lowered, max(0, pos - 12), pos + len(cue) + 40)
            if keep is not None:
                return f"it says to keep it as it is ('{keep.group(0)}')"
            pos = lowered.find(cue, pos + len(cue))
    return None


DIRECTIVE_WORDS = ("do not", "don't", "don’t", "never", "avoid")


def directive_word(body: str, lowered: str | None = None) -> str | None:
    """The first directive word (``do not``, ``don't``, ``never``, ``avoid``) the body uses as a
    whole word, any case; ``None`` when there is none.  ``lowered`` is ``body.lower()`` if the
    caller has it already."""
    if lowered is None:
        lowered = body.lower()
    for word in DIRECTIVE_WORDS:
        pos = lowered.find(word)
        while pos >= 0:
            end = pos + len(word)
            before = lowered[pos - 1] if pos else " "
            after = lowered[end] if end < len(lowered) else " "
            if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
                return word.replace("’", "'")
            pos = lowered.find(word, end)
    return None
