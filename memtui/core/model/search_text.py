"""The words full-text search holds and the queries it answers (pure: no database here).

The search index (:mod:`memtui.core.stores.search_index`) keeps SQLite FTS5's ``unicode61``
tokenizer, accents folded (``remove_diacritics 2``: ``résumé`` finds ``resume``), and hands it
text made ready by :func:`index_text`:

- a run of Han, kana or Hangul characters (scripts written without spaces between words) becomes
  its overlapping character bigrams and its last character alone, so ``設定`` is found inside
  ``設定ファイル`` and a one-character query finds every place the character is (``unicode61``
  alone keeps a whole run as one token: a Japanese sentence would be one word).  The trigram
  tokenizer was measured against it on the Japanese, Korean and Chinese folders of the corpora
  (``bench/eval_search_cjk.py``): it cannot match a query under three characters, and most
  Japanese and Chinese words are two;
- Turkish dotless ``ı`` is read as ``i`` (and ``İ`` folds to ``i``): ``calisma`` finds ``çalışma``.

A query (:func:`parse_query`) is words, ``"quoted phrases"`` and ``prefix*`` words; every one must
be found (in the file's name, title, description, index hook or body).  It is never handed to FTS5
as written: :func:`match_expression` quotes each part, so no text a person types is FTS5 syntax.
Several plain words are also asked for as one phrase (:func:`phrase_expression`): files that hold
them in that order rank first.

:func:`marked_snippet` cuts the snippet a hit shows from the file's text as it is now, the matches
marked, by the same folding rules.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from .words import _BIGRAM_SCRIPTS as BIGRAM_RUNS  # the scripts written without spaces

#: the columns of the index, in order, and their weights in the BM25 rank (a word in a title or a
#: hook says more of what a file is about than one in its body)
COLUMNS = ("name", "title", "description", "hook", "body")
WEIGHTS = (4.0, 4.0, 3.0, 3.0, 1.0)

_TURKISH = str.maketrans({"ı": "i", "İ": "i"})
_WORDS = re.compile(r"[^\W_]+")


def index_text(text: str) -> str:
    """``text`` as the index's tokenizer is given it (see the module docstring)."""
    text = text.translate(_TURKISH)
    if text.isascii():
        return text
    return BIGRAM_RUNS.sub(_bigrams, text)


def _bigrams(match: re.Match[str]) -> str:
    run = match.group()
    if len(run) == 1:
        return f" {run} "
    return " " + " ".join([run[k : k + 2] for k in range(len(run) - 1)] + [run[-1]]) + " "


@dataclass(frozen=True)
class Term:
    """One part of a query: a word, a phrase (its words in order) or a prefix."""

    text: str
    phrase: bool = False
    prefix: bool = False

    def expression(self) -> str:
        """This part as an FTS5 string (quoted: nothing in it is FTS5 syntax)."""
        body, prefix = _query_tokens(self.text)
        quoted = '"' + body.replace('"', '""') + '"'
        return quoted + "*" if self.prefix or prefix else quoted


def _query_tokens(text: str) -> tuple[str, bool]:
    """A query part's text for FTS5, and whether its last token must be taken as a prefix: a
    Han/kana/Hangul run gives its bigrams (not the lone last character the index adds), one
    character of such a run is a prefix of the index's bigrams."""
    text = text.translate(_TURKISH)
    if text.isascii():
        return text, False
    parts: list[str] = []
    prefix = False
    last = 0
    for match in BIGRAM_RUNS.finditer(text):
        parts.append(text[last : match.start()])
        run = match.group()
        prefix = len(run) == 1 and match.end() == len(text.rstrip())
        parts.append(" " + (run if len(run) == 1 else
                            " ".join(run[k : k + 2] for k in range(len(run) - 1))) + " ")
        last = match.end()
    parts.append(text[last:])
    body = "".join(parts)
    return body, prefix and not _WORDS.search(text[last:])


@dataclass(frozen=True)
class Query:
    """A parsed query: its parts, every one of which a hit holds."""

    text: str
    terms: tuple[Term, ...]

    @property
    def empty(self) -> bool:
        return not self.terms


_PART = re.compile(r'"([^"]*)"?|(\S+)')


def parse_query(text: str) -> Query:
    """Words, ``"quoted phrases"`` (an unclosed quote runs to the end) and ``prefix*`` words; a
    part with no letter or digit in it is dropped."""
    terms: list[Term] = []
    for match in _PART.finditer(text):
        quoted, word = match.group(1), match.group(2)
        if quoted is not None:
            if _WORDS.search(quoted):
                terms.append(Term(" ".join(quoted.split()), phrase=len(_WORDS.findall(quoted)) > 1))
            continue
        prefix = word.endswith("*")
        word = word.rstrip("*")
        if _WORDS.search(word):
            terms.append(Term(word, prefix=prefix, phrase=len(_WORDS.findall(word)) > 1))
    return Query(text, tuple(terms))


def match_expression(query: Query) -> str:
    """The FTS5 MATCH expression that holds every part of ``query`` ("" for an empty one)."""
    return " AND ".join(term.expression() for term in query.terms)


