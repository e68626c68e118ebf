"""What every subcommand shares: consoles, JSON output, root resolution, exit codes."""

from __future__ import annotations

import argparse
import os
import re
import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeAlias

from memtui.terminal_text import SURROGATES, escaped
from memtui.terminal_text import plain as plain  # re-exported: the verbs print through plain

if TYPE_CHECKING:  # Rich loads only when something is printed through it
    from collections.abc import Iterable, Sequence
    from typing import TextIO

    from rich.console import Console
    from rich.table import Table

    from memtui.core.model.snapshot import BudgetConfig, Snapshot

#: what ``add_subparsers`` returns: each subcommand module's ``register`` adds its parsers to it
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """A mistake the user can fix: printed as one line, exit 2."""


#: what this run has written to memory folders (journal ids): an output error after a commit
#: must not read as a refused change
APPLIED: list[str] = []


def note_applied(*record_ids: str | None) -> None:
    """Say that a change was committed (before its report is printed)."""
    APPLIED.extend(r or "a change" for r in record_ids)


class Exit(Exception):
    """Leave a command with this exit code (caught once, where every command is run:
    ``memtui.cli.main``)."""

    def __init__(self, code: int) -> None:
        self.code = code
        super().__init__(code)


class OutputFailed(Exception):
    """Standard output could not be written (a closed pipe, a full disk): not an OSError, so no
    handler of the writer's I/O errors mistakes it for one."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error.strerror or str(error))
        self.error = error


class GuardedOutput:
    """A text stream whose write errors raise :class:`OutputFailed`, except a closed pipe: the
    reader left (``memtui validate | head``), so the rest of the output goes nowhere and the
    command runs on to its verdict, which a closed pipe must not change (everything else is the
    wrapped stream's)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.reader_left = False

    def write(self, text: str) -> int:
        if self.reader_left:
            return len(text)
        try:
            return int(self._stream.write(text))
        except OSError as exc:
            return self._failed(exc, len(text))

    def flush(self) -> None:
        if self.reader_left:
            return
        try:
            self._stream.flush()
        except OSError as exc:
            self._failed(exc, 0)

    def _failed(self, exc: OSError, written: int) -> int:
        if not closed_pipe(exc):
            raise OutputFailed(exc) from None
        self.reader_left = True
        discard_stdout(self._stream)
        return written

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def closed_pipe(exc: OSError) -> bool:
    """Whether an output error means the reader closed the pipe (EPIPE), not a failing disk."""
    import errno

    return isinstance(exc, BrokenPipeError) or exc.errno == errno.EPIPE


def discard_stdout(stream: object) -> None:
    """After the reader left: the process's standard output goes to the null device, so what is
    still buffered (and the interpreter's last flush) cannot fail again; a test's capture, which
    is not the process's, is left alone."""
    if stream is not sys.__stdout__ or sys.__stdout__ is None:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


class MemtuiParser(argparse.ArgumentParser):
    """An argument parser whose mistakes are one line (a :class:`UsageError`), not a usage block.

    Subcommand parsers inherit the class (``add_subparsers`` uses the parent's type).
    """

    def _get_formatter(self) -> argparse.HelpFormatter:
        return _Formatter(prog=self.prog)

    def error(self, message: str) -> NoReturn:
        command = self.prog.partition(" ")[2]
        where = f"{command}: " if command else ""
        bad = _INVALID_CHOICE.search(message)
        if bad:  # "invalid choice: 'errs' (choose from 'root', …)": and the nearest one
            message += did_you_mean(bad["value"], _QUOTED.findall(bad["choices"]))
        raise UsageError(f"{where}{message} (see `{self.prog} --help`)")

    def option_names(self) -> list[str]:
        """The ``--long`` options this parser takes."""
        return [name for name in self._option_string_actions if name.startswith("--")]


_INVALID_CHOICE = re.compile(r"invalid choice: '(?P<value>[^']*)' \(choose from (?P<choices>.*)\)")
_QUOTED = re.compile(r"'([^']*)'")


def did_you_mean(word: str, names: Iterable[str]) -> str:
    """`` — did you mean 'X'?`` for the name nearest a misspelt one (nothing when none is near)."""
    import difflib

    near = difflib.get_close_matches(word, list(names), n=1, cutoff=0.6)
    return f" — did you mean '{near[0]}'?" if near else ""


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter without its ``shutil`` import (argparse makes one per argument)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        if width is None:
            try:
                width = int(os.environ["COLUMNS"])
            except (KeyError, ValueError):
                try:
                    width = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
                except (AttributeError, ValueError, OSError):
                    width = 80
            width -= 2
        super().__init__(prog, indent_increment, max_help_position, width)


#: width of output written to a pipe or file: wide enough that table cells never wrap
PIPED_WIDTH = 1000


def console() -> Console:
    """Standard output; lines are never hard-wrapped so output stays greppable.

    A terminal's real width is used; piped output (without ``COLUMNS``) gets room enough that
    tables keep each row on one line.
    """
    from rich.console import Console

    out = Console(highlight=False, soft_wrap=True)
    if piped(out):
        out.width = PIPED_WIDTH
    out.on_broken_pipe = partial(_reader_left, out)  # type: ignore[method-assign]
    return out


def piped(out: Console) -> bool:
    """Whether ``out`` goes to a pipe or a file and no ``COLUMNS`` chooses a width: its tables are
    then printed plainly (:func:`print_plain`)."""
    return not out.is_terminal and not os.environ.get("COLUMNS")


def print_hanging(out: Console, head: str, tail: str) -> None:
    """One line of ``head`` (markup, never wrapped) and ``tail`` (markup), two spaces apart.  In
    a terminal too narrow for it, the tail wraps at its words under its own first word, so a
    list stays readable at 80 columns; piped, it is one line (greppable)."""
    from rich.table import Table
    from rich.text import Text

    if piped(out) or Text.from_markup(f"{head}  {tail}").cell_len <= out.width:
        out.print(f"{head}  {tail}")
        return
    grid = Table.grid(padding=(0, 2))
    head_width = Text.from_markup(head).cell_len
    if head_width > out.width // 2:  # no room beside a long head: the tail under it, indented
        out.print(head)
        grid.add_column(width=4)
        grid.add_column(ratio=1)
        grid.add_row("", tail)
    else:
        grid.add_column(no_wrap=True)
        grid.add_column(ratio=1)
        grid.add_row(head, tail)
    out.print(grid, soft_wrap=False)


def add_plain_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--plain", action="store_true",
                        help="print the table as tab-separated text: a header row, then one row "
                        "per line, no title or legend (the default when piped without COLUMNS)")


