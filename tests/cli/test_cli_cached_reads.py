"""``list`` reads roots through the stat cache and ``loaded`` reads only indexes: the same output
without the cache, cold and warm, and a warm ``list`` reads no root it does not need the files of."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core.stores import statcache
from tests.support.layers import FACT, SHARED_INDEX
from tests.support.roots import topic


def test_list_and_loaded_answer_alike_without_the_cache_cold_and_warm(
        layers: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    local, shared, _ = layers
    (local / "deploy_rule.md").write_text(topic("Staging deploy rule", "release branch only", body=FACT))
    (local / "MEMORY.md").write_text((local / "MEMORY.md").read_text()
                                     + "- [Deploy rule](deploy_rule.md) — release branch only\n")
    (shared / "staging.md").write_text(topic("Staging deploys", "from release", body=FACT))
    (shared / "MEMORY.md").write_text(SHARED_INDEX + "- [Staging](staging.md) — from release\n")
    solo = tmp_path / "solo"  # a root of no project: nothing needs its files
    solo.mkdir()
    (solo / "MEMORY.md").write_text("# Solo\n- [A](a.md) — a\n- [Gone](gone.md) — x\n")
    (solo / "a.md").write_text(topic("A", "a"))
    monkeypatch.setattr(statcache, "RACY_NS", -10**12)  # every file old enough to keep
    loads: list[str] = []
    load = statcache.StatCache.load

    def counted(self: statcache.StatCache, listing, config=statcache.BudgetConfig(), **kw):  # type: ignore[no-untyped-def]
        loads.append(Path(listing.root).name)
        return load(self, listing, config, **kw)

    monkeypatch.setattr(statcache.StatCache, "load", counted)
    commands = (["list", str(tmp_path), "--json"], ["list", str(tmp_path)],
                ["loaded", str(shared), "--json"], ["loaded", str(local)], ["loaded", str(solo)])
    runs = []
    for no_cache in ("1", "", ""):  # without the cache, then cold, then warm
        monkeypatch.setenv("MEMTUI_NO_CACHE", no_cache)
        loads.clear()
        found = []
        for argv in commands:
            code = main(argv)
            found.append((code, *capsys.readouterr()))
        runs.append(found)
    assert runs[0] == runs[1] == runs[2]
    assert '"duplicates_across_layers": [\n      {' in runs[2][0][1]  # the shared fact is found
    assert "solo" not in loads  # warm: `list` has its kept answer, `loaded` reads only the index
