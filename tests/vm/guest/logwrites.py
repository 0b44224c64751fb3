"""A dm-log-writes log read back, and the disks a power cut could have left.

The kernel's ``dm-log-writes`` target (drivers/md/dm-log-writes.c, described in
Documentation/admin-guide/device-mapper/log-writes.rst) copies every write to
a log device. Its format: sector 0 holds the super (magic, version, number of
entries, sector size; little-endian u64, u64, u64, u32); from the next sector
on, each entry is one sector of header (sector, nr_sectors, flags, data_len:
four little-endian u64) followed by ``nr_sectors`` sectors of the data written.
A mark carries its text in its header sector after the four fields and has no
data sectors; a discard has no data sectors either. Sectors are the data
device's logical block size, which the super gives.

A write is logged only once a FLUSH has made it durable: the plain writes
logged just before a FLUSH entry are those that had completed (into the disk's
volatile cache) when the flush was issued. A FUA write is logged when it
completes, a mark when it is sent. So the log up to a FLUSH or FUA entry is
the disk right after that flush; a power cut before the next flush completed
leaves the disk as it was after the previous one plus *any subset* of the
plain writes logged before the next flush (a disk may reorder them). Those are
the points :func:`replay_points` lists.

Only the standard library: the rehearsal runs this inside the VM.
"""

from __future__ import annotations

import os
import random
import shutil
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

FLUSH, FUA, DISCARD, MARK, METADATA = 1, 2, 4, 8, 16
MAGIC = 0x6A736677736872
VERSION = 1
SUPER = struct.Struct("<QQQI")
HEADER = struct.Struct("<QQQQ")


class LogError(ValueError):
    """The file is not a dm-log-writes log, or it ends early."""


@dataclass(frozen=True)
class Entry:
    index: int
    sector: int           # where it was written, in the log's sectors
    nr_sectors: int
    flags: int
    data_at: int          # byte offset of its data in the log (-1: none)
    mark: str | None = None

    @property
    def durable(self) -> bool:
        """A FLUSH or FUA: everything logged up to here is on the media."""
        return bool(self.flags & (FLUSH | FUA))

    @property
    def writes(self) -> bool:
        """Whether replaying it changes the device (data or a discard)."""
        return self.nr_sectors > 0 and not self.flags & MARK


@dataclass(frozen=True)
class Log:
    sector_size: int
    entries: tuple[Entry, ...]

    def marks(self) -> list[Entry]:
        return [e for e in self.entries if e.flags & MARK]


def read_log(f: BinaryIO) -> Log:
    """Parse a log device (or a copy of it); the data stays in the file."""
    head = f.read(SUPER.size)
    if len(head) < SUPER.size:
        raise LogError("too short for a dm-log-writes super block")
    magic, version, count, sector_size = SUPER.unpack(head)
    if magic != MAGIC:
        raise LogError(f"no dm-log-writes magic (found {magic:#x})")
    if version != VERSION:
        raise LogError(f"dm-log-writes version {version}, this reads {VERSION}")
    if sector_size < 512 or sector_size & (sector_size - 1):
        raise LogError(f"sector size {sector_size} is not a power of two of at least 512")
    entries = []
    at = sector_size
    for index in range(count):
        f.seek(at)
        block = f.read(sector_size)
        if len(block) < sector_size:
            raise LogError(f"entry {index} of {count}: the log ends at byte {at}")
        sector, nr_sectors, flags, data_len = HEADER.unpack_from(block)
        at += sector_size
        mark = None
        data_at = -1
        if flags & MARK:
            text = block[HEADER.size:HEADER.size + data_len]
            mark = text.split(b"\0", 1)[0].decode("utf-8", "replace")
        elif not flags & DISCARD and nr_sectors:
            data_at = at
            at += nr_sectors * sector_size
        entries.append(Entry(index, sector, nr_sectors, flags, data_at, mark))
    f.seek(0, 2)
    if f.tell() < at:
        raise LogError(f"the last entry's data runs past the log's end ({f.tell()} < {at} bytes)")
    return Log(sector_size, tuple(entries))


