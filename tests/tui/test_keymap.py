"""A key rebound in the user's config (``"keymap"`` in ``config.json``) runs its command; the
default key no longer does; a keymap naming no command is refused before the app opens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.cli.common import UsageError
from memtui.cli.open_app import user_keymap
from memtui.commands import COMMANDS, help_groups
from memtui.screens.main import MainScreen
from tests.support.app import make_app, press, settle

RECENT_FILE = "project_gc_concurrent_mark.md"


def write_config(home: Path, config: object, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = home / "memtui"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))


async def test_a_key_rebound_in_the_config_runs_its_command(
        demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_config(tmp_path / "config", {"keymap": {"pin_entry": "ctrl+t"}}, monkeypatch)
    app = make_app(demo_root, keymap=user_keymap())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        app.main.view().select_path(RECENT_FILE)
        await settle(pilot)
        assert app.workspace is not None
        await press(pilot, "p")
        assert not app.workspace.file(RECENT_FILE).pinned  # p no longer pins
        await press(pilot, "ctrl+t")
        assert app.workspace.file(RECENT_FILE).pinned
        assert "pinned: true" in (demo_root / RECENT_FILE).read_text(encoding="utf-8")


async def test_help_shows_the_rebound_key(
        demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_config(tmp_path / "config", {"keymap": {"pin_entry": "ctrl+t"}}, monkeypatch)
    app = make_app(demo_root, keymap=user_keymap())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        rows = [row for _, group in help_groups(app.keymap) for row in group]
        assert ("^t", "Pin / unpin") in [(keys, label) for keys, label, _ in rows]


def test_a_keymap_naming_no_command_is_a_usage_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_config(tmp_path / "config", {"keymap": {"pin": "ctrl+t"}}, monkeypatch)
    with pytest.raises(UsageError, match="names no command pin"):
        user_keymap()


def test_a_misspelt_command_id_gets_the_nearest_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_config(tmp_path / "config", {"keymap": {"pin_entyr": "ctrl+t"}}, monkeypatch)
    with pytest.raises(UsageError, match="names no command pin_entyr — did you mean 'pin_entry'"):
        user_keymap()


def test_a_keymap_giving_one_key_to_two_commands_is_a_usage_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`a` archives by default: pin on `a` too would leave which one a press runs to the
    registry's order, and the app would start without a word."""
    archive = next(c for c in COMMANDS if c.keys == "a")
    write_config(tmp_path / "config", {"keymap": {"pin_entry": "a"}}, monkeypatch)
    with pytest.raises(UsageError) as caught:
        user_keymap()
    said = str(caught.value)
    assert "gives one key to two commands: 'a' runs" in said
    assert archive.name in said and "pin_entry" in said
    write_config(tmp_path / "again", {"keymap": {"pin_entry": "a", archive.name: "ctrl+a"}}, monkeypatch)
    assert user_keymap() == {"pin_entry": "a", archive.name: "ctrl+a"}  # moved out of the way: fine


@pytest.mark.parametrize("config", [{"keymap": ["p"]}, {"keymap": {"pin_entry": 3}}])
def test_a_keymap_of_the_wrong_shape_is_a_usage_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: object) -> None:
    write_config(tmp_path / "config", config, monkeypatch)
    with pytest.raises(UsageError, match="keymap"):
        user_keymap()


def test_no_config_is_no_keymap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "nowhere"))
    assert user_keymap() == {}


def test_every_command_binding_has_its_name_as_id_and_its_help_as_tooltip() -> None:
    bindings = {b.id: b for b in MainScreen.BINDINGS if not isinstance(b, tuple)}
    for command in COMMANDS:
        binding = bindings[command.name]
        assert binding.tooltip == command.help and binding.key == command.keys
