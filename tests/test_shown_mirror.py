"""The screen's mirror for the TV lives in RAM, not in the record (issue 38, item 4).

The daemon writes what it shows into a file in the runtime folder (``[storage]
runtime``); the TV's summary finds it from the record's path; without it (the
box stopped, a reboot) the pages show the record alone.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from shutbox_hw.config.config_file import ConfigError, load_config
from shutbox_hw.network.live import live
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import parse_script
from shutbox_hw.store.read import shown as mirror
from shutbox_hw.web.content.reader import Reader

MCP_BUILD = Path(__file__).parent.parent / "hardware" / "mcp23017-12" / "shutbox.toml"


@pytest.fixture
def run_folder(tmp_path: Path):
    folder = tmp_path / "run"
    folder.mkdir()
    mirror.use_folder(folder)
    yield folder
    mirror.use_folder(None)


def play(runner: SimRunner, text: str) -> None:
    for step in parse_script(text, 12):
        runner.run(step)


def test_a_flap_shut_but_not_taken_reaches_the_tv_from_ram_and_not_the_card(
        tmp_path: Path, run_folder: Path) -> None:
    db = tmp_path / "box.db"
    runner = SimRunner(load_config(MCP_BUILD), db)
    play(runner, "start 1\ndice 3 4\nroll\nclose 3\n")   # 3 alone: pending, not taken
    [written] = list(run_folder.iterdir())
    assert written == mirror.mirror_path(db) and written.name.startswith("shown-")
    reader = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    summary = live(reader, 0.0)
    assert summary["playing"] and summary["dice"] == [3, 4]
    assert summary["flaps"][2] == "pending" and summary["flaps"][3] == "open"
    # the record holds no picture: its rows are the game's alone
    assert reader.execute("SELECT COUNT(*) FROM shown").fetchone()[0] == 0
    # the box stops (or the Pi reboots: /run is empty): the record alone
    mirror.withdraw(db)
    assert not written.exists()
    alone = live(reader, 0.0)
    assert alone["playing"] and alone["player"] == summary["player"]
    assert alone["game"] == summary["game"]
    assert "pending" not in alone["flaps"]      # nothing drawn: the record's flaps
    reader.close()
    runner.daemon.store.close()


def test_the_mirror_is_written_without_a_commit_or_a_sync(tmp_path: Path,
                                                          run_folder: Path) -> None:
    from shutbox_hw.store.write.sqlite import Store
    store = Store(tmp_path / "box.db")
    try:
        changes, size = store.db.total_changes, Path(f"{tmp_path / 'box.db'}-wal").stat().st_size
        assert mirror.publish(store, {"phase": "idle"})
        assert store.db.total_changes == changes
        assert Path(f"{tmp_path / 'box.db'}-wal").stat().st_size == size
        assert mirror.read_shown(store.db) == {"phase": "idle", "game": None}
        # a folder that is not there (no runtime directory): skipped, never an error
        mirror.use_folder(tmp_path / "nowhere" / "run")
        assert not mirror.publish(store, {"phase": "idle"})
    finally:
        store.close()


def test_the_webs_feed_sees_a_new_picture_without_a_commit(tmp_path: Path,
                                                          run_folder: Path) -> None:
    from shutbox_hw.store.write.sqlite import Store
    db = tmp_path / "box.db"
    store = Store(db)
    reader = Reader(db)
    try:
        first = reader.version()
        assert mirror.publish(store, {"phase": "idle", "n": 1})
        second = reader.version()
        assert second != first
        assert mirror.publish(store, {"phase": "idle", "n": 2})
        assert reader.version() != second
        assert mirror.read_shown(reader.connection(), reader.schema)["n"] == 2
    finally:
        reader.close()
        store.close()


def test_two_records_in_one_folder_never_share_a_mirror(tmp_path: Path) -> None:
    one, two = tmp_path / "a" / "box.db", tmp_path / "b" / "box.db"
    assert mirror.mirror_path(one, tmp_path) != mirror.mirror_path(two, tmp_path)
    (tmp_path / "link").symlink_to(tmp_path / "a")
    assert mirror.mirror_path(tmp_path / "link" / "box.db", tmp_path) == \
        mirror.mirror_path(one, tmp_path)


def test_storage_runtime_is_read_from_the_config(tmp_path: Path) -> None:
    path = tmp_path / "shutbox.toml"
    path.write_text('[storage]\nruntime = "/run/elsewhere"\n')
    assert load_config(path).runtime == Path("/run/elsewhere")
    assert load_config(None).runtime is None
    path.write_text("[storage]\nruntime = 5\n")
    with pytest.raises(ConfigError, match=r"storage\] runtime"):
        load_config(path)


@pytest.mark.parametrize("mode", [0o600, 0o640])
def test_the_mirror_is_as_readable_as_the_record_and_no_more(tmp_path: Path, mode: int) -> None:
    """Away from systemd the mirror sits in /dev/shm (or the temporary directory), in a folder
    named after the record's owner: whoever may read the record (the web as
    another user in its group) may read the mirror, nobody else."""
    from shutbox_hw.store.write.sqlite import Store
    db = tmp_path / "box.db"
    store = Store(db)
    try:
        db.chmod(mode)
        assert mirror.publish(store, {"phase": "idle"})
        written = mirror.mirror_path(db)
        if not mirror.DEFAULT_FOLDER.is_dir() and "RUNTIME_DIRECTORY" not in os.environ:
            assert written.parent.name == f"shutbox-hw-run-{db.stat().st_uid}"
            assert written.parent.stat().st_mode & 0o777 == 0o755
        assert written.stat().st_mode & 0o777 == mode
        assert written.stat().st_gid == db.stat().st_gid
    finally:
        store.close()
        mirror.withdraw(db)


def test_away_from_systemd_the_mirror_is_in_ram_where_linux_has_dev_shm(tmp_path: Path) -> None:
    """The mirror is replaced at every step; on a disk (ext4 writes a file replaced
    by a rename out at once) that is a flush per step and a write to the card. Away
    from systemd it goes to /dev/shm, read from the kernel's own mount table here."""
    from shutbox_hw.store.disk import mounts
    if mirror.DEFAULT_FOLDER.is_dir() or "RUNTIME_DIRECTORY" in os.environ:
        pytest.skip("a runtime directory is there: the mirror goes to it")
    if not Path("/dev/shm").is_dir():
        pytest.skip("no /dev/shm on this machine")
    folder = mirror.mirror_path(tmp_path / "box.db").parent
    table = mounts.parse(Path("/proc/self/mountinfo").read_text())
    mount = mounts.mount_of(os.path.realpath(folder.parent), table)
    assert mount is not None and mount.fstype == "tmpfs", (folder, mount)


def test_the_mirror_calls_no_chown_where_the_group_is_already_the_records(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The box's unit filters chown out (SystemCallFilter=~@privileged): on the box, where
    the record's group is the service's own, a chown per step killed the referee at its
    first step (SIGSYS, found by the kernel rehearsal). Only a record in another group
    may ask for one."""
    from shutbox_hw.store.write.sqlite import Store
    calls: list[tuple[object, ...]] = []
    monkeypatch.setattr(os, "chown", lambda *a: calls.append(a))
    db = tmp_path / "box.db"
    store = Store(db)
    try:
        assert db.stat().st_gid == os.getegid()
        assert mirror.publish(store, {"phase": "idle"})
        assert calls == []
    finally:
        store.close()
        mirror.withdraw(db)
