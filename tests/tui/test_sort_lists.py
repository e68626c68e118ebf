"""Sort keys in the Files and Staleness views (> next column, I reverses), as in the root picker."""

from __future__ import annotations

from pathlib import Path

from memtui.widgets.sorting import Sorting, SortKey
from tests.support.app import make_app, press, settle


def test_sorting_orders_by_a_column_unknown_values_last_and_its_own_order_after_the_last() -> None:
    rows = [("b", 2), ("a", None), ("c", 1), ("d", 2)]
    sorting = Sorting([SortKey("name"),
                       SortKey("n", lambda row: row[1])])
    assert sorting.apply(rows) is rows and sorting.words() == "" and sorting.title("n") == "n"
    sorting.cycle()
    assert sorting.apply(rows) == [("c", 1), ("b", 2), ("d", 2), ("a", None)]  # ties keep their order
    assert sorting.title("n") == "n▲" and sorting.words() == " · sorted by n"
    sorting.reverse()
    assert sorting.apply(rows) == [("b", 2), ("d", 2), ("c", 1), ("a", None)]  # unknown last either way
    sorting.cycle()  # the view's own order again, reversed
    assert sorting.apply(rows) == rows[::-1] and sorting.words() == " · sorted by name (reversed)"


async def test_files_and_staleness_sort_by_column_and_reverse(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await press(pilot, "3")
        files = app.main.view("files")
        paths = files.shown_paths()
        assert paths == sorted(paths)
        await press(pilot, "greater_than_sign")  # by title
        rows = list(files.shown)  # type: ignore[attr-defined]
        assert [r.title.lower() for r in rows] == sorted(r.title.lower() for r in rows)
        assert "title▲" in str(app.screen.query_one("#files-columns").render())
        assert "sorted by title" in str(app.screen.query_one("#files-header").render())
        assert app.selected_path() == rows[0].path  # a new order: its top
        await press(pilot, "I")
        assert [r.title.lower() for r in files.shown] == sorted((r.title.lower() for r in rows), reverse=True)  # type: ignore[attr-defined]
        await press(pilot, "4")
        await settle(pilot)
        stale = app.main.view("staleness")
        before = stale.shown_paths()
        for _ in range(5):  # score, file, action, refs, type → age
            await press(pilot, "greater_than_sign")
        assert stale.sorting.column == "age"  # type: ignore[attr-defined]
        report = app.workspace.staleness  # type: ignore[union-attr]
        days = {r.path: r.age.days for r in report.results if r.age.known}
        live = [p for p in stale.shown_paths() if p in days and not p.startswith("archive/")]
        assert [days[p] for p in live] == sorted(days[p] for p in live)
        assert set(stale.shown_paths()) == set(before)  # the same rows, another order
        assert "age▲" in str(app.screen.query_one("#stale-columns").render())
        while stale.sorting.column != "score":  # type: ignore[attr-defined]
            await press(pilot, "greater_than_sign")
        await press(pilot, "I")  # its own order (highest score first) turned round: lowest first
        scores = [r.score for r in report.results]
        shown = {r.path: r.score for r in report.results}
        live = [p for p in stale.shown_paths() if not p.startswith("archive/")]
        assert [shown[p] for p in live] == sorted(shown[p] for p in live) and scores
        assert "score▲" in str(app.screen.query_one("#stale-columns").render())
