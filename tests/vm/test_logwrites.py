"""The crash rehearsal's dm-log-writes reader and replayer, on logs built here.

The writer below follows the kernel's format (drivers/md/dm-log-writes.c):
the super in sector 0, then per entry one header sector and its data sectors.
"""

from __future__ import annotations

import io
import random
import struct
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "guest"))

from logwrites import DISCARD, FLUSH, FUA, MARK, LogError, Replayer, read_log, replay_points  # noqa: E402

SECTOR = 512


def build_log(entries: list[tuple[int, int, bytes | str]], sector: int = SECTOR) -> bytes:
    """(flags, sector, data) per entry: bytes are written data, a str a mark's text."""
    out = bytearray(sector)
    out[0:28] = struct.pack("<QQQI", 0x6A736677736872, 1, len(entries), sector)
    for flags, where, data in entries:
        head = bytearray(sector)
        if isinstance(data, str):
            text = data.encode()
            head[0:32] = struct.pack("<QQQQ", 0, 0, flags | MARK, len(text))
            head[32:32 + len(text)] = text
            out += head
            continue
        count = len(data) // sector
        head[0:32] = struct.pack("<QQQQ", where, count, flags, 0)
        out += head
        if not flags & DISCARD:
            out += data
    return bytes(out)


def block(byte: int, sectors: int = 1) -> bytes:
    return bytes([byte]) * (SECTOR * sectors)


# w1, w2 (plain), FLUSH, mark, w3 (FUA), w4, w5, discard, FLUSH
LOG = [(0, 0, block(1)), (0, 2, block(2, 2)), (FLUSH, 0, b""), (0, 0, "e1"),
       (FUA, 5, block(3)), (0, 1, block(4)), (0, 6, block(5)), (DISCARD, 2, block(0)),
       (FLUSH, 0, b"")]


def test_the_entries_are_read_as_the_kernel_wrote_them() -> None:
    log = read_log(io.BytesIO(build_log(LOG)))
    assert log.sector_size == SECTOR
    assert [(e.sector, e.nr_sectors, e.flags) for e in log.entries] == [
        (0, 1, 0), (2, 2, 0), (0, 0, FLUSH), (0, 0, MARK), (5, 1, FUA), (1, 1, 0),
        (6, 1, 0), (2, 1, DISCARD), (0, 0, FLUSH)]
    assert [e.mark for e in log.marks()] == ["e1"]
    # data offsets: after the super and each header, skipping earlier data
    assert log.entries[0].data_at == SECTOR * 2
    assert log.entries[1].data_at == SECTOR * 4
    assert log.entries[4].data_at == SECTOR * 9     # 2 + 3 data, 4 headers before it


def test_a_log_of_4096_byte_sectors() -> None:
    data = build_log([(0, 3, bytes(range(256)) * 16), (FLUSH, 0, b"")], sector=4096)
    log = read_log(io.BytesIO(data))
    assert log.sector_size == 4096 and log.entries[0].data_at == 8192


@pytest.mark.parametrize("damage, message", [
    (lambda b: b[:20], "too short"),
    (lambda b: b"\0" * 8 + b[8:], "no dm-log-writes magic"),
    (lambda b: b[:8] + struct.pack("<Q", 2) + b[16:], "version 2"),
    (lambda b: build_log(LOG[:2])[:-SECTOR], "past the log's end"),   # w2's data cut
    (lambda b: b[:SECTOR * 3], "ends at byte"),
])
def test_a_damaged_log_is_refused_with_its_reason(damage, message) -> None:
    with pytest.raises(LogError, match=message):
        read_log(io.BytesIO(damage(build_log(LOG))))


def test_points_at_every_flush_fua_and_mark_and_torn_subsets_between() -> None:
    log = read_log(io.BytesIO(build_log(LOG)))
    points = replay_points(log, torn_per_gap=20, rng=random.Random(3))
    whole = [(p.kind, p.upto, p.seen) for p in points if p.kind != "torn"]
    assert whole == [("flush", 3, 3), ("mark", 4, 4), ("fua", 5, 5), ("flush", 9, 9)]
    torn = [p for p in points if p.kind == "torn"]
    # gap 1: w1, w2 before the first FLUSH; gap 2: w4, w5 and the discard after the FUA
    gaps = {p.upto: set() for p in torn}
    for p in torn:
        gaps[p.upto].add(p.torn)
    assert gaps == {0: {(0,), (1,)}, 5: {(5,), (6,), (7,), (5, 6), (5, 7), (6, 7)}}
    # a torn point before the last FLUSH counts every mark before that FLUSH as seen
    assert {p.seen for p in torn if p.upto == 5} == {8}
    assert [p.upto for p in points] == sorted(p.upto for p in points)


def sectors(image: Path) -> list[int]:
    data = image.read_bytes()
    return [data[i * SECTOR] for i in range(len(data) // SECTOR)]


def test_the_images_hold_exactly_the_writes_of_their_point(tmp_path: Path) -> None:
    (tmp_path / "log").write_bytes(build_log(LOG))
    base = tmp_path / "base"
    base.write_bytes(block(9, 8))
    log = read_log(open(tmp_path / "log", "rb"))
    replayer = Replayer(log, tmp_path / "log", base, tmp_path / "work")
    by_name = {}
    for point in replay_points(log, torn_per_gap=20, rng=random.Random(3)):
        out = tmp_path / point.name
        replayer.image(point, out)
        by_name[point.name] = (sectors(out), replayer.marks_seen(point))
    replayer.close()
    assert by_name["flush@3"] == ([1, 9, 2, 2, 9, 9, 9, 9], [])
    assert by_name["mark@4"] == ([1, 9, 2, 2, 9, 9, 9, 9], ["e1"])
    assert by_name["fua@5"] == ([1, 9, 2, 2, 9, 3, 9, 9], ["e1"])
    assert by_name["flush@9"] == ([1, 4, 0, 2, 9, 3, 5, 9], ["e1"])
    # torn before the first flush: w2 alone reached the media
    assert by_name["torn@0+1"] in (([1, 9, 9, 9, 9, 9, 9, 9], []), ([9, 9, 2, 2, 9, 9, 9, 9], []))
    # the base image itself is never changed
    assert sectors(base) == [9] * 8


def test_points_must_come_in_log_order(tmp_path: Path) -> None:
    (tmp_path / "log").write_bytes(build_log(LOG))
    (tmp_path / "base").write_bytes(block(9, 8))
    log = read_log(open(tmp_path / "log", "rb"))
    replayer = Replayer(log, tmp_path / "log", tmp_path / "base", tmp_path / "work")
    replayer.advance(5)
    with pytest.raises(ValueError, match="log order"):
        replayer.advance(3)
    replayer.close()


def test_a_fraction_of_torn_subsets_is_a_chance_per_gap() -> None:
    # 40 gaps of 3 plain writes, each closed by a FLUSH
    entries = [e for n in range(40) for e in
               ((0, 3 * n, block(1)), (0, 3 * n + 1, block(2)), (0, 3 * n + 2, block(3)),
                (FLUSH, 0, b""))]
    log = read_log(io.BytesIO(build_log(entries)))
    none = replay_points(log, torn_per_gap=0, rng=random.Random(1))
    assert not [p for p in none if p.kind == "torn"] and len(none) == 40
    half = [p for p in replay_points(log, torn_per_gap=0.5, rng=random.Random(1))
            if p.kind == "torn"]
    assert 8 <= len(half) <= 32      # about 20 of 40: far from none and from all
    assert len({p.upto for p in half}) == len(half)   # at most one per gap
