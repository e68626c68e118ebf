"""Benchmark consolidation candidates on synthetic roots with planted near-duplicates.

    .venv/bin/python bench/bench_consolidate.py            # 1k, 10k, 100k and brute force at 2k
    .venv/bin/python bench/bench_consolidate.py --quick    # 1k and 10k (brute force at 2k still)
    .venv/bin/python bench/bench_consolidate.py --sizes 2000 --brute 0

Each size runs in its own child process so that peak memory is its own.  A synthetic root is a
:class:`Snapshot` built in memory (no disk): ``N`` topic files whose title + body tokens mix
words of a shared topic (``N / 20`` topics, so related-but-distinct files abound) with words drawn
from a Zipf vocabulary that grows with the corpus (Heaps' law), bodies of 30–250 words, titles of
two topic words and 2–5 Zipf words past the 200 commonest; descriptions start with a directive
verb (use, always, never, avoid, prefer, do not …) so contradictions occur too.  1% of the files
get a planted near-duplicate (about 8% of body words replaced, one title word changed).

Measured on the loaded snapshot: tokenising (``root_token_sets``), candidate generation
(``proposed_pairs`` — the exact recall join: inverted index, prefix filter, verification — then
the precision stage), and the whole ``scan`` (pairs, rapidfuzz similarity, clusters,
contradictions); peak RSS of the process and its growth during the measurement; pairs found;
recall of the planted pairs.  At the brute-force size both paths run on the same data
(``brute_force_proposed`` judges every pair) and must return identical pairs, and so must the
join's other path (the array join below its size threshold, or the loop above it).
"""

from __future__ import annotations

import argparse
import bisect
import json
import math
import random
import resource
import subprocess
import sys
import time
from itertools import accumulate
from pathlib import Path

from memtui.core.judge import simjoin
from memtui.core.judge.consolidate import (
    DEFAULT_THRESHOLD,
    brute_force_proposed,
    proposed_pairs,
    root_token_sets,
    scan,
)
from memtui.core.model.frontmatter import parse_frontmatter
from memtui.core.model.gcpause import gc_paused
from memtui.core.model.snapshot import INDEX_NAME, Index, MemoryFile, Snapshot

TYPES = ("feedback", "project", "reference", "user", "value")
TITLE_SKIP = 200  # titles skip the commonest words, as a stop-word list would
VERBS = ("Use", "Always", "Never", "Avoid", "Prefer", "Do not", "Keep", "Run", "Check")


