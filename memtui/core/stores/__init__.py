"""memtui's own files, each written through :mod:`memtui.core.write`: the stat cache and a root's
kept answer in the user's cache folder, the inbox's seen store, the transcripts' cache, and the
side files under a root (``.memtui/rejected.json``, the pressure log); and the search index (an
SQLite database in the cache folder, written by SQLite, made and reset through the writer) with
the search that asks it.

Above the writer: every file memtui writes goes through it (one safe-file layer, one place the
file-system calls are made), so what keeps a cache sits over it, and what is checked below it
(:mod:`memtui.core.rules`) is handed its cached findings by the files it is given.  The face loads
nothing; import the modules.
"""

__all__ = ["kept", "pressure", "rejections", "search", "search_index", "seen", "seen_store",
           "statcache", "transcripts"]
