"""The memory files a Bash command reads or writes, as a transcript records it.

Claude Code records a Bash call's command verbatim (CLAUDE-CODE.md "Bash reads"): quotes, globs
and a leading ``cd <dir> &&`` kept (``cd /…/memory && cat MEMORY.md``).  This reads it as a
shell would split it — words, quotes, ``&&``, ``||``, ``;``, ``|`` and redirections — following
``cd``, and names:

- **reads**: the files of ``cat``, ``head``, ``tail``, ``less``, ``more``, ``sed`` (not ``-i``),
  ``grep``/``egrep``/``fgrep``/``rg`` (after the pattern), and an input redirection ``< file``;
- **writes**: an output redirection ``> file`` / ``>> file``, ``tee [-a] file``, ``sed -i``.

Paths are made absolute against the ``cd`` target or the session's working folder; a glob is
kept as written (the caller matches it against the root's files); only Markdown paths count.
A here-document's body (``cat >> notes.md <<'EOF'`` … ``EOF``, the common way to append) is
text, not words: it is left out before splitting, and so is a here-string's word (``<<<``).
Anything it cannot split (an unbalanced quote) names nothing.
"""

from __future__ import annotations

import os
import re
import shlex

READERS = frozenset({"cat", "head", "tail", "less", "more", "sed", "grep", "egrep", "fgrep", "rg"})
_SEPARATORS = frozenset({"&&", "||", ";", "|", "&", "|&", ";;"})
#: options that take the next word as their value, per program
_VALUED = {
    "head": {"-n", "-c", "--lines", "--bytes"},
    "tail": {"-n", "-c", "--lines", "--bytes"},
    "sed": {"-e", "-f", "--expression", "--file", "-l"},
    "grep": {"-e", "-f", "-m", "-A", "-B", "-C", "--regexp", "--file", "--max-count", "-d", "-D"},
    "rg": {"-e", "-f", "-m", "-A", "-B", "-C", "-g", "-t", "-T", "--regexp", "--file", "--glob",
           "--type", "--max-count"},
}
_VALUED["egrep"] = _VALUED["fgrep"] = _VALUED["grep"]


_HEREDOC = re.compile(r"<<-?[ \t]*(?:'([^'\n]+)'|\"([^\"\n]+)\"|\\?([A-Za-z0-9_.-]+))")


def _without_heredocs(command: str) -> str:
    """The command with each here-document's body (from the line after ``<<WORD`` through the
    line that is ``WORD``) taken out; an unterminated one runs to the end."""
    out: list[str] = []
    lines = command.split("\n")
    k = 0
    while k < len(lines):
        line = lines[k]
        out.append(line)
        k += 1
        for found in _HEREDOC.finditer(line):
            if line[found.start():].startswith("<<<"):
                continue
            word = next(g for g in found.groups() if g is not None)
            strip_tabs = line[found.start():].startswith("<<-")
            while k < len(lines) and (lines[k].lstrip("\t") if strip_tabs else lines[k]) != word:
                k += 1
            k += 1  # the closing word
    return "\n".join(out)


def _words(command: str) -> list[str] | None:
    if "<<" in command:
        command = _without_heredocs(command)
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|<>\n")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        words = list(lexer)
    except ValueError:
        return None
    out: list[str] = []
    for word in words:  # a line break ends a command, as ``;`` does
        if "\n" in word and not word.strip("\n;&|<>"):
            out += [part for part in word.split("\n") if part]
            out.append(";")
        else:
            out.append(word)
    return out


def _absolute(path: str, cwd: str | None) -> str | None:
    path = os.path.expanduser(path)
    if os.path.isabs(path):
        return os.path.normpath(path)
    if cwd is None or not os.path.isabs(cwd):
        return None
    return os.path.normpath(os.path.join(cwd, path))


def _markdown(path: str) -> bool:
    return path.lower().endswith(".md")


def shell_paths(command: str, cwd: str | None) -> tuple[list[str], list[str]]:
    """(paths read, paths written) by a Bash command run in ``cwd``, Markdown files only."""
    words = _words(command)
    if words is None:
        return [], []
    reads: list[str] = []
    writes: list[str] = []
    segment: list[str] = []
    here = cwd

    def finish(separator: str) -> None:
        nonlocal here
        args = list(segment)
        segment.clear()
        while args and "=" in args[0] and not args[0].startswith("="):
            args.pop(0)  # VAR=value before the program
        if not args:
            return
        program = os.path.basename(args[0])
        if program == "cd" and separator in ("&&", ";", ""):
            target = _absolute(args[1], here) if len(args) > 1 else None
            here = target if target is not None else here
            return
        kept: list[str] = []
        k = 0
        while k < len(args):  # redirections first
            word = args[k]
            if word in ("<<", "<<-", "<<<") and k + 1 < len(args):
                k += 2  # a here-document's word (its body is gone) or a here-string
                continue
            if word in (">", ">>", "<", ">|") and k + 1 < len(args):
                path = _absolute(args[k + 1], here)
                if path is not None and _markdown(path):
                    (reads if word == "<" else writes).append(path)
                k += 2
                continue
            kept.append(word)
            k += 1
        if kept:
            _program(os.path.basename(kept[0]), kept[1:], here, reads, writes)

    for word in words:
        if word in _SEPARATORS:
            finish(word)
            continue
        segment.append(word)
    finish("")
    return reads, writes


def _program(program: str, args: list[str], cwd: str | None, reads: list[str],
             writes: list[str]) -> None:
    if program == "tee":
        targets = [a for a in args if not a.startswith("-")]
        writes += [p for p in (_absolute(a, cwd) for a in targets) if p is not None and _markdown(p)]
        return
    if program not in READERS:
        return
    valued = _VALUED.get(program, set())
    operands: list[str] = []
    pattern_given = False
    in_place = False
    k = 0
    while k < len(args):
        word = args[k]
        if word == "--":
            operands += args[k + 1:]
            break
        if word.startswith("-") and word != "-":
            name = word.split("=", 1)[0]
            if name in ("-e", "-f", "--regexp", "--file", "--expression"):
                pattern_given = True
            if program == "sed" and (word.startswith("-i") or word.startswith("--in-place")):
                in_place = True
            if name in valued and "=" not in word:
                k += 2
                continue
            k += 1
            continue
        operands.append(word)
        k += 1
    if program in ("sed", "grep", "egrep", "fgrep", "rg") and not pattern_given and operands:
        operands = operands[1:]  # the script or the pattern
    paths = [p for p in (_absolute(a, cwd) for a in operands) if p is not None and _markdown(p)]
    (writes if in_place else reads).extend(paths)
