"""The prefix-filter join of :mod:`memtui.core.judge.simjoin` on arrays: the same pairs, counted in numpy.

The lemma and the order are :mod:`~memtui.core.judge.simjoin`'s: sets visited from the largest down,
each probing the first ``p + e`` tokens of its rare-first order against the sets visited before
it, a partner needing ``e + 1`` hits.  Here every token is a number (its rank in rare-first
order) and the whole index is one sorted array of ``(token, set)`` keys: a probe is itself an
entry of it, and the entries of its token before it are its posting list (with ``sides``, the
run between two binary searches in the other side's keys).  The hits of all probes are one
expansion of those ranges, sorted and counted per pair without a Python loop.

A candidate then meets a bound before it is verified: each set has a signature of ``B`` bits (bit
``hash(token) mod B`` set for each of its tokens).  A bit of ``x`` that ``y`` lacks is a token of
``x`` not in ``y`` — distinct bits, distinct tokens — so ``|x ∩ y| ≤ |x| − popcount(x & ~y)``, and
a pair whose bound is under the overlap it needs is dropped.  The few left are verified on the
token sets themselves, so the result is exactly the pairs that reach the threshold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain

import numpy as np
import numpy.typing as npt

from .simjoin import MIN_TOKENS, min_overlap

Ints = npt.NDArray[np.int64]

#: probes past the prefix, at most (the loop's is 4): the signature bound drops what a stronger count
#: filter would, so fewer hits are cheaper here (measured: 0.26 -> 0.25 CPU-s at 10k, 5.5 -> 5.0 at 100k)
EXTRA_PROBES = 2
#: hits expanded at once: the probes are cut into runs of whole sets this large (memory, not time)
CHUNK_HITS = 1 << 22
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing of a token's rank into the signature
#: what tells tokens apart (see :func:`_ranks`; a test replaces it with one that collides)
token_hash: Callable[[str], int] = hash


def candidates(
    sets: Sequence[frozenset[str]],
    members: Sequence[int],
    threshold: float,
    sides: Sequence[int] | None = None,
    extra: int = EXTRA_PROBES,
) -> set[tuple[int, int]]:
    """The pairs ``(i, j)``, ``i < j``, of ``members`` whose overlap coefficient reaches ``threshold``.

    What :func:`memtui.core.judge.simjoin._candidates` returns for the same sets, members and sides (the
    rare-first order here counts the rows of ``members`` only).
    """
    eligible = [i for i in members if len(sets[i]) >= MIN_TOKENS]
    eligible.sort(key=lambda i: (len(sets[i]), i), reverse=True)
    n = len(eligible)
    if n < 2:
        return set()
    rows = [sets[i] for i in eligible]
    sizes = np.fromiter(map(len, rows), dtype=np.int64, count=n)
    total = int(sizes.sum())
    row = np.repeat(np.arange(n, dtype=np.int64), sizes)
    tok, freq = _ranks(rows, total)
    v = len(freq)
    # every (set, token) once, each set's tokens in rare-first order
    entry = row * v + tok
    entry.sort()
    tok = entry - row * v
    del entry
    start = np.cumsum(sizes) - sizes

    need = np.zeros(int(sizes.max()) + 1, dtype=np.int64)
    for size in np.unique(sizes).tolist():
        need[size] = min_overlap(size, threshold)
    o = need[sizes]
    p = sizes - o + 1
    # e more probes while their posting lists together are no longer than the prefix's
    cum = np.cumsum(freq[tok])
    at_p = cum[start + p - 1]
    budget = at_p - np.where(start > 0, cum[np.maximum(start - 1, 0)], 0)
    e = np.zeros(n, dtype=np.int64)
    going = np.ones(n, dtype=bool)
    for k in range(1, extra + 1):
        going &= p + k <= sizes
        going &= cum[np.where(going, start + p + k - 1, 0)] - at_p <= budget
        e += going
    del cum
    probed_count = p + e
    hits_needed = e + 1

    in_row = np.arange(total, dtype=np.int64) - np.repeat(start, sizes)
    is_probe = in_row < np.repeat(probed_count, sizes)
    del in_row
    probed = np.zeros(v, dtype=bool)
    probed[tok[is_probe]] = True
    indexed = probed[tok]
    probe_row = row[is_probe]
    if sides is None:
        # the index in (token, set) order; a probe is an entry of the index itself, and the
        # entries of its token before it are exactly the larger sets that hold the token
        keys = tok[indexed] * n + row[indexed]
        index, order = _sort_with_order(keys)
        del keys
        index_set = index % n
        del index
        sorted_at = np.empty_like(order)
        sorted_at[order] = np.arange(len(order), dtype=np.int64)
        del order
        per_token = np.bincount(tok[indexed], minlength=v)
        low = (np.cumsum(per_token) - per_token)[tok[is_probe]]
        counts = sorted_at[is_probe[indexed]] - low
        del sorted_at, per_token
    else:
        side = np.fromiter((sides[i] for i in eligible), dtype=np.int64, count=n)
        index = (tok[indexed] * 2 + side[row[indexed]]) * n + row[indexed]
        index.sort()
        index_set = index % n
        base = (tok[is_probe] * 2 + 1 - side[probe_row]) * n
        # the other side's sets before this one that hold the token; the binary searches run
        # in key order (base + row sorts base too), several times faster than at random
        until = base + probe_row
        order = np.argsort(until)
        low = np.empty_like(base)
        low[order] = np.searchsorted(index, base[order])
        counts = np.empty_like(base)
        counts[order] = np.searchsorted(index, until[order])
        counts -= low
        del until, order, base, index
    del is_probe, indexed

    signatures = _signatures(row, tok, n, int(sizes.mean()))
    del row
    found: set[tuple[int, int]] = set()
    per_row = np.cumsum(np.bincount(probe_row, weights=counts, minlength=n).astype(np.int64))
    row_start = np.searchsorted(probe_row, np.arange(n + 1))
    first = 0
    while first < n:
        done = int(per_row[first - 1]) if first else 0
        last = min(n, max(first + 1, int(np.searchsorted(per_row, done + CHUNK_HITS, side="right"))))
        a, b = int(row_start[first]), int(row_start[last])
        pairs = _counted(probe_row[a:b], low[a:b], counts[a:b], index_set, n, hits_needed)
        first = last
        if pairs is None:
            continue
        i, j = pairs
        # the signature bound, then the sets themselves
        missing = np.bitwise_count(signatures[i] & ~signatures[j]).sum(axis=1, dtype=np.int64)
        keep = sizes[i] - missing >= o[i]
        for x, y, least in zip(i[keep].tolist(), j[keep].tolist(), o[i[keep]].tolist()):
            if len(rows[x] & rows[y]) >= least:
                a_item, b_item = eligible[x], eligible[y]
                found.add((a_item, b_item) if a_item < b_item else (b_item, a_item))
    return found


def _ranks(rows: Sequence[frozenset[str]], total: int) -> tuple[Ints, Ints]:
    """Each token of ``rows`` (in their iteration order) as its rank in rare-first order, and the
    number of rows holding the token of each rank.

    Tokens are told apart by their string hash: two tokens of one hash would count as one token,
    which only adds hits and weakens the signature bound — never loses a pair, since every
    candidate is verified on the strings.
    """
    hashes = np.fromiter(map(token_hash, chain.from_iterable(rows)), dtype=np.int64, count=total)
    # sorted with each entry's position in its low bits (a sort is several times faster than an
    # argsort); the hash keeps its high bits, which only makes tokens of one hash likelier
    place = max(1, (total - 1).bit_length())
    keyed = (hashes.view(np.uint64) >> np.uint64(place)) << np.uint64(place)
    keyed |= np.arange(total, dtype=np.uint64)
    del hashes
    keyed.sort()
    by_hash = (keyed & np.uint64((1 << place) - 1)).astype(np.int64)
    keyed >>= np.uint64(place)
    new = np.empty(total, dtype=bool)
    new[0] = True
    np.not_equal(keyed[1:], keyed[:-1], out=new[1:])
    del keyed
    word = np.empty(total, dtype=np.int64)
    word[by_hash] = np.cumsum(new) - 1
    del by_hash
    freq = np.diff(np.flatnonzero(new), append=total)
    rare_first = np.argsort(freq, kind="stable")
    rank = np.empty_like(rare_first)
    rank[rare_first] = np.arange(len(freq))
    return rank[word], freq[rare_first]


def _sort_with_order(keys: Ints) -> tuple[Ints, Ints]:
    """``keys`` sorted, and the permutation that sorts them (non-negative keys).

    When the keys leave room, each carries its position in its low bits and one sort does both
    (several times faster than an argsort); otherwise an argsort.
    """
    place = max(1, (len(keys) - 1).bit_length())
    if not len(keys) or int(keys.max()) >= 1 << (63 - place):
        order = np.argsort(keys)
        return keys[order], order
    packed = (keys << place) | np.arange(len(keys), dtype=np.int64)
    packed.sort()
    order = packed & ((1 << place) - 1)
    packed >>= place
    return packed, order


#: the bools of one slice of the signature grid (32 MB): 100k sets of 4,096 bits at once were 400 MB
GRID_CELLS = 1 << 25


def _signatures(row: Ints, tok: Ints, n: int, mean_size: int) -> npt.NDArray[np.uint64]:
    """Each set's bit signature: ``n`` rows of 64-bit words, about 8 bits per token on average."""
    bits = 64
    while bits < 8 * mean_size and bits < 4096:
        bits *= 2
    shift = np.uint64(64 - bits.bit_length() + 1)
    bit = ((tok.astype(np.uint64) * _GOLDEN) >> shift).astype(np.int64)
    out = np.empty((n, bits // 64), dtype=np.uint64)
    rows = max(1, GRID_CELLS // bits)  # a grid of one bool a bit, a slice of the rows at a time
    for start in range(0, n, rows):
        end = min(n, start + rows)
        grid = np.zeros((end - start, bits), dtype=bool)
        if start == 0 and end == n:
            grid[row, bit] = True
        else:
            mine = (row >= start) & (row < end)
            grid[row[mine] - start, bit[mine]] = True
        out[start:end] = np.packbits(grid, axis=1, bitorder="little").view(np.uint64)
    return out


def _counted(
    probe_row: Ints, low: Ints, counts: Ints, index_set: Ints, n: int, hits_needed: Ints
) -> tuple[Ints, Ints] | None:
    """The pairs (probing set, indexed set) hit at least as often as the probing set needs."""
    hits = int(counts.sum())
    if not hits:
        return None
    offsets = np.cumsum(counts) - counts
    at = np.arange(hits, dtype=np.int64) + np.repeat(low - offsets, counts)
    key = np.repeat(probe_row, counts) * n + index_set[at]
    del at
    key.sort()
    new = np.empty(hits, dtype=bool)
    new[0] = True
    np.not_equal(key[1:], key[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    times = np.diff(starts, append=hits)
    pair = key[starts]
    i = pair // n
    j = pair - i * n
    # a set meets itself only through two of its tokens of one hash
    keep = (times >= hits_needed[i]) & (i != j)
    return i[keep], j[keep]

