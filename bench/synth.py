"""Synthetic memory roots for benchmarks: realistic sizes, name families, regions and an archive."""

from __future__ import annotations

import random
from pathlib import Path

WORDS = (
    "registry blob sweeper garbage collector auth token rotation release train postgres index "
    "migration schema webhook retry backoff queue worker cache eviction shard replica quota "
    "tenant audit log metrics dashboard alert oncall runbook deploy canary rollback feature flag "
    "config secret vault policy storage bucket lifecycle manifest digest layer upload resume chunk"
).split()
FAMILIES = ("session", "lesson", "feedback", "project", "reference", "decision", "note")
TYPES = ("project", "feedback", "reference", "user", "value")


def _body(rng: random.Random, size: int) -> str:
    out: list[str] = []
    length = 0
    while length < size:
        sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 16))).capitalize() + "."
        if rng.random() < 0.15:
            sentence += f" See `internal/{rng.choice(WORDS)}/{rng.choice(WORDS)}.go`."
        out.append(sentence)
        length += len(sentence) + 1
    return "\n".join(out) + "\n"


def make_root(dest: Path, n_files: int, seed: int = 7) -> Path:
    """Write a root of ``n_files`` topic files (300–3,000 bytes) with an index within budget."""
    rng = random.Random(seed)
    dest.mkdir(parents=True, exist_ok=True)
    entries: list[str] = []
    archive_entries: list[str] = []
    used_families: set[str] = set()
    (dest / "archive").mkdir(exist_ok=True)
    for i in range(n_files):
        family = FAMILIES[i % len(FAMILIES)]
        name = f"{family}_{i:06d}_{rng.choice(WORDS)}.md"
        archived = i % 10 == 9
        rel = f"archive/{name}" if archived else name
        kind = rng.choice(TYPES)
        fm = (
            f"---\nname: {family} {i} {rng.choice(WORDS)}\ndescription: {rng.choice(WORDS)} "
            f"{rng.choice(WORDS)} {rng.choice(WORDS)}\ntype: {kind}\n"
            f"updated: 2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}\n"
            + ("status: archived\n" if archived else "")
            + "---\n\n"
        )
        (dest / rel).write_text(fm + _body(rng, rng.randint(300, 3000) - len(fm)))
        if archived:
            archive_entries.append(f"- [{family} {i}]({rel}) — archived {family} note")
        elif i < 120:
            entries.append(f"- [{family} {i}]({rel}) — {rng.choice(WORDS)} {rng.choice(WORDS)} fact")
        else:
            used_families.add(family)
    lines = ["# Memory", "", "## Recent", *entries, "", "## Regions"]
    lines += [f"- region `{f}_*.md` → older {f} notes; grep the memory dir" for f in sorted(used_families)]
    (dest / "MEMORY.md").write_text("\n".join(lines) + "\n")
    (dest / "MEMORY-archive.md").write_text("\n".join(archive_entries) + "\n")
    return dest
