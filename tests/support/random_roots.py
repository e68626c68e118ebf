"""Random memory roots for property tests: a pool of paths, ten kinds of topic file, index lines
that exercise every rule (regions, PATH_SCOPE sections, comments, escapes, aliases)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.support.roots import topic

POOL = [
    "lesson_a.md", "lesson_b.md", "session-1.md", "session-2.md", "note.md", "other.md",
    "sub/deep_x.md", "sub/SCOPE.md", "archive/old_y.md", "archive/note.md",
]


def content(path: str, variant: int) -> str:
    """One of ten kinds of topic file for ``path`` (pinned, superseded, a token, no frontmatter …)."""
    name = path.rsplit("/", 1)[-1][:-3]
    other = POOL[(variant + len(path)) % len(POOL)]
    variants = [
        topic(name, f"about {name}"),
        topic(name, f"about {name}", pinned="true"),
        topic(name, "obsolete", status="superseded", superseded_by=other),
        topic(name, "newer", supersedes="missing_file.md"),
        "no frontmatter at all\n",
        topic(name, "token", body="key ghp_abcdefghijklmnopqrstuvwxyz0123\n"),
        topic(name, "archived", status="archived"),
        topic(name, "merged", consolidated_from=f"{other}, lesson_a.md"),
        topic(name, "", type_="decision"),
        topic(name, "cycle", superseded_by="lesson_a.md" if name != "lesson_a" else "lesson_b.md"),
    ]
    return variants[variant % len(variants)]


INDEX_LINES = [
    "# Memory", "", "Some prose about the project.", "## Pinned", "## Recent", "## Regions",
    "- region `lesson_*.md` → lessons; grep", "- region `session-*.md` → sessions; grep",
    "- region `nothing_*.md` → a cue that matches nothing", "- region `bad/glob` → invalid",
    "<!-- history kept here -->", "## PATH_SCOPE: sub", "Scope: `/work/project/sub`",
    "Memory base: `sub/`", "- `deep_x.md` — a scoped fact", "- [outside](../outside.md) — escapes",
    "## PATH_SCOPE: sub\nScope: `/work/project/sub`\nMemory base: `sub/`\n- `deep_x.md` — scoped",
    "- region `note.md` → the one note", "- region `*_?.md` → one-letter families",
    "- [lesson_a.md](lesson_b.md) — fake alias",
] + [f"- [{p}]({p}) — hook for {p}" for p in POOL] + [f"- [{p}]({p})" for p in POOL[:3]]

index_text = st.lists(st.sampled_from(INDEX_LINES), max_size=14).map(lambda ls: "\n".join(ls) + "\n")


@st.composite
def roots(draw: Any) -> dict[str, str]:
    """A small random root: some of :data:`POOL`, an index of :data:`INDEX_LINES`, maybe an archive index."""
    files = draw(st.lists(st.sampled_from(POOL), unique=True, min_size=1, max_size=8))
    out = {path: content(path, draw(st.integers(0, 9))) for path in files}
    out["MEMORY.md"] = draw(index_text)
    if draw(st.booleans()):
        out["MEMORY-archive.md"] = draw(index_text)
    return out


def write_root(base: Path, files: dict[str, str]) -> Path:
    """Write a drawn root under ``base/root``."""
    root = base / "root"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root
