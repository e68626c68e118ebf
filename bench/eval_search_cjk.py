"""Which FTS5 tokenizing finds a Japanese (Chinese, Korean) note: unicode61 alone, the trigram
tokenizer, or unicode61 over the bigrams memtui hands it (:func:`memtui.core.model.search_text.index_text`).

    .venv/bin/python bench/eval_search_cjk.py [--corpora ../shared/corpora] [--per-file 6]

Every Markdown file of the corpora that holds Han, kana or Hangul text is indexed three ways (in
memory); queries are pieces of the files' own CJK runs, 1 to 4 characters long, at seeded random
places (what a person types: most Japanese and Chinese words are two characters).  For each way
and length: how often the file the piece came from is found (recall), the median number of files
a query matches, and the time to build the index.  No hard-coded answer: the pieces come from the
files.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))

from memtui.core.model.frontmatter import parse_frontmatter  # noqa: E402
from memtui.core.model.search_text import BIGRAM_RUNS, Term, index_text  # noqa: E402

WAYS = {
    "unicode61": ("unicode61 remove_diacritics 2", False),
    "trigram": ("trigram", False),
    "bigrams (memtui)": ("unicode61 remove_diacritics 2", True),
}


def cjk_files(corpora: Path) -> dict[str, str]:
    out = {}
    for path in sorted(corpora.rglob("*.md")):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if BIGRAM_RUNS.search(text):
            out[str(path.relative_to(corpora))] = text[parse_frontmatter(text).body_offset:]
    return out


def pieces(files: dict[str, str], per_file: int, seed: int = 41) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    out = []
    for name, text in files.items():
        runs = [m.group() for m in BIGRAM_RUNS.finditer(text) if len(m.group()) >= 4]
        if not runs:
            continue
        for length in (1, 2, 3, 4):
            for _ in range(per_file):
                run = rng.choice(runs)
                start = rng.randrange(0, len(run) - length + 1)
                out.append((name, run[start : start + length]))
    return out


def expression(piece: str, bigrams: bool) -> str:
    if bigrams:
        return Term(piece).expression()
    return '"' + piece.replace('"', '""') + '"'


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpora", default=str(HERE.parent / "shared" / "corpora"))
    parser.add_argument("--per-file", type=int, default=6)
    args = parser.parse_args()
    corpora = Path(args.corpora)
    if not corpora.is_dir():
        print(f"no corpora at {corpora}")
        return 0
    files = cjk_files(corpora)
    names = list(files)
    queries = pieces(files, args.per_file)
    print(f"{len(files)} files with CJK text, {len(queries)} queries (pieces of 1-4 characters)")
    print(f"{'way':<18}{'build':>8}  " + "  ".join(f"{f'{n} char':>18}" for n in (1, 2, 3, 4)))
    for way, (tokenizer, bigrams) in WAYS.items():
        conn = sqlite3.connect(":memory:")
        conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize='{tokenizer}')")
        start = time.perf_counter()
        conn.executemany("INSERT INTO t(rowid, body) VALUES (?, ?)",
                         [(i, index_text(files[n]) if bigrams else files[n]) for i, n in enumerate(names)])
        build = time.perf_counter() - start
        cells = []
        for length in (1, 2, 3, 4):
            found = 0
            counts = []
            asked = [(n, p) for n, p in queries if len(p) == length]
            for name, piece in asked:
                rows = {r for (r,) in conn.execute("SELECT rowid FROM t WHERE t MATCH ?",
                                                    (expression(piece, bigrams),))}
                found += names.index(name) in rows
                counts.append(len(rows))
            recall = found / len(asked) if asked else 0.0
            cells.append(f"{recall:6.1%} med {statistics.median(counts) if counts else 0:>4.0f}")
        print(f"{way:<18}{build * 1000:>6.0f}ms  " + "  ".join(f"{c:>18}" for c in cells))
    print("recall: the file a piece came from is among the matches; med: median files matched")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
