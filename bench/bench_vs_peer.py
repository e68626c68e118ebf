"""Benchmark: whole-process ``memtui validate`` cold and warm, beside any other validator.

Builds flat roots (every topic file indexed in ``MEMORY.md``, bodies from a Zipf vocabulary) of
1k and 10k files (``--big`` adds 100k) and the synthetic roots of ``bench/synth.py``, waits until
every file is older than the stat cache's racy window, then times whole processes, each variant
in turn (alternation, so load on a shared machine falls on all of them alike), median of
``--repeat``:

- ``python -c pass``: the interpreter's floor;
- ``read floor``: a Python process that lists the root and reads every byte (what a cold run
  cannot avoid);
- ``memtui cold``: ``memtui ARGS ROOT`` with an empty cache folder (the first run: parses
  everything and writes the cache);
- ``memtui warm``: the same with the cache of a previous run;
- each ``--peer 'COMMAND {root}'`` (a shell command; ``{root}`` is replaced).

Every process runs as an installed memtui would, from compiled ``.pyc`` files (whatever
``PYTHONDONTWRITEBYTECODE`` says here; one untimed run of each variant writes them first).
Wall-clock medians and the children's CPU time (user + system) are printed, with ratios to the
read floor and to each peer.  Nothing of a peer is part of this repository: give its command.

    python bench/bench_vs_peer.py [--sizes 1000,10000] [--big] [--no-synth] [--repeat 5]
        [--args 'validate --quiet --no-record'] [--peer 'node peer.js {root}'] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import make_root  # noqa: E402

RACY_WAIT = 2.2  # seconds: the stat cache trusts only files older than 2 s

READ_FLOOR = (
    "import os,sys\n"
    "stack=[sys.argv[1]]\n"
    "while stack:\n"
    "    with os.scandir(stack.pop()) as it:\n"
    "        for e in it:\n"
    "            if e.is_dir(follow_symlinks=False): stack.append(e.path)\n"
    "            else:\n"
    "                with open(e.path,'rb') as h: h.read()\n"
)


def vocabulary(rng: random.Random, size: int = 6000) -> list[str]:
    """Pronounceable made-up words, most common first."""
    syllables = [c + v for c in "bcdfghjklmnprstvwz" for v in "aeiou"] + ["qu", "th", "sh", "ch"]
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def make_flat(dest: Path, n_files: int, seed: int = 11) -> Path:
    """A root of ``n_files`` topic files (300–2,000 bytes), every one listed in ``MEMORY.md``."""
    rng = random.Random(seed)
    words = vocabulary(rng)
    weights = [1.0 / (rank + 1) ** 1.07 for rank in range(len(words))]
    dest.mkdir(parents=True, exist_ok=True)
    lines = ["# Memory", ""]
    types = ("project", "feedback", "reference", "user")
    for i in range(n_files):
        name = f"note_{i:06d}.md"
        title = " ".join(rng.choices(words, weights, k=3))
        body: list[str] = []
        size = rng.randint(300, 2000)
        while sum(len(s) + 1 for s in body) < size:
            body.append(" ".join(rng.choices(words, weights, k=rng.randint(6, 16))).capitalize() + ".")
        (dest / name).write_text(
            f"---\nname: {title}\ndescription: {' '.join(rng.choices(words, weights, k=5))}\n"
            f"type: {types[i % len(types)]}\nupdated: 2026-{rng.randint(1, 11):02d}-"
            f"{rng.randint(1, 28):02d}\n---\n\n" + "\n".join(body) + "\n"
        )
        lines.append(f"- [{title}]({name}) — {' '.join(rng.choices(words, weights, k=4))}")
    (dest / "MEMORY.md").write_text("\n".join(lines) + "\n")
    return dest


def run(command: list[str] | str, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system of the child) of one whole process."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, shell=isinstance(command, str), env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--big", action="store_true", help="also 100,000 files")
    parser.add_argument("--no-synth", action="store_true", help="skip bench/synth.py's roots")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--args", default="validate --quiet --no-record",
                        help="memtui's arguments before the root (default: %(default)s)")
    parser.add_argument("--peer", action="append", default=[], metavar="'COMMAND {root}'")
    parser.add_argument("--keep", metavar="DIR", help="build the roots here and keep them")
    args = parser.parse_args()

    sizes = [int(x) for x in args.sizes.split(",") if x] + ([100_000] if args.big else [])
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="memtui-bench-"))
    try:
        roots: list[tuple[str, Path]] = []
        for n in sizes:
            flat = base / f"flat{n}"
            if not (flat / "MEMORY.md").exists():
                make_flat(flat, n)
            roots.append((f"flat {n:,}", flat))
            if not args.no_synth and n <= 10_000:
                synth = base / f"synth{n}"
                if not (synth / "MEMORY.md").exists():
                    make_root(synth, n)
                roots.append((f"synth {n:,}", synth))
        time.sleep(RACY_WAIT)  # every file older than the racy window, as a folder between runs is
        memtui = [sys.executable, "-m", "memtui", *shlex.split(args.args)]
        load = os.getloadavg()
        print(f"python {sys.version.split()[0]} · {os.cpu_count()} cores · load average "
              f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at start · median of {args.repeat} · "
              f"wall s (cpu s)")
        print(f"memtui {args.args} ROOT")
        peers = [f"peer {i + 1}" for i in range(len(args.peer))]
        for i, peer in enumerate(args.peer):
            print(f"  peer {i + 1}: {peer}")
        head = ["root", "python -c pass", "read floor", "memtui cold", "memtui warm", *peers]
        print(" | ".join(f"{h:>17}" for h in head) + " | cold/read | " +
              " | ".join(f"warm/{p}" for p in peers))
        for label, root in roots:
            cache_dir = base / f"cache-{root.name}"
            env = dict(os.environ, MEMTUI_CACHE_DIR=str(cache_dir), MEMTUI_NO_PRESSURE="1")
            env.pop("MEMTUI_NO_CACHE", None)
            env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: modules load from .pyc
            variants: dict[str, list[tuple[float, float]]] = {h: [] for h in head[1:]}
            run(memtui + [str(root)], env)  # page cache warm for every variant, .pyc written
            for peer in args.peer:
                run(peer.replace("{root}", shlex.quote(str(root))), env)
            for _ in range(args.repeat):
                variants["python -c pass"].append(run([sys.executable, "-c", "pass"], env))
                variants["read floor"].append(run([sys.executable, "-c", READ_FLOOR, str(root)], env))
                shutil.rmtree(cache_dir, ignore_errors=True)
                variants["memtui cold"].append(run(memtui + [str(root)], env))
                variants["memtui warm"].append(run(memtui + [str(root)], env))
                for name, peer in zip(peers, args.peer):
                    variants[name].append(run(peer.replace("{root}", shlex.quote(str(root))), env))
            med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
                   for k, v in variants.items()}
            cells = [f"{w:>8.3f} ({c:>6.3f})" for w, c in med.values()]
            ratios = [f"{med['memtui cold'][0] / med['read floor'][0]:>9.2f}"]
            ratios += [f"{med['memtui warm'][0] / med[p][0]:>9.2f}" for p in peers]
            print(f"{label:>17} | " + " | ".join(cells) + " | " + " | ".join(ratios))
            sys.stdout.flush()
        load = os.getloadavg()
        print(f"load average at end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
