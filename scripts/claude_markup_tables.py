"""Write memtui/core/rules/neutralize.json: the tables Claude Code uses to neutralize MEMORY.md
before loading it, taken from an installed Claude Code binary.

Claude Code removes invisible characters from the loaded index (a JavaScript regular expression
over Unicode properties: Cf, Co, Cn, Cs, Default_Ignorable_Code_Point, C0/C1 controls — by its
engine's Unicode version, 17.0 in 2.1.332, where Python 3.11's ``unicodedata`` has 14.0) and
escapes tags that imitate its own markup (three patterns run on a "reading" of the text in which
look-alike characters stand for the letters they imitate).  This script runs the binary's own
modules under Node to get both:

1. it reads the Bun module graph appended to the binary (the ``---- Bun! ----`` trailer) and
   writes the modules to a temporary folder;
2. it finds, by their content, the module building the tag patterns, the module listing which
   tags the memory loader escapes, and the module holding the invisible-character expression;
3. under Node (whose ``process.versions.unicode`` must be the binary's), it builds the three
   patterns as the loader does, reads every non-ASCII code point through the binary's reading
   function, and lists every code point the invisible-character expression removes;
4. it takes the patterns apart into their character classes and tag spellings, checks they have
   the shape memtui's matcher (:mod:`memtui.core.rules.neutralize`) implements, and writes the
   JSON (no source of the binary: code point tables and tag names only).

Usage: ``python scripts/claude_markup_tables.py PATH/TO/claude [--node node] [--check]``
(``PATH`` may be the npm package folder).  ``--check`` compares with the file in the tree instead
of writing it (exit 1 when they differ).
"""

from __future__ import annotations

import argparse
import json
import mmap
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "memtui" / "core" / "rules" / "neutralize.json"
TRAILER = b"\n---- Bun! ----\n"
PREFIX = "/$bunfs/root/"