@dataclass(frozen=True)
class Point:
    """A disk a power cut could leave: entries [0, upto) in full, then ``torn``
    (later plain writes that happened to reach the media); every mark before
    entry ``seen`` was sent before the cut."""
    kind: str             # "flush", "fua", "mark" or "torn"
    upto: int
    seen: int
    torn: tuple[int, ...] = ()

    @property
    def name(self) -> str:
        extra = f"+{len(self.torn)}" if self.torn else ""
        return f"{self.kind}@{self.upto}{extra}"


def replay_points(log: Log, torn_per_gap: float, rng: random.Random,
                  start: int = 0) -> list[Point]:
    """Every FLUSH/FUA and every mark from entry ``start`` on, and for each gap
    between two durable entries with at least two plain writes in it, about
    ``torn_per_gap`` random proper, non-empty subsets of those writes laid over
    the earlier durable state (the cut came before the later flush completed,
    so every mark before that flush counts as seen). A fraction is a chance:
    1.5 is one subset per gap and a second one in half of them."""
    points: list[Point] = []
    last_durable = start
    for e in log.entries[start:]:
        if e.flags & MARK:
            points.append(Point("mark", e.index + 1, e.index + 1))
            continue
        if not e.durable:
            continue
        gap = [w.index for w in log.entries[last_durable:e.index]
               if w.writes and not w.durable]
        seen_tries: set[tuple[int, ...]] = set()
        if len(gap) >= 2:
            tries = int(torn_per_gap) + (rng.random() < torn_per_gap % 1)
            for _ in range(tries):
                size = rng.randint(1, len(gap) - 1)
                torn = tuple(sorted(rng.sample(gap, size)))
                if torn not in seen_tries:
                    seen_tries.add(torn)
                    points.append(Point("torn", last_durable, e.index, torn))
        kind = "flush" if e.flags & FLUSH else "fua"
        points.append(Point(kind, e.index + 1, e.index + 1))
        last_durable = e.index + 1
    points.sort(key=lambda p: p.upto)   # stable: the replayer only moves forward
    return points


def _apply(log: Log, f: BinaryIO, entry: Entry, disk: BinaryIO) -> None:
    size = entry.nr_sectors * log.sector_size
    disk.seek(entry.sector * log.sector_size)
    if entry.flags & DISCARD:
        disk.write(bytes(size))       # a discarded range reads back as zeros here
        return
    f.seek(entry.data_at)
    data = f.read(size)
    if len(data) != size:
        raise LogError(f"entry {entry.index}: its data ends early")
    disk.write(data)


class Replayer:
    """Disk images at replay points, in log order: ``base`` is the device as it
    was when logging began; one working copy moves forward through the log
    and each point is a copy of it with the point's torn writes on top."""

    def __init__(self, log: Log, log_path: Path, base: Path, work: Path) -> None:
        self.log = log
        self.f = open(log_path, "rb")
        self.work = work
        shutil.copyfile(base, work)
        self.disk = open(work, "r+b")
        self.applied = 0

    def close(self) -> None:
        self.f.close()
        self.disk.close()

    def advance(self, upto: int) -> None:
        if upto < self.applied:
            raise ValueError(f"points must come in log order ({upto} < {self.applied})")
        for entry in self.log.entries[self.applied:upto]:
            if entry.writes:
                _apply(self.log, self.f, entry, self.disk)
        self.applied = upto

    def writes_between(self, start: int, end: int) -> bool:
        """Whether any entry in [start, end) changes the device."""
        return any(e.writes for e in self.log.entries[start:end])

    def image(self, point: Point, out: Path) -> None:
        """Write the disk of ``point`` over ``out`` (a file kept in place, so a
        loop device on it stays valid)."""
        self.advance(point.upto)
        self.disk.flush()
        if not out.exists() or out.stat().st_size != self.work.stat().st_size:
            shutil.copyfile(self.work, out)
        else:
            with open(self.work, "rb") as src, open(out, "r+b") as dst:
                size, done = self.work.stat().st_size, 0
                while done < size:
                    done += os.copy_file_range(src.fileno(), dst.fileno(), size - done, done, done)
        if point.torn:
            with open(out, "r+b") as disk:
                for index in point.torn:
                    _apply(self.log, self.f, self.log.entries[index], disk)

    def marks_seen(self, point: Point) -> list[str]:
        return [e.mark for e in self.log.entries[:point.seen] if e.mark is not None]
