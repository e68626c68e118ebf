"""The words of a memory file: the tokenizer consolidation's overlap and TF-IDF cosine, and the
contradiction cues' subjects, are measured in.

A token is a run of at least 3 letters or digits, lower-cased, that is neither a stop word nor a
number; Han, kana and Hangul runs give character bigrams.  (Its own module so that
:mod:`memtui.core.judge.contradictions`, which :mod:`memtui.core.judge.consolidate` imports, can import it at
its top instead of once per call.)
"""

from __future__ import annotations

import re
import string
from itertools import product
from sys import intern

STOP_WORDS = frozenset(
    """
    about above after again against all also and any are aren because been before being below
    between both but can cannot could couldn did didn does doesn doing down during each few for
    from further had hadn has hasn have haven having her here hers herself him himself his how
    into isn its itself just let more most mustn myself nor now off once only other ought our
    ours ourselves out over own same shan she should shouldn some such than that the their theirs
    them themselves then there these they this those through too under until very was wasn were
    weren what when where which while who whom why will with won would wouldn you your yours
    yourself yourselves via per etc get got one two may might must shall
    use uses used using avoid avoids avoided avoiding always never don dont not prefer prefers
    preferred preferring
    """.split()
)

# Tokenising ASCII text without a regular expression (``[a-z0-9]{3,}`` over the lower-cased text,
# which is what this computes, is several times slower in ``re``): map every byte outside
# ``[A-Za-z0-9]`` to a space and ``A``–``Z`` to ``a``–``z`` with one ``bytes.translate`` and split
# on the spaces.  The runs shorter than 3 come out of the same set difference as the stop words —
# there are only 36 + 36² of them.
_TOKEN_CHARS = string.ascii_lowercase + string.digits
_LOWER_SEPARATE = bytes(ord(chr(c).lower()) if chr(c).lower() in _TOKEN_CHARS else ord(" ") for c in range(256))
_NOT_DIGITS = bytes(c for c in range(256) if not 48 <= c <= 57)
_SHORT = frozenset(_TOKEN_CHARS) | frozenset(a + b for a, b in product(_TOKEN_CHARS, repeat=2))
_DROPPED = STOP_WORDS | _SHORT

# Other scripts: words are runs of letters and digits of any script (``[^\W_]+``); scripts written
# without spaces between words (Han, kana, Hangul) give overlapping character bigrams instead, so
# a Korean or Chinese file has as many tokens as its text deserves.
_WORD = re.compile(r"[^\W_]+")
_BIGRAM_SCRIPTS = re.compile(
    "[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]+"
)


def token_list(text: str) -> list[str]:
    """Every token of a text, in order, repeats kept: what :func:`tokens` makes a set of.

    Latin, Cyrillic, Greek … words of at least 3 characters, less the stop words; character
    bigrams of Han, kana and Hangul runs.  Numbers (dates, counts, versions) are no tokens.
    """
    if text.isascii():
        runs = text.encode("ascii").translate(_LOWER_SEPARATE).decode("ascii").split()
        return [run for run in runs if run not in _DROPPED and not run.isdigit()]
    lower = text.lower()
    out: list[str] = []
    for match in _BIGRAM_SCRIPTS.finditer(lower):
        run = match.group()
        out.extend(run[k : k + 2] for k in range(len(run) - 1))
    rest = _BIGRAM_SCRIPTS.sub(" ", lower)
    out.extend(
        word for word in _WORD.findall(rest) if len(word) >= 3 and word not in STOP_WORDS and not word.isdigit()
    )
    return out


def tokens(text: str, canon: dict[str, str] | None = None) -> frozenset[str]:
    """The set of :func:`token_list` (ASCII text takes a faster path to the same set).

    Tokens are canonical, so a large root holds one copy of each word however many files use it:
    the interpreter's interned strings, or with ``canon`` the first of each token that dict has
    seen (a caller tokenising a whole root passes one dict for all its files: a table of the
    root's words alone is smaller than the interpreter's, so its lookups miss the cache less).
    Interned, only the distinct runs that are tokens are looked up (a set of the runs first, less
    the stop words: the interpreter's table is large, and each lookup in it a cache miss); with
    ``canon`` every run is looked up as it comes, and the stop words leave the set made of them
    (one set built instead of two: ~0.05 CPU-s less at 10k files, ~0.4 at 100k, although the
    dict then also holds the root's stop words).  The frozenset is made from a finished set,
    which sizes its table once: a quarter less memory than one grown token by token.  ASCII
    text is lower-cased and cut in one ``bytes.translate``.
    """
    if not text.isascii():
        words = set(token_list(text))
        return frozenset(set(map(intern, words)) if canon is None else set(map(canon.setdefault, words, words)))
    cut = text.encode("ascii").translate(_LOWER_SEPARATE)
    if canon is None:
        runs = set(cut.decode("ascii").split())
        runs -= _DROPPED
        found = set(map(intern, runs))
    else:
        split = cut.decode("ascii").split()
        found = set(map(canon.setdefault, split, split))
        found -= _DROPPED
    if not cut.translate(None, _NOT_DIGITS):  # no digit anywhere: no run is a number
        return frozenset(found)
    return frozenset(found.difference([run for run in found if run.isdigit()]))