def find_binary(path: Path) -> Path:
    if path.is_dir():
        for candidate in (path / "bin" / "claude.exe", path / "bin" / "claude",
                          path / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"):
            if candidate.is_file():
                return candidate
        raise SystemExit(f"{path}: no Claude Code binary in it")
    return path


def modules(binary: Path) -> dict[str, bytes]:
    """The Bun standalone module graph: name -> contents."""
    with open(binary, "rb") as handle:
        data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        at = data.rfind(TRAILER)
        if at < 0:
            raise SystemExit(f"{binary}: not a Bun standalone binary (no module graph)")
        byte_count, table_at, table_len = struct.unpack_from("<QII", data, at - 32)
        start = at - 32 - byte_count
        size = 52  # name, contents, source map, bytecode (offset, length each) and more
        if table_len % size:
            raise SystemExit(f"{binary}: unknown module table layout ({table_len} bytes)")
        out = {}
        for k in range(table_len // size):
            base = start + table_at + k * size
            name_at, name_len, body_at, body_len = struct.unpack_from("<IIII", data, base)
            name = data[start + name_at: start + name_at + name_len].decode("utf-8")
            out[name] = data[start + body_at: start + body_at + body_len]
        return out


def one(found: list[str], what: str) -> str:
    if len(found) != 1:
        raise SystemExit(f"expected one module with {what}, found {len(found)}")
    return found[0]


NODE_SCRIPT = r"""
const [scrubPath, tagsPath, specsPath, stripPath] = process.argv.slice(1);
const scrub = await import(scrubPath);
const owner = await import(tagsPath);
const spec = JSON.parse(specsPath);
const strip = new RegExp(stripPath.slice(1, stripPath.lastIndexOf('/')), 'u');
const names = owner[spec.list];
const channel = spec.channelValue;
const jpa = scrub[spec.tail];
const specs = [{tags: names.filter((e) => e !== channel)}, {tags: [channel], tail: jpa},
               {tags: ['antml'], tail: ({colon: e}) => `[${e}]`}];
const patterns = specs.map((s) => scrub.__memtui_build(s, 'giu').source);
const reading = {};
for (let cp = 0x80; cp <= 0x10ffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue;
  const ch = String.fromCodePoint(cp);
  const r = scrub.__memtui_reading(ch).reading;
  if (r !== ch) reading[cp.toString(16)] = [...r].map((c) => c.codePointAt(0).toString(16)).join(' ');
}
const ranges = []; let start = -1;
for (let cp = 0; cp <= 0x110000; cp++) {
  const hit = cp <= 0x10ffff && strip.test(String.fromCodePoint(cp));
  if (hit && start < 0) start = cp;
  if (!hit && start >= 0) { ranges.push([start, cp - 1]); start = -1; }
}
process.stdout.write(JSON.stringify({patterns, reading, strip: ranges, tags: names,
                                     unicode: process.versions.unicode}));
"""


def dump(binary: Path, node: str) -> dict[str, object]:
    graph = modules(binary)
    texts = {name: body.decode("utf-8", "replace") for name, body in graph.items()
             if name.endswith(".js")}
    scrub = one([n for n, t in texts.items() if "createTagFormScrub" in t and "offsetInText" in t],
                "the tag-form scrub")
    spec_mod = one([n for n, t in texts.items() if 'tags:["antml"],tail:({colon:' in t],
                   "the loader's tag specs")
    strip_mod = one([n for n, t in texts.items() if re.search(r"function BQ\(\w+\)\{return", t)],
                    "the memory loader's BQ")
    version = re.search(r"// Version: (\S+)", texts[scrub])
    src = texts[scrub]
    build = re.search(r"function (\w+)\(\{tags:\w+,tail:\w+\},\w+\)\{let\{open:", src)
    reading = re.search(r"function (\w+)\((\w+)\)\{let \w+=\[\],\w+=\[\],\w+=\"\",\w+=0;for", src)
    if build is None or reading is None:
        raise SystemExit(f"{scrub}: the pattern builder or the reading function was not found")
    specs = re.search(r"tags:(\w+)\.filter\(\((\w)\)=>\2!==(\w+)\)\},\{tags:\[\3\],tail:(\w+)\},"
                      r"\{tags:\[\"antml\"\],tail:\(\{colon:(\w)\}\)=>`\[\$\{\5\}\]`\}",
                      texts[spec_mod])
    if specs is None:
        raise SystemExit(f"{spec_mod}: the loader's specs have another shape")
    strip = re.search(r"=(/\(\?!\[\\u200c\\u200d\\ufe0e\\ufe0f\]\)\[[^\]\n]*\]/gu)",
                      texts[strip_mod])
    if strip is None:
        raise SystemExit(f"{strip_mod}: the invisible-character expression was not found")
    imports = _imports(texts[spec_mod])
    list_mod, list_name = imports[specs.group(1)]
    channel_mod, channel_name = imports[specs.group(3)]
    tail_mod, tail_name = imports[specs.group(4)]
    if tail_mod != scrub:
        raise SystemExit("the channel tail is not the scrub module's")
    with tempfile.TemporaryDirectory(prefix="memtui-cc-") as tmp:
        folder = Path(tmp)
        (folder / "package.json").write_text('{"type": "module"}')
        for name, text in texts.items():
            if name.startswith(PREFIX) and name.endswith(".js"):
                body = text.replace(f'"{PREFIX}', f'"{folder.as_uri()}/')
                if name == scrub:
                    body += f"\nexport{{{build.group(1)} as __memtui_build,{reading.group(1)} as __memtui_reading}};\n"
                target = folder / name[len(PREFIX):]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(body, encoding="utf-8")
        channel_value = _value(node, folder, channel_mod, channel_name)
        args = [node, "--input-type=module", "-e", NODE_SCRIPT,
                (folder / scrub[len(PREFIX):]).as_uri(), (folder / list_mod[len(PREFIX):]).as_uri(),
                json.dumps({"list": list_name, "channelValue": channel_value, "tail": tail_name}),
                strip.group(1)]
        done = subprocess.run(args, capture_output=True, text=True, check=False, cwd=folder)
        if done.returncode != 0:
            raise SystemExit(f"node failed: {done.stderr[-2000:]}")
    out: dict[str, object] = json.loads(done.stdout)
    out["claude_code"] = version.group(1) if version else "?"
    return out


def _imports(text: str) -> dict[str, tuple[str, str]]:
    """Local name -> (module, exported name) of a module's named imports."""
    out = {}
    for names, module in re.findall(r'import\{([^}]*)\}from"([^"]+)"', text):
        for item in names.split(","):
            item = item.strip()
            if not item:
                continue
            exported, _, local = item.partition(" as ")
            out[(local or exported).strip()] = (module, exported.strip())
    return out


def _value(node: str, folder: Path, module: str, name: str) -> str:
    code = (f"const m = await import({json.dumps((folder / module[len(PREFIX):]).as_uri())});"
            f"process.stdout.write(JSON.stringify(m[{json.dumps(name)}]));")
    done = subprocess.run([node, "--input-type=module", "-e", code], capture_output=True,
                          text=True, check=False, cwd=folder)
    if done.returncode != 0:
        raise SystemExit(f"node failed: {done.stderr[-2000:]}")
    value = json.loads(done.stdout)
    if not isinstance(value, str):
        raise SystemExit(f"{module}:{name} is not a tag name")
    return value


# ---------------------------------------------------------------- taking the patterns apart

_CLASS = re.compile(r"\[(?:\\.|[^\]\\])*\]")


def char_class(text: str) -> tuple[bool, list[list[int]]]:
    """A JavaScript character class (``u`` flag) as (negated, sorted code point ranges)."""
    assert text[0] == "[" and text[-1] == "]"
    body, negated = text[1:-1], False
    if body.startswith("^"):
        body, negated = body[1:], True
    points: list[tuple[int, int]] = []
    k = 0

    def atom() -> int | list[tuple[int, int]]:
        nonlocal k
        ch = body[k]
        if ch != "\\":
            k += 1
            return ord(ch)
        nxt = body[k + 1]
        if nxt == "u" and body[k + 2] == "{":
            end = body.index("}", k)
            value = int(body[k + 3:end], 16)
            k = end + 1
            return value
        if nxt == "u":
            value = int(body[k + 2:k + 6], 16)
            k += 6
            return value
        if nxt == "x":
            value = int(body[k + 2:k + 4], 16)
            k += 4
            return value
        k += 2
        if nxt == "s":  # JavaScript's WhiteSpace and LineTerminator
            return [(9, 13), (32, 32), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
                    (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000),
                    (0xFEFF, 0xFEFF)]
        if nxt == "w":
            return [(48, 57), (65, 90), (95, 95), (97, 122)]
        simple = {"t": 9, "n": 10, "v": 11, "f": 12, "r": 13, "0": 0}
        return simple.get(nxt, ord(nxt))

    while k < len(body):
        first = atom()
        if isinstance(first, list):
            points += first
            continue
        if k + 1 < len(body) and body[k] == "-":
            k += 1
            last = atom()
            assert isinstance(last, int)
            points.append((first, last))
        else:
            points.append((first, first))
    points.sort()
    merged: list[list[int]] = []
    for a, b in points:
        if merged and a <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return negated, merged


def skeleton(pattern: str) -> tuple[str, list[str]]:
    """The pattern with each class made ``C<n>``, and the classes in order."""
    found: list[str] = []

    def name(match: re.Match[str]) -> str:
        found.append(match.group())
        return f"C{len(found) - 1};"

    return _CLASS.sub(name, pattern), found


def take_apart(data: dict[str, object]) -> dict[str, object]:
    patterns = data["patterns"]
    assert isinstance(patterns, list) and len(patterns) == 3
    parts = []
    classes: dict[str, tuple[bool, list[list[int]]]] = {}
    letters: dict[str, list[list[int]]] = {}
    for pattern in patterns:
        skel, found = skeleton(pattern)
        # C0 opener, (?!\\), (?=C1 filler*? (?: tags ) tail )
        head = re.match(r"C(\d+);\(\?!\\\\\)\(\?=C(\d+);\*\?\(\?:", skel)
        assert head is not None, skel[:200]
        classes.setdefault("open", char_class(found[int(head.group(1))]))
        classes.setdefault("filler", char_class(found[int(head.group(2))]))
        assert classes["open"] == char_class(found[int(head.group(1))])
        assert classes["filler"] == char_class(found[int(head.group(2))])
        rest = skel[head.end():]
        spelled = re.compile(r"C(\d+);(?:\(\?=\(C(\d+);\*\)\)\(\?:\\\d+\)C(\d+);)*")
        tags: list[str] = []
        skip: set[str] = set()
        while True:
            match = spelled.match(rest)
            assert match is not None, rest[:200]
            ids = [int(x) for x in re.findall(r"C(\d+);", match.group())]
            word = ""
            for pos, cid in enumerate(ids):
                if pos % 2 == 1:
                    skip.add(found[cid])
                    continue
                cls = found[cid]
                letter = cls[1]
                word += letter
                ranges = char_class(cls)[1]
                assert letters.setdefault(letter, ranges) == ranges, letter
            tags.append(word)
            rest = rest[match.end():]
            if rest.startswith("|"):
                rest = rest[1:]
                continue
            break
        assert rest.startswith(")"), rest[:100]
        tail = rest[1:]
        assert tail.endswith(")")
        tail = tail[:-1]
        assert len(skip) == 1
        classes.setdefault("skip", char_class(skip.pop()))
        parts.append((tags, tail, found))
    (signal, signal_tail, sf), (channel, channel_tail, cf), (antml, antml_tail, af) = parts
    sig = re.fullmatch(r"\(\?:C(\d+);\|\$\)", signal_tail)
    assert sig is not None, signal_tail
    end = char_class(sf[int(sig.group(1))])
    anm = re.fullmatch(r"\(\?=\(C(\d+);\*\)\)\(\?:\\\d+\)C(\d+);", antml_tail)
    assert anm is not None, antml_tail
    assert char_class(af[int(anm.group(1))]) == classes["skip"]
    colon = char_class(af[int(anm.group(2))])
    chm = re.fullmatch(
        r"\(\?=\(C(?P<skip1>\d+);\*\)\)\(\?:\\\d+\)"
        r"\(\?:\(\?!C(?P<name_not>\d+);\)\|\(\?<=C(?P<gap>\d+);C(?P<skip2>\d+);\*\)\)"
        r"C(?P<free1>\d+);\*\(\?:C(?P<span_not>\d+);C(?P<free2>\d+);\*\)\{0,(?P<span>\d+)\}"
        r"\(\?<!C(?P<word>\d+);\)"
        r"(?P<spelled>(?:C\d+;(?:\(\?=\(C\d+;\*\)\)\(\?:\\\d+\))?)+)C(?P<assign>\d+);",
        channel_tail)
    assert chm is not None, channel_tail

    def cls(group: str) -> tuple[bool, list[list[int]]]:
        return char_class(cf[int(chm.group(group))])

    assert cls("skip1") == classes["skip"] and cls("skip2") == classes["skip"]
    assert cls("free1") == cls("free2") and not cls("free1")[0]
    assert cf[int(chm.group("word"))] == "[\\w-]"
    spelled = [int(x) for x in re.findall(r"C(\d+);", chm.group("spelled"))]
    word = "".join(cf[k][1] for k in spelled[0::2])
    assert word == "source", word
    assert all(char_class(cf[k]) == classes["skip"] for k in spelled[1:-1:2])
    assert [char_class(cf[k])[1] for k in spelled[0::2]] == [letters[ch] for ch in word]
    assert not cls("name_not")[0] and not cls("gap")[0] and cls("span_not")[0]
    assert classes["open"][0] is False and classes["filler"][0] is True and end[0] is True
    reading = data["reading"]
    assert isinstance(reading, dict) and "17f" in reading and "212a" in reading  # the case folds
    names = [t for t in data["tags"] if t != channel[0]]  # type: ignore[attr-defined]
    assert [t.replace("-", "_") for t in names] == signal, (names, signal)
    assert "-" not in letters  # one class spells both "-" and "_"
    return {
        "claude_code": data["claude_code"],
        "unicode": data["unicode"],
        "strip": data["strip"],
        "reading": data["reading"],
        "open": classes["open"][1],
        "filler_not": classes["filler"][1],  # the filler is every character but these
        "skip": classes["skip"][1],
        "end_not": end[1],  # the end of a tag name: any character but these, or the end
        "letters": letters,
        "tags": names,
        "channel": {"tag": channel[0], "name_not": cls("name_not")[1], "gap": cls("gap")[1],
                    "span_free": cls("free1")[1], "span_not": cls("span_not")[1],
                    "span": int(chm.group("span")), "attribute": word,
                    "assign_skip": char_class(cf[spelled[-1]])[1], "assign": cls("assign")[1]},
        "antml": {"tag": antml[0], "colon": colon[1]},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("claude", type=Path, help="the Claude Code binary or its npm package folder")
    parser.add_argument("--node", default=shutil.which("node") or "node")
    parser.add_argument("--check", action="store_true", help="compare with the file in the tree")
    args = parser.parse_args()
    data = take_apart(dump(find_binary(args.claude), args.node))
    text = json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n"
    if args.check:
        same = OUT.read_text(encoding="utf-8") == text
        print(f"{OUT.name}: {'same' if same else 'DIFFERS'} (Claude Code {data['claude_code']}, "
              f"Unicode {data['unicode']})")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({len(text):,} bytes; Claude Code {data['claude_code']}, Unicode "
          f"{data['unicode']}, {len(data['strip'])} strip ranges, {len(data['reading'])} readings, "
          f"{len(data['tags'])} tags)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
