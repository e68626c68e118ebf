"""The filter's fast path (each keystroke narrowing the matches kept of the query before it,
substring tests on padded texts, one rapidfuzz call per word and one over the matched texts'
words, the ranking sorted in arrays) ranks exactly as the plain per-keystroke scoring."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz, process, utils

from memtui.services.search import CUTOFF, SearchKeys, fuzzy_scores

_WORD_START, _WHOLE_WORD = 10.0, 5.0


def reference_scores(query: str, texts: list[str]) -> list[tuple[str, float]]:
    """The scoring done plainly: every word re-scored with regexes and a dict per keystroke, over
    the texts its every beginning matches as well."""
    words = utils.default_process(query).split()
    if not words:
        return [(t, 0.0) for t in texts]
    processed = [utils.default_process(t) for t in texts]
    candidates = dict(enumerate(processed))
    total: dict[int, tuple[float, int]] = {}
    for n, word in enumerate(dict.fromkeys(words)):
        for length in range(1, len(word) + 1):  # each beginning narrows, the word itself scores
            scores = plain_scores(word[:length], candidates)
            candidates = {i: processed[i] for i in scores}
        total = scores if n == 0 else {i: (total[i][0] + s, total[i][1] + at)
                                       for i, (s, at) in scores.items()}
        if not total:
            return []
    ranked = sorted(total.items(), key=lambda kv: (-kv[1][0], kv[1][1], kv[0]))
    return [(texts[i], score) for i, (score, _) in ranked]


def plain_scores(word: str, candidates: dict[int, str]) -> dict[int, tuple[float, int]]:
    """One word's (score, place) in each candidate text it matches: a substring, or a fuzzy match
    for three letters or more."""
    scores: dict[int, tuple[float, int]] = {}
    start = re.compile(r"(?:^|\s)" + re.escape(word))
    whole = re.compile(r"(?:^|\s)" + re.escape(word) + r"(?:\s|$)")
    for i, text in candidates.items():
        if word in text:
            score = 100.0
            if start.search(text):
                score += _WORD_START
                if whole.search(text):
                    score += _WHOLE_WORD
            scores[i] = (score, text.index(word))
    if len(word) >= 3:
        rest = {i: text for i, text in candidates.items() if i not in scores}
        for _, score, i in process.extract(word, rest, scorer=fuzz.partial_ratio,
                                           processor=None, score_cutoff=CUTOFF, limit=None):
            scores[i] = landed_score(word, rest[i], float(score))
    return scores


def landed_score(word: str, text: str, partial: float) -> tuple[float, int]:
    """A fuzzy match's score and place: its closest word by ratio (the first of equals in
    alphabetical order), where that word first stands as a word; else the partial ratio, last."""
    ratios = {w: fuzz.ratio(word, w) for w in text.split()}
    best = max((r for r in ratios.values() if r >= CUTOFF), default=0.0)
    if best <= partial:
        return partial, len(text)
    near = min(w for w, r in ratios.items() if r == best)
    place = re.search(r"(?:^| )" + re.escape(near) + r"(?: |$)", text)
    assert place is not None
    return best, place.start() + (place.group()[0] == " ")


#: few letters, so words collide, start words, end words and nearly match; odd separators too
LETTERS = st.sampled_from(list("abcrsv1") + [" ", "_", "-", ".", "/", "\t", "\u3000", "É", "é"])
TEXT = st.text(LETTERS, max_size=24)


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(TEXT, max_size=30), queries=st.lists(TEXT, min_size=1, max_size=6))
def test_the_fast_path_ranks_as_the_reference(texts: list[str], queries: list[str]) -> None:
    keys = SearchKeys(texts, str)  # one per list, kept across keystrokes as the views do
    for query in queries + queries[::-1]:  # memo hits on the way back
        assert fuzzy_scores(query, texts, str, keys) == reference_scores(query, texts)
        assert fuzzy_scores(query, texts, str) == reference_scores(query, texts)


def test_typing_and_backspacing_a_query_on_real_names() -> None:
    texts = [f"{kind}_{n:04d}_{topic}.md {topic} {kind} notes"
             for n, (kind, topic) in enumerate((k, t) for k in ("lesson", "project", "reference")
                                               for t in ("registry", "retry", "gc", "shim v1"))]
    keys = SearchKeys(texts, str)
    query = "lesson registry"
    steps = [query[:i] for i in range(1, len(query) + 1)]
    for typed in steps + steps[::-1]:
        assert fuzzy_scores(typed, texts, str, keys) == reference_scores(typed, texts)
    assert fuzzy_scores("registry lesson", texts, str, keys)[0][0].startswith("lesson_")
