"""Ages and file roles measured against the hand-read roles of every corpus folder.

    .venv/bin/python bench/eval_ages.py            # the figures
    .venv/bin/python bench/eval_ages.py --wrong    # also every file dated wrong, every role missed

Every corpus folder is copied first (``shutil.copytree`` without keeping times, as ``cp -r``
does: every modification time is the copy's) into a temporary folder, removed afterwards: the
state a clone, a backup or a synced folder reaches its user in.  Then, over
``tests/core/data/labels/<folder>.files.tsv`` (the standard is that folder's README):

- **dates**: of the files a reader gave a ``date=YYYY-MM-DD`` (the date the body states for
  itself), how many ``memtui stale`` dates to that day, how many to another day, and how many it
  leaves unknown; a file dated ``modified 0 days ago`` from its copy's time is counted apart (it
  must be none);
- **unknown**: every file of every copied root whose age is unknown, by reason;
- **folder documents**: precision and recall of :func:`memtui.core.model.folder_docs.folder_document`
  against the ``folder-doc`` role over every file of every root (a root's own ``MEMORY.md`` is
  never a memory file, so a retired index labelled ``folder-doc`` is counted as a miss);
- **standing**: of the files labelled ``standing`` (a dated note that is a standing rule), how many
  are never pruned for their age alone (a hold, or a type scored as a rule), and of those labelled
  ``log`` how many are held too.

The date readers and cue words were written while reading these folders: the figures are
in-sample, a check that the sources work on real text, not a held-out measurement.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from memtui.core.judge.staleness import score_root  # noqa: E402
from memtui.core.read.store import load_root  # noqa: E402
from memtui.core.roots.discover import roots_under  # noqa: E402

LABELS_DIR = REPO / "tests" / "core" / "data" / "labels"
CORPORA = Path(os.environ.get("MEMTUI_CORPORA", REPO.parent / "shared" / "corpora"))


def read_roles() -> dict[str, tuple[str, str]]:
    """corpora-relative path -> (role, reason) for every file a reader gave a role."""
    out = {}
    for path in sorted(LABELS_DIR.glob("*.files.tsv")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                root, rel, role, reason = line.split("\t")[:4]
                out[f"{root}/{rel}"] = (role, reason)
    return out


def stated_day(reason: str) -> str | None:
    """The ``date=YYYY-MM-DD`` of a reason (None for none or a month only)."""
    at = reason.find("date=")
    if at < 0:
        return None
    day = reason[at + 5:at + 15]
    return day if len(day) == 10 and day[4] == "-" and day[7] == "-" else None


def _kind(reason: str) -> str:
    """An unknown age's reason, without the counts and days that differ from root to root."""
    head, _, rest = reason.partition("; ")
    kind = ("the file and MEMORY.md written at once (a single-file root)" if head.startswith("the file")
            else "an import commit" if "committed" in head else "every file written at once (a copy)")
    return kind + (", no date in the file" if "no date" in rest else "") + (
        ", and its session has no transcript here" if "no transcript" in rest else "")


def copy_all(corpora: Path, into: Path) -> Path:
    """Every corpus folder copied as ``cp -r`` copies (times not kept)."""
    for folder in sorted(p for p in corpora.iterdir() if p.is_dir()):
        shutil.copytree(folder, into / folder.name, copy_function=shutil.copyfile, symlinks=True)
    return into


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wrong", action="store_true", help="list every miss")
    args = parser.parse_args()
    if not CORPORA.is_dir():
        print(f"no corpora at {CORPORA}")
        return 2
    try:
        from memtui.core.model.folder_docs import folder_document
    except ImportError:  # the baseline has no predicate of its own
        from memtui.core.tidy.repair import is_folder_document

        def folder_document(path: str, f: object) -> object:  # type: ignore[misc]
            return is_folder_document(path, f) or None  # type: ignore[arg-type]

    roles = read_roles()
    now = datetime.now(timezone.utc)
    dated = Counter[str]()
    wrong: list[str] = []
    unknown = Counter[str]()
    unknown_files = 0
    unknown_roots: set[str] = set()
    documents_dated = 0
    files = 0
    zero_mtime: list[str] = []
    docs_found: set[str] = set()
    held: dict[str, bool] = {}
    with tempfile.TemporaryDirectory(prefix="memtui-eval-ages-") as temp:
        top = copy_all(CORPORA, Path(temp))
        for root in roots_under(top):
            snapshot = load_root(root)
            rel_root = root.relative_to(top).as_posix()
            report = score_root(snapshot, now)
            results = {r.path: r for r in report.results}
            for path, f in snapshot.files.items():
                key = f"{rel_root}/{path}"
                if folder_document(path, f):
                    docs_found.add(key)
                    documents_dated += stated_day(roles.get(key, ("", ""))[1]) is not None
            for path, r in results.items():
                key = f"{rel_root}/{path}"
                files += 1
                source = r.age.source
                if source == "mtime" and r.age.days < 1:
                    zero_mtime.append(key)
                if source == "unknown":
                    unknown_files += 1
                    unknown[_kind(getattr(r.age, "reason", ""))] += 1
                    unknown_roots.add(rel_root)
                role, reason = roles.get(key, ("", ""))
                if role == "standing" or role == "log":
                    held[key] = bool(r.holds) or r.type in ("user", "feedback", "decision", "value")
                day = stated_day(reason)
                if day is None:
                    continue
                if source == "unknown":
                    dated["unknown"] += 1
                    wrong.append(f"unknown  {key} (label {day})")
                elif r.age.when.date().isoformat() == day:
                    dated["right"] += 1
                else:
                    dated["other"] += 1
                    wrong.append(f"{r.age.when.date().isoformat()} ({source})  {key} (label {day})")
    labelled = sum(dated.values())
    print(f"dates: {dated['right']} of {labelled} scored files the readers dated are dated to that "
          f"day; {dated['other']} to another day, {dated['unknown']} left unknown "
          f"({documents_dated} dated folder documents are listed apart, unscored)")
    print(f"modified 0 days ago from the copy's mtime: {len(zero_mtime)} of {files} files")
    print(f"unknown ages: {unknown_files} of {files} files, in {len(unknown_roots)} roots")
    for reason, n in unknown.most_common():
        print(f"  {n:5d}  {reason}")
    docs = {k for k, (role, _) in roles.items() if role == "folder-doc"}
    hits = docs & docs_found
    precision = len(hits) / len(docs_found) if docs_found else float("nan")
    recall = len(hits) / len(docs) if docs else float("nan")
    print(f"folder documents: {len(docs_found)} found, {len(docs)} labelled, {len(hits)} both: "
          f"precision {precision:.2f}, recall {recall:.2f}")
    standing = [k for k, (role, _) in roles.items() if role == "standing" and k in held]
    logs = [k for k, (role, _) in roles.items() if role == "log" and k in held]
    print(f"standing notes never pruned for their age alone: {sum(held[k] for k in standing)} of "
          f"{len(standing)}; logs held too: {sum(held[k] for k in logs)} of {len(logs)}")
    if args.wrong:
        print("\ndated wrong:")
        for line in sorted(wrong):
            print("  " + line)
        print("\nfolder documents missed:", *sorted(docs - docs_found), sep="\n  ")
        print("folder documents found, not labelled:", *sorted(docs_found - docs), sep="\n  ")
        print("standing not held:", *sorted(k for k in standing if not held[k]), sep="\n  ")
        print("logs held:", *sorted(k for k in logs if held[k]), sep="\n  ")
        print("modified 0 days ago (mtime):", *sorted(zero_mtime)[:40], sep="\n  ")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