def plain_wanted(args: argparse.Namespace, out: Console) -> bool:
    """Whether a table command prints its tables plainly: ``--plain``, or :func:`piped`."""
    return bool(getattr(args, "plain", False)) or piped(out)


def markup_text(cell: object) -> str:
    """What a Rich table shows of a cell: a ``str`` is markup, reduced to its text (a ``Text`` its
    plain text)."""
    if isinstance(cell, str):
        if "[" not in cell and ":" not in cell:
            return cell
        from rich.text import Text

        return Text.from_markup(cell).plain
    return str(getattr(cell, "plain", cell))


def print_plain(out: Console, header: Sequence[str], rows: Iterable[Sequence[str]]) -> None:
    """A table as tab-separated text on ``out``: a header row of column names, then one line per
    row; no borders, padding, colour or title.  Cells are literal text, each one field: its
    control characters, tabs and line breaks written as escapes (:func:`plain`, as everywhere
    the CLI prints a memory folder's text), so no cell can break a row or drive the terminal."""
    lines = ["\t".join(plain(name) for name in header)]
    lines.extend("\t".join(plain(cell) for cell in row) for row in rows)
    try:
        out.file.write("\n".join(lines) + "\n")
        out.file.flush()
    except BrokenPipeError:
        out.on_broken_pipe()


def table_cells(table: Table) -> tuple[list[str], list[list[str]]]:
    """A Rich table's column names and rows as the text Rich shows (its cells are markup), for
    :func:`print_plain`."""
    names = [markup_text(column.header) for column in table.columns]
    columns = [[markup_text(cell) for cell in column.cells] for column in table.columns]
    return names, [list(row) for row in zip(*columns)]


def _reader_left(out: Console) -> None:
    """The reader closed the pipe (``memtui stale | head``): what it wanted was written, so the
    rest goes nowhere and the command runs on to its own exit code (rich's answer is exit 1
    whatever the verdict)."""
    out.quiet = True
    discard_stdout(sys.__stdout__)


def err_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


_SURROGATE = re.compile(f"[{SURROGATES}]")  # a name's bytes that are not UTF-8


#: a diff longer than this many lines is written without colour: highlighting the 80,000 lines of
#: a long index's diff took seconds (and a terminal shows the end of it only)
DIFF_COLOUR_LINES = 5000