def phrase_expression(query: Query) -> str | None:
    """The plain words of ``query`` as one phrase, in the order typed (None unless there are two
    or more and nothing else): files holding them so rank above files holding them apart."""
    if len(query.terms) < 2 or any(t.phrase or t.prefix for t in query.terms):
        return None
    return Term(" ".join(t.text for t in query.terms), phrase=True).expression()


# ---------------------------------------------------------------- snippets


@lru_cache(maxsize=4096)
def _fold_char(ch: str) -> str:
    """One character as the tokenizer compares it: lower case, accents off, ``ı`` as ``i``."""
    folded = unicodedata.normalize("NFKD", ch.translate(_TURKISH).casefold())
    return "".join(c for c in folded if not unicodedata.combining(c)) or (" " if ch.isspace() else ch)


def fold(text: str) -> tuple[str, list[int]]:
    """``text`` folded as the tokenizer compares it, and for each folded character the index of
    the character of ``text`` it came from."""
    if text.isascii():
        return text.lower(), list(range(len(text)))
    out: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        folded = _fold_char(ch)
        out.append(folded)
        origin.extend([i] * len(folded))
    return "".join(out), origin


def _term_pattern(term: Term) -> re.Pattern[str] | None:
    folded, _ = fold(term.text)
    words = _WORDS.findall(folded)
    if not words:
        return None
    parts = []
    for word in words:
        if BIGRAM_RUNS.fullmatch(word) or not word.isascii() and BIGRAM_RUNS.search(word):
            parts.append(re.escape(word))  # a run of those scripts is found anywhere
        else:
            parts.append(r"(?<![^\W_])" + re.escape(word))
    tail = "" if term.prefix or BIGRAM_RUNS.search(words[-1]) else r"(?![^\W_])"
    return re.compile(r"[\W_]+".join(parts) + (r"[^\W_]*" if term.prefix else "") + tail)


@dataclass(frozen=True)
class Snippet:
    """A short piece of a file's text around its matches: ``text`` on one line, ``marks`` the
    (start, end) offsets of each match in it."""

    text: str
    marks: tuple[tuple[int, int], ...]

    def to_json(self) -> dict[str, object]:
        return {"text": self.text, "marks": [list(m) for m in self.marks]}


def match_spans(text: str, query: Query) -> list[tuple[int, int]]:
    """Where the parts of ``query`` occur in ``text`` (offsets into ``text``), in order."""
    folded, origin = fold(text)
    spans: list[tuple[int, int]] = []
    for term in query.terms:
        pattern = _term_pattern(term)
        if pattern is None:
            continue
        for match in pattern.finditer(folded):
            if match.end() > match.start():
                spans.append((origin[match.start()], origin[match.end() - 1] + 1))
    return sorted(set(spans))


def _wide(text: str) -> bool:
    """Whether most of a text's characters take two terminal cells (Han, kana, Hangul)."""
    sample = text[:400]
    wide = sum(1 for ch in sample if unicodedata.east_asian_width(ch) in "WF")
    return wide * 3 > len(sample)


def marked_snippet(texts: list[str], query: Query, width: int = 160) -> Snippet:
    """The piece of the first of ``texts`` (e.g. body, then hook, description, title) that holds
    the most of the query's matches, about ``width`` terminal cells (half as many characters of
    a text written in wide characters), whitespace made single spaces."""
    best: tuple[int, str, list[tuple[int, int]]] | None = None
    cells = width
    for text in texts:
        flat = " ".join(text.split())
        width = cells // 2 if not flat.isascii() and _wide(flat) else cells
        spans = match_spans(flat, query)
        if spans:
            start = _window(spans, width)
            inside = [s for s in spans if s[0] >= start and s[1] <= start + width]
            if best is None or len(inside) > best[0]:
                best = (len(inside), flat, spans)
            if len({s for s in inside}) >= len(query.terms):
                break
    if best is None:
        flat = next((" ".join(t.split()) for t in texts if t.strip()), "")
        width = cells // 2 if not flat.isascii() and _wide(flat) else cells
        return Snippet(_cut(flat, 0, width)[0], ())
    _, flat, spans = best
    width = cells // 2 if not flat.isascii() and _wide(flat) else cells
    start = _window(spans, width)
    text, offset = _cut(flat, start, width)
    marks = tuple((a - start + offset, b - start + offset) for a, b in spans
                  if a >= start and b <= start + width and b - start + offset <= len(text))
    return Snippet(text, marks)


def _window(spans: list[tuple[int, int]], width: int) -> int:
    """Where a window of ``width`` characters holding the most spans starts (a little before the
    first of them, so the match has some text before it); ``spans`` are sorted."""
    best_start, best_count = spans[0][0], 0
    end = 0
    for i, (a, _) in enumerate(spans):
        end = max(end, i)
        while end < len(spans) and spans[end][1] <= a + width:
            end += 1
        if end - i > best_count:
            best_start, best_count = a, end - i
    return max(0, best_start - width // 4)


def _cut(flat: str, start: int, width: int) -> tuple[str, int]:
    """``flat[start:start + width]`` with an ellipsis where text was left out, and how many
    characters were put before the piece."""
    piece = flat[start : start + width]
    before = "…" if start > 0 else ""
    after = "…" if start + width < len(flat) else ""
    return before + piece + after, len(before)
