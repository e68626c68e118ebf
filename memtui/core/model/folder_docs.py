"""Folder documents: the files of a memory folder that describe the folder instead of holding a
fact — its README, a licence, a competing index, setup notes, an unfilled template.  (A
predicate over one file, with nothing below the model: it belongs in ``model/``.)

:func:`folder_document` is the one test every pass uses: the validator gives such a file the
``folder-document`` warning instead of an ``orphan`` error (and no ``frontmatter`` warning: it
is not a memory, it needs none), the index repair gives it no entry, consolidation never pairs
it, and staleness lists it apart from the scored files.  What counts:

- by its name, wherever it is in the root: ``README``, ``LICENSE``/``LICENCE``, ``COPYING``,
  ``NOTICE``, ``CHANGELOG``, ``CONTRIBUTING``, ``CODE_OF_CONDUCT``, ``SECURITY``, ``AUTHORS``
  (each also with a suffix: ``LICENSE-PENDING.md``, ``README.ja.md``), ``NOTES``, ``SETUP``,
  ``INSTALL`` (exactly: ``notes_2026-05-01.md`` is a note) — unless it carries memory
  frontmatter (``name``, ``description`` or ``type``): then the agent wrote it as a memory;
- a second index of the folder, whatever its frontmatter: ``INDEX.md``, ``MEMORY_INDEX.md``,
  ``MEMORY-INDEX.md``, ``_index.md``, ``TOC.md``, ``SCOPE.md`` (the one a path scope declares
  is part of the layout: the validator asks nothing of it), and a ``MEMORY_ARCHIVE.md`` spelt with an underscore
  (memtui and Claude Code read ``MEMORY-archive.md``): the agent does not load them, and beside
  ``MEMORY.md`` they go stale;
- an unfilled template: a body with nothing in it but HTML comments and headings (``<!-- fill
  in when … -->``): no fact yet.

A retired ``MEMORY.md`` (a root whose index says it is deprecated) is an index, never a memory
file, so it is not among them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from .snapshot import MemoryFile

#: the names people give a folder's own documents (the stem, before any ``-``/``_``/``.`` suffix)
_DOCUMENT = re.compile(
    r"(?i)^(?:(readme|licen[cs]e|copying|notice|changelog|contributing|code[_-]of[_-]conduct|security"
    r"|authors)([-_.][^/]*)?|(notes|setup|install))\.md$")
#: names of a second index of the folder
_INDEX = re.compile(r"(?i)^(index|memory[_-]index|_index|toc|scope|memory_archive)\.md$")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)

_WHAT = {
    "readme": "the folder's README", "license": "a licence", "licence": "a licence",
    "copying": "a licence", "notice": "a licence notice", "changelog": "the folder's changelog",
    "contributing": "a guide for contributors", "code_of_conduct": "a code of conduct",
    "code-of-conduct": "a code of conduct", "security": "a security policy",
    "authors": "a list of authors", "notes": "notes about the folder",
    "setup": "setup instructions for the folder", "install": "setup instructions for the folder",
}


@dataclass(frozen=True)
class FolderDocument:
    """What a folder document is (``kind``: ``document``, ``index`` or ``template``) and, in
    words, ``what``."""

    kind: str
    what: str


def memory_frontmatter(f: MemoryFile) -> bool:
    """Whether a file carries memory frontmatter: a closed block with a ``name``, ``description``
    or ``type``."""
    fm = f.frontmatter
    return fm.present and fm.closed and any(fm.get(k).strip() for k in ("name", "description", "type"))


TEMPLATE_MAX_BYTES = 2048  # a larger file is never read for being an unfilled template


def folder_document(path: str, f: MemoryFile,
                    unfilled: bool | Callable[[MemoryFile], bool] | None = None) -> FolderDocument | None:
    """What the file is when it describes the folder rather than holding a fact (see the module
    docstring), or None for a memory.  ``unfilled``: whether its body is an unfilled template
    (:func:`is_unfilled`), or how to tell from what the caller keeps (asked only when its name
    does not decide), else the body of a file of at most :data:`TEMPLATE_MAX_BYTES` is read."""
    name = path.rsplit("/", 1)[-1]
    if _INDEX.match(name) is not None:
        stem = name[:-3].lower()
        if stem == "memory_archive":
            return FolderDocument("index", "a second archive index (memtui and Claude Code read "
                                           "MEMORY-archive.md)")
        if stem == "scope":
            return FolderDocument("index", "the description of a scope folder")
        return FolderDocument("index", "a second index of the folder (the agent loads MEMORY.md only)")
    match = _DOCUMENT.match(name)
    if match is not None and not memory_frontmatter(f):
        stem = (match.group(1) or match.group(3)).lower()
        return FolderDocument("document", _WHAT.get(stem, "a document about the folder"))
    if unfilled is None:
        unfilled = f.size <= TEMPLATE_MAX_BYTES and is_unfilled(f.body)
    elif callable(unfilled):
        unfilled = f.size <= TEMPLATE_MAX_BYTES and unfilled(f)
    if unfilled:
        return FolderDocument("template", "an unfilled template (nothing but comments and headings)")
    return None


def is_unfilled(body: str) -> bool:
    """Whether a body holds an HTML comment and nothing else but headings and rules."""
    if "<!--" not in body:
        return False
    rest = _COMMENT.sub("", body)
    for line in rest.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and stripped.strip("-*_=") != "":
            return False
    return True


def is_folder_document(path: str, f: MemoryFile) -> bool:
    """Whether :func:`folder_document` finds the file a folder document."""
    return folder_document(path, f) is not None