def _word(i: int) -> str:
    """A token-shaped word for vocabulary rank ``i`` (letters only, at least 3 characters)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    out = ""
    i += 26 * 26  # three letters at least
    while i:
        i, r = divmod(i, 26)
        out = letters[r] + out
    return "q" + out  # never a stop word


def synthetic_snapshot(n: int, seed: int = 7) -> tuple[Snapshot, set[tuple[str, str]]]:
    """A root of ``n`` files (plus planted duplicates) and the planted pairs."""
    rng = random.Random(seed)
    mean_words = 110
    vocab = int(30 * (n * mean_words) ** 0.55)
    cum = list(accumulate(1.0 / (r + 1) ** 1.05 for r in range(vocab)))
    total = cum[-1]
    topics = max(1, n // 20)
    topic_words = [[_word(rng.randrange(vocab)) for _ in range(60)] for _ in range(topics)]

    def zipf(k: int, skip: int = 0) -> list[str]:
        low = cum[skip - 1] if skip else 0.0
        return [_word(bisect.bisect_left(cum, low + rng.random() * (total - low))) for _ in range(k)]

    files: dict[str, MemoryFile] = {}
    planted: set[tuple[str, str]] = set()
    n_dups = n // 100
    base = n - n_dups
    for i in range(base):
        topic = topic_words[rng.randrange(topics)]
        length = min(250, max(30, int(rng.lognormvariate(math.log(mean_words), 0.5))))
        body = [rng.choice(topic) if rng.random() < 0.4 else w for w in zipf(length)]
        title = rng.sample(topic, 2) + zipf(rng.randint(2, 5), TITLE_SKIP)
        path = f"{rng.choice(TYPES)}_{i:06d}.md"
        files[path] = _file(path, title, body, rng)
        if i < n_dups:
            new_body = [w if rng.random() > 0.08 else _word(rng.randrange(vocab)) for w in body]
            new_title = list(title)
            new_title[rng.randrange(len(title))] = _word(rng.randrange(vocab))
            dup = f"{path[:-3]}_copy.md"
            files[dup] = _file(dup, new_title, new_body, rng)
            planted.add((path, dup) if path < dup else (dup, path))
    index = Index(path=INDEX_NAME, exists=True)
    snapshot = Snapshot(root=Path(f"/synthetic/{n}"), index=index, archive_index=Index(path="MEMORY-archive.md", exists=False), files=files)
    return snapshot, planted


def _file(path: str, title: list[str], body: list[str], rng: random.Random) -> MemoryFile:
    kind = path.split("_", 1)[0]
    name = " ".join(title).capitalize()
    lines = [" ".join(body[k : k + 12]) for k in range(0, len(body), 12)]
    text = (
        f"---\nname: {name}\ndescription: {rng.choice(VERBS)} {' '.join(body[:8])}\ntype: {kind}\n"
        f"updated: 2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}\n---\n\n# {name}\n\n"
        + ".\n".join(lines)
        + ".\n"
    )
    return MemoryFile(path=path, size=len(text), mtime=0.0, text=text, frontmatter=parse_frontmatter(text))


def _rss_kb() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * resource.getpagesize() // 1024


def measure(n: int, brute: bool, threshold: float) -> dict[str, object]:
    t0 = time.perf_counter()
    snapshot, planted = synthetic_snapshot(n)
    generated = time.perf_counter() - t0
    files = list(snapshot.files.values())
    rss_before = _rss_kb()

    t0, c0 = time.perf_counter(), time.process_time()
    with gc_paused():
        sets = root_token_sets(files)
    t_tokens, c_tokens = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    with gc_paused():
        pairs = [(i, j) for i, j, _ in proposed_pairs(files, sets, threshold)]
    t_join, c_join = time.perf_counter() - t0, time.process_time() - c0
    reference = [(i, j) for i, j, _ in brute_force_proposed(files, sets, threshold)] if brute else None
    t_brute = time.perf_counter() - t0 - t_join
    other_path: list[tuple[int, int]] | None = None
    if brute:  # the join's other path (the array join or the loop, whichever the size did not choose)
        arrays = simjoin._vectorised(len(files))
        with gc_paused():
            other_path = [(i, j) for i, j, _ in proposed_pairs(files, sets, threshold, vectorised=not arrays)]
    del sets
    t0, c0 = time.perf_counter(), time.process_time()
    result = scan(snapshot, threshold)
    t_scan, c_scan = time.perf_counter() - t0, time.process_time() - c0
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    found = {(p.a, p.b) for p in result.pairs}
    names = {tuple(sorted((files[i].path, files[j].path))) for i, j in pairs}
    assert names == found, "scan and proposed_pairs disagree"
    out: dict[str, object] = {
        "files": len(files),
        "generate_s": round(generated, 2),
        "tokenise_s": round(t_tokens, 3),
        "tokenise_cpu_s": round(c_tokens, 3),
        "candidates_s": round(t_join, 3),
        "candidates_cpu_s": round(c_join, 3),
        "scan_s": round(t_scan, 3),
        "scan_cpu_s": round(c_scan, 3),
        "peak_rss_mb": round(peak_kb / 1024, 1),
        "growth_mb": round(max(0, peak_kb - rss_before) / 1024, 1),
        "pairs": len(pairs),
        "planted": len(planted),
        "recall": round(len(planted & found) / len(planted), 4) if planted else None,
        "contradictions": len(result.contradictions),
    }
    if reference is not None:
        out["brute_s"] = round(t_brute, 2)
        out["identical"] = reference == pairs == other_path
        out["speedup"] = round(t_brute / max(t_join, 1e-9), 1)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="1k and 10k only")
    parser.add_argument("--sizes", type=int, nargs="*", help="sizes to run (overrides --quick)")
    parser.add_argument("--brute", type=int, default=2000, help="size for the brute-force comparison (0: none)")
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--child-brute", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.child_brute, args.threshold)))
        return 0
    sizes = args.sizes or ([1_000, 10_000] if args.quick else [1_000, 10_000, 100_000])
    runs = [(n, False) for n in sizes]
    if args.brute:
        runs.append((args.brute, True))
    print(f"threshold {args.threshold}; python {sys.version.split()[0]}")
    print("time = wall clock (CPU seconds of the process in brackets; the machine may be shared)")
    print(f"{'files':>7} {'tokenise':>15} {'candidates':>15} {'scan':>15} {'peak MB':>8} {'growth':>7} "
          f"{'pairs':>6} {'planted':>7} {'recall':>6} {'contra':>6}")
    for n, brute in runs:
        cmd = [sys.executable, __file__, "--child", str(n), "--threshold", str(args.threshold)]
        if brute:
            cmd.append("--child-brute")
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode:
            print(proc.stderr)
            return 1
        r = json.loads(proc.stdout)
        tok = f"{r['tokenise_s']:.3f} ({r['tokenise_cpu_s']:.2f})"
        cand = f"{r['candidates_s']:.3f} ({r['candidates_cpu_s']:.2f})"
        whole = f"{r['scan_s']:.3f} ({r['scan_cpu_s']:.2f})"
        print(f"{r['files']:>7} {tok:>15} {cand:>15} {whole:>15} {r['peak_rss_mb']:>8.1f} "
              f"{r['growth_mb']:>7.1f} {r['pairs']:>6} {r['planted']:>7} {r['recall']:>6} {r['contradictions']:>6}")
        if brute:
            print(f"{'':>7} brute force on the same {r['files']} files: {r['brute_s']:.2f}s vs "
                  f"{r['candidates_s']:.3f}s — {r['speedup']}x; identical pairs (array join and loop): {r['identical']}")
            if not r["identical"]:
                return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
