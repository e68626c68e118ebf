"""The full-disk band: the demo's dream on a small tmpfs filled to leave 0–400 KiB free, in 4 KiB steps.

At every level the memory folder must end byte for byte as it was before the dream or as a dream
with room to spare leaves it — never between — with no temp file of memtui's left anywhere under
it and no pending journal record.  Prints one line per level (free KiB, exit code, state, the
journal's record — none when the disk had no room even for it, rolled-back when the apply began
and was undone —, temp files left, the first line memtui printed on stderr) and a summary.

Needs root (it mounts a tmpfs) and is not run by the tests::

    sudo .venv/bin/python scripts/full_disk_band.py [--size 4m] [--low 0] [--high 400] [--step 4]

Each level gets a fresh tmpfs at the same mount point (so every path memtui records is the same),
a copy of one demo made at the start (``cp -a``: the same bytes and times), a filler file that
leaves exactly the wanted free space, and its own empty HOME and cache (a cold run each time).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: a temp file memtui makes in a memory folder or its journal (``.<name>.<id>.<16 hex>.tmp`` …)
TEMP = re.compile(r"^\..*\.tmp$")


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every file (bytes) and folder (None) under ``folder``, ``.memtui/`` left out."""
    out: dict[str, bytes | None] = {}
    for here, dirs, files in os.walk(folder):
        rel = os.path.relpath(here, folder)
        if rel == ".memtui" or rel.startswith(".memtui" + os.sep):
            dirs[:] = []
            continue
        for name in dirs:
            if not (rel == "." and name == ".memtui"):
                out[os.path.normpath(os.path.join(rel, name)) + "/"] = None
        for name in files:
            out[os.path.normpath(os.path.join(rel, name))] = Path(here, name).read_bytes()
    return out


def temps(folder: Path) -> list[str]:
    """memtui's temp files left anywhere under ``folder`` (``.memtui/`` included)."""
    return sorted(os.path.relpath(os.path.join(here, name), folder)
                  for here, _, files in os.walk(folder) for name in files if TEMP.match(name))


def records(folder: Path) -> list[str]:
    """The states of the journal's records (``pending``, ``rolled-back``, ``committed``)."""
    journal = folder / ".memtui" / "journal"
    names = sorted(n for n in os.listdir(journal) if n.endswith(".json")) if journal.is_dir() else []
    return ["pending" if n.endswith(".pending.json") else "rolled-back" if n.endswith(".rolled-back.json")
            else "committed" for n in names]


def free_kib(mount: Path) -> int:
    st = os.statvfs(mount)
    return st.f_bavail * st.f_frsize // 1024


def fill(mount: Path, leave_kib: int) -> None:
    """A filler file that leaves exactly ``leave_kib`` KiB free on ``mount`` (written, not sparse)."""
    filler = mount / "filler"
    with open(filler, "wb") as handle:
        handle.write(b"\0" * max(free_kib(mount) - leave_kib, 0) * 1024)
    while free_kib(mount) < leave_kib and filler.stat().st_size:  # the filler's own metadata
        os.truncate(filler, max(filler.stat().st_size - 4096, 0))
    if free_kib(mount) != leave_kib:
        raise SystemExit(f"could not leave {leave_kib} KiB free (have {free_kib(mount)})")


class Band:
    def __init__(self, memtui: str, mount: Path, size: str, template: Path, now: str) -> None:
        self.memtui, self.mount, self.size, self.template, self.now = memtui, mount, size, template, now

    def mount_fresh(self) -> None:
        self.unmount()
        self.mount.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={self.size}", "tmpfs", str(self.mount)], check=True)

    def unmount(self) -> None:
        if os.path.ismount(self.mount):
            subprocess.run(["umount", str(self.mount)], check=True)

    def run(self, leave_kib: int | None) -> tuple[int, str, Path]:
        """One dream on a fresh copy; ``leave_kib`` free (None: no filler).  (exit, stderr, memory)."""
        self.mount_fresh()
        subprocess.run(["cp", "-a", str(self.template), str(self.mount / "demo")], check=True)
        if leave_kib is not None:
            fill(self.mount, leave_kib)
        memory = self.mount / "demo" / "memory"
        with tempfile.TemporaryDirectory(prefix="band-home-") as home:
            env = {**os.environ, "HOME": home, "XDG_CACHE_HOME": f"{home}/cache",
                   "XDG_CONFIG_HOME": f"{home}/config", "MEMTUI_CACHE_DIR": f"{home}/cache/memtui"}
            done = subprocess.run([self.memtui, "dream", "--yes", "--now", self.now, str(memory)],
                                  env=env, capture_output=True, text=True)
        return done.returncode, done.stderr, memory


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="4m", help="the tmpfs size (default 4m)")
    parser.add_argument("--low", type=int, default=0, help="least free KiB (default 0)")
    parser.add_argument("--high", type=int, default=400, help="most free KiB (default 400)")
    parser.add_argument("--step", type=int, default=4, help="KiB between levels (default 4)")
    parser.add_argument("--mount", default="/mnt/memtui-band", help="mount point (default /mnt/memtui-band)")
    parser.add_argument("--memtui", default=str(Path(sys.executable).with_name("memtui")))
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("needs root: it mounts a tmpfs", file=sys.stderr)
        return 2
    mount = Path(args.mount)
    scratch = Path(tempfile.mkdtemp(prefix="band-"))
    try:
        template = scratch / "demo"
        subprocess.run([args.memtui, "demo", "--out", str(template)], check=True, capture_output=True)
        from datetime import date

        band = Band(args.memtui, mount, args.size, template, date.today().isoformat())
        code, err, memory = band.run(None)
        after = tree(memory)
        before = tree(template / "memory")
        if code != 0 or after == before:
            print(f"the dream with room to spare did not change the folder (exit {code}): {err}", file=sys.stderr)
            return 2
        print(f"demo dream: {len(before)} paths before, {len(after)} after; tmpfs {args.size}")
        print(f"{'free KiB':>8}  {'exit':>4}  {'state':<7}  {'record':<11}  {'temps':>5}  message")
        counts = {"before": 0, "after": 0, "BETWEEN": 0}
        left_temps = left_pending = rolled = 0
        for level in range(args.low, args.high + 1, args.step):
            code, err, memory = band.run(level)
            now = tree(memory)
            state = "before" if now == before else "after" if now == after else "BETWEEN"
            counts[state] += 1
            left, states = temps(band.mount / "demo"), records(memory)
            left_temps += len(left)
            left_pending += states.count("pending")
            rolled += "rolled-back" in states
            first = next((line for line in err.splitlines() if line.strip()), "")
            record = ",".join(states) or "none"
            print(f"{level:>8}  {code:>4}  {state:<7}  {record:<11}  {len(left):>5}  {first[:100]}")
            if state == "BETWEEN":
                changed = sorted(p for p in set(now) | set(before) if now.get(p) != before.get(p))
                print(f"{'':>8}  differs from before at: {', '.join(changed[:8])}")
            for name in left:
                print(f"{'':>8}  left: {name}")
        band.unmount()
        total = sum(counts.values())
        print(f"{total} levels: {counts['before']} before ({rolled} of them applied in part and rolled "
              f"back), {counts['after']} after, {counts['BETWEEN']} between; {left_temps} temp files "
              f"left, {left_pending} pending records")
        return 1 if counts["BETWEEN"] or left_temps or left_pending else 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if os.path.ismount(mount):
            subprocess.run(["umount", str(mount)], check=False)


if __name__ == "__main__":
    sys.exit(main())