def print_diff(out: Console, text: str) -> None:
    """A unified diff on ``out``, its control characters escaped (:func:`plain`: a memory file's
    ESC sequences must not reach the terminal), coloured on a terminal when it is not long."""
    safe = plain(text.rstrip("\n"), lines=True)
    if out.is_terminal and safe.count("\n") < DIFF_COLOUR_LINES:
        from rich.syntax import Syntax

        out.print(Syntax(safe, "diff", theme="ansi_dark", background_color="default"))
        return
    try:
        out.file.write(safe + "\n")
        out.file.flush()
    except BrokenPipeError:
        out.on_broken_pipe()


def esc(text: object) -> str:
    """``text`` for a Rich markup string: control characters escaped (:func:`plain`), markup inert."""
    from rich.markup import escape

    return escape(plain(str(text)))


def os_error_words(exc: OSError) -> str:
    """An ``OSError`` in plain words, with the file it was about: "the disk is full (…/x.pack)"."""
    from memtui.core.write import describe_os_error

    name = exc.filename if isinstance(exc.filename, str) else ""
    return describe_os_error(exc) + (f" ({name})" if name else "")


def report_interrupted(snapshot: Snapshot, base: str | None = None) -> bool:
    """Say on stderr, as the ``interrupted-change`` finding, that a change to the root was cut off.

    For the read-only commands that do not print findings (they never recover: only a change
    or the app does).  True when there was one: the command then exits 1 (an error finding).
    """
    return report_pending(snapshot.root, snapshot.interrupted, base)


def report_pending(root: Path, interrupted: tuple[str, ...], base: str | None = None) -> bool:
    """:func:`report_interrupted` of a root's pending journal records, without a snapshot."""
    if not interrupted:
        return False
    from memtui.core.model.journal import JOURNAL_DIR, progress_of
    from memtui.core.rules.validate import interrupted_message

    for name in interrupted:
        err_console().print(
            f"[red]error[/] [bold]interrupted-change[/] {esc(rel_root(root, base))}: "
            f"[cyan]{esc(JOURNAL_DIR)}/{esc(name)}[/] {esc(interrupted_message(progress_of(root, name)))}")
    return True


def print_json(value: Any) -> None:  # a JSON value
    from .jsontext import dumps_indented

    text = dumps_indented(value)
    if _SURROGATE.search(text):  # a name that is not UTF-8: its bytes as \xNN in the string
        text = _SURROGATE.sub(lambda m: "\\" + escaped(m), text)
    sys.stdout.write(text + "\n")


def add_budget_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-lines", type=positive_int, default=200, metavar="N",
                        help="the loader's line cap (default 200)")
    parser.add_argument("--max-bytes", type=positive_int, default=25_000, metavar="N",
                        help="the loader's byte cap (default 25000)")
    add_loader_option(parser)


def add_loader_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--loader", choices=("claude-code", "raw"), default=None,
                        help="what loads: claude-code strips the index's frontmatter and block-level "
                        "HTML comments before the cut; raw takes the file as it is (default: "
                        "$MEMTUI_LOADER, else ~/.config/memtui/config.json, else claude-code)")


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{value} must be greater than 0")
    return value


def budget_config(args: argparse.Namespace) -> BudgetConfig:
    """The caps and loader profile of the command line (a :class:`UsageError` for a bad config)."""
    from memtui.core.model.snapshot import BudgetConfig

    return BudgetConfig(
        max_lines=getattr(args, "max_lines", 200),
        max_bytes=getattr(args, "max_bytes", 25_000),
        loader=loader_of(args),
    )


def loader_of(args: argparse.Namespace) -> str:
    """``--loader``, else the configured default profile."""
    from memtui.core.rules.budget import configured_loader

    chosen = getattr(args, "loader", None)
    if chosen:
        return str(chosen)
    try:
        return configured_loader()
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def find_roots(path: str | None) -> list[Path]:
    """Roots for a PATH argument (or discovery); a :class:`UsageError` when there are none."""
    from memtui.core.read.store import RootError
    from memtui.core.roots.discover import discover

    try:
        return discover(Path(path).expanduser() if path else None)
    except RootError as exc:
        raise UsageError(str(exc)) from None


def rel_root(root: Path, base: str | None = None) -> str:
    """A root as a person wants to read it: relative to the folder asked about, or to cwd."""
    anchors = ([Path(base).expanduser().absolute()] if base else []) + [Path.cwd()]
    for anchor in anchors:
        try:
            rel = str(root.relative_to(anchor))
        except ValueError:
            continue
        return rel if rel != "." else (anchor.name or str(anchor))
    return str(root)
