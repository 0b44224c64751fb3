"""The SD card's failures on a real kernel (issue 38, items 6 and 4): ``rehearse storage``,
and the end of ``rehearse full`` (the same checks, in its VM, after its own).

The gpio-9 box is installed under systemd as ``full`` installs it (full.py's own
functions) and played through gpio-sim with manual dice. Its record is on a real ext4
file system, a loop device over a file in the VM's RAM, mounted where ``[storage] db``
points (``/var/lib/shutbox-hw``) with Raspberry Pi OS's options (``noatime``) and
``errors=remount-ro``, so that ext4's own emergency read-only remount
(``/sys/fs/ext4/<dev>/trigger_fs_error``) is what an SD card's I/O error would bring.

- the block-level figure: bytes, write requests and flushes reaching the card's block
  device (``/proc/diskstats``) over a game's throws, once with the screen's mirror in RAM
  (the default, the unit's ``/run/shutbox-hw``) and once with ``[storage] runtime`` on
  the card itself; the target is judged against :data:`BEFORE_BYTES`, this rehearsal's
  "before" as it was measured before the WAL was kept at one size (store/disk/wal.py
  also cuts the mirror-on-the-card run's bytes, so that run is no "before" any more);
- the card made read-only mid-game: the fault shown (the journal's fault event, the red
  light and the screen's mirror for the TV, in RAM), play goes on, no traceback; ext4
  keeps an emergency read-only file system read-only until it is unmounted, so the card
  "comes back" as a fresh copy of its image, checked by e2fsck, mounted over the old
  one (in the unit's own mount namespace too: the box's files are reopened by path);
  the held throws are then written, in order, the record holds every throw played, and
  the red light and the TV's mirror say nothing any more;
- a restart of the service on a card made read-only: the fault from the first frame, the
  game resumed and played on, no traceback, no crash loop, nothing recorded lost (the
  card checked by e2fsck afterwards still holds every throw written before);
- a page of the record overwritten with garbage, then a start: the damaged file moved
  aside, the games recovered counted on the box;
- a tmpfs under the record: the box and ``check-config`` say it forgets; the VM's own
  root (an overlay whose changes are kept in RAM, as Raspberry Pi OS's overlay root):
  ``check-config`` says it (what the box under its unit says there is a NOTE line).

Each check catches its own failures (a FAIL line); a phase that breaks says so in a FAIL
line of its own and the next phase runs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import full  # noqa: E402
from devices import sh  # noqa: E402
from full import CLI, CONFIG, DB, GPIO9_FLAPS, READY_LIMIT_S, RED, ROLL, UNIT, Rehearsal  # noqa: E402

STATE = Path(DB).parent
WORK = Path("/tmp/storage")          # the cards' images: in the VM's RAM
CARD_MB = 32
MEASURED = (9, 8, 7, 6, 5)           # the throws measured at the block layer (one flap each)
WHILE_READ_ONLY = (4, 3)             # the throws played with the card read-only
AFTER_RESTART = 2                    # the throw played after the restart on the read-only card
RUNTIME_ON_CARD = STATE / "run"      # [storage] runtime for the "before" figure
RUNTIME = "/run/shutbox-hw"          # the unit's RuntimeDirectory=: the screen's mirror
# the card's bytes per throw with the mirror on the card and SQLite's own WAL settings:
# this rehearsal's figure at 4a42a01, the same to the byte in two runs (and on a host's
# loop-mounted ext4 with benchmarks/lifetime.py's block figure, 75,366)
BEFORE_BYTES = 72_909
VENV_PY = "/opt/shutbox-hw/.venv/bin/python"
EVENT_WAIT_S = 15


def diskstats(device: str) -> tuple[int, int, int]:
    """Sectors written, write requests completed and flush requests completed of a
    block device (/proc/diskstats: fields 7, 5 and 16 after the name; flushes since 5.5)."""
    name = Path(device).name
    for line in Path("/proc/diskstats").read_text().splitlines():
        f = line.split()
        if f[2] == name:
            return int(f[9]), int(f[7]), int(f[18]) if len(f) > 18 else -1
    raise RuntimeError(f"{name} is not in /proc/diskstats")


def mounted_here() -> int:
    """How many mounts are stacked on the record's folder."""
    out = sh("findmnt", "-n", "-o", "TARGET", "--mountpoint", str(STATE), check=False).stdout
    return len(out.split())


class Card:
    """An SD card: ext4 on a loop device over a file in RAM; ``source``: a fresh copy of
    another card's image (what it holds on the medium), repaired by e2fsck as a new card
    written from the old one's image would be."""

    def __init__(self, name: str, source: Card | None = None) -> None:
        WORK.mkdir(parents=True, exist_ok=True)
        self.image = WORK / f"{name}.img"
        self.fsck = ""
        if source is None:
            sh("truncate", "-s", f"{CARD_MB}M", str(self.image))
            # 4 KiB blocks like the Pi's root; no lazy init writing behind the figures
            sh("mkfs.ext4", "-q", "-F", "-b", "4096", "-E",
               "lazy_itable_init=0,lazy_journal_init=0", str(self.image), timeout=120)
        else:
            sh("cp", "--sparse=always", str(source.image), str(self.image), timeout=120)
            out = sh("e2fsck", "-f", "-y", str(self.image), timeout=120, check=False)
            if out.returncode >= 4:
                raise RuntimeError(f"e2fsck could not repair the copy: exit {out.returncode}")
            self.fsck = f"e2fsck exit {out.returncode}"
        self.loop = sh("losetup", "-f", "--show", str(self.image)).stdout.strip()

    def mount(self, *, owned: bool = True) -> None:
        """On the record's folder, over whatever is mounted there; ``owned=False`` for a
        card mounted before the box is installed (no user shutbox yet): the unit's
        ``StateDirectory=`` gives the folder to its user when it starts, as on a Pi whose
        builder mounts a partition there first."""
        STATE.mkdir(parents=True, exist_ok=True)
        sh("mount", "-t", "ext4", "-o", "noatime,errors=remount-ro", self.loop, str(STATE),
           timeout=60)
        if owned:
            sh("chown", "shutbox:shutbox", str(STATE))
            sh("chmod", "0755", str(STATE))

    def unmount(self) -> None:
        """Off the record's folder (the box stopped) and detached; its image deleted."""
        sh("umount", self.loop, timeout=60, check=False)
        if sh("findmnt", "-n", "-S", self.loop, check=False).stdout.strip():
            sh("umount", "-l", self.loop, timeout=60, check=False)
        self.detach()
        self.image.unlink(missing_ok=True)

    def fail(self) -> None:
        """ext4's emergency read-only remount, as after an I/O error of the card."""
        Path(f"/sys/fs/ext4/{Path(self.loop).name}/trigger_fs_error").write_text(
            "shutbox-hw rehearsal: the SD card failed\n")

    def stats(self) -> tuple[int, int, int]:
        return diskstats(self.loop)

    def detach(self) -> None:
        sh("losetup", "-d", self.loop, check=False)


class StorageCheck:
    def __init__(self, r: Rehearsal) -> None:
        self.r = r
        self.cards: list[Card] = []
        self.card: Card | None = None          # the card the box is on now
        self.shown: list[list[int]] = []       # the closures the box showed, in order

    # -- helpers -----------------------------------------------------------------------

    def check(self, name: str, fn: Callable[[], Any]) -> bool:
        return self.r.check(name, fn)

    def phase(self, name: str, fn: Callable[[], None]) -> None:
        """A phase of checks; one that breaks is a FAIL line, never the end of the run."""
        try:
            fn()
        except Exception as exc:  # noqa: BLE001 - reported, and the next phase runs
            self.r.report.check(f"storage-{name}-ran", False, f"{type(exc).__name__}: {exc}"[:300])

    def new_card(self, name: str, source: Card | None = None) -> Card:
        card = Card(name, source)
        self.cards.append(card)
        return card

    def stop(self) -> None:
        sh("systemctl", "stop", UNIT, timeout=90, check=False)

    def unmount_all(self) -> None:
        for _ in range(4):
            if not mounted_here():
                return
            sh("umount", "-l", str(STATE), timeout=60, check=False)

    def all_open(self) -> None:
        for line in GPIO9_FLAPS.values():
            self.r.sim.pull(line, "up")
        self.r.pulled_down.clear()

    def start(self) -> int:
        """The unit started; the journal's mark before it."""
        mark = self.r.journal.mark()
        rc, took = self.r.start_timed()
        if rc != 0:
            raise RuntimeError(f"the unit did not start: exit {rc}{self.r.last_error(mark)}")
        return mark

    def new_game(self) -> None:
        """ROLL starts a game, ROLL marks its first throw (manual dice)."""
        time.sleep(1)
        # (the journal read directly: full's latency figures stay those of its own checks)
        mark = self.r.journal.mark()
        self.r.press(ROLL)
        if self.r.journal.wait_event(mark, "game_started", EVENT_WAIT_S) is None:
            raise RuntimeError("ROLL started no game" + self.r.last_error(mark))
        mark = self.r.journal.mark()
        self.r.press(ROLL)
        if self.r.journal.wait_event(mark, "rolled", EVENT_WAIT_S) is None:
            raise RuntimeError("ROLL marked no throw" + self.r.last_error(mark))

    def throw(self, tile: int) -> list[int] | None:
        """Shut one flap, ROLL: the closure the box shows (None: nothing shown)."""
        self.r.pull(GPIO9_FLAPS[tile], "down")
        time.sleep(0.5)
        mark = self.r.journal.mark()
        self.r.press(ROLL)
        ev = self.r.event_of(self.r.journal.wait_event(mark, "throw_committed", EVENT_WAIT_S))
        self.r.journal.wait_event(mark, "rolled", 5)
        closed = ev.get("closed") if ev else None
        if closed is not None:
            self.shown.append(closed)
        return closed

    def storage_fault(self, mark: int, words: str, timeout: float = EVENT_WAIT_S
                      ) -> dict[str, Any] | None:
        entry = self.r.journal.wait(mark, lambda e: e.event is not None
                                    and e.event.get("event") == "fault"
                                    and words in str(e.event.get("detail")), timeout)
        return entry.event if entry else None

    def tracebacks(self, mark: int) -> list[str]:
        return [e.message[:120] for e in self.r.journal.since(mark) if "Traceback" in e.message]

    def red(self, want: int, timeout: float = 5) -> bool:
        """Whether the red LED's line (the box's fault light) reads ``want`` in time."""
        return self.r.wait_until(lambda: self.r.sim.value(RED) == want, timeout, 0.05)

    def mirror_problem(self) -> str | None:
        """The ``problem`` of the screen's mirror for the TV (the unit's runtime folder,
        /run/shutbox-hw: what the web's /live.json and the TV show under the flaps)."""
        for path in sorted(Path(RUNTIME).glob("shown-*.json")):
            try:
                data = json.loads(path.read_text()).get("data") or {}
            except (OSError, ValueError):
                continue
            return data.get("problem")
        return None

    def mirror_says(self, words: str | None, timeout: float = 5) -> bool:
        """Whether the mirror's problem comes to contain ``words`` (None: says nothing)."""
        return self.r.wait_until(lambda: (self.mirror_problem() is None) if words is None
                                 else words in str(self.mirror_problem()), timeout, 0.1)

    def closures_on_card(self) -> list[list[int]]:
        """The throws' closures in the record, in order, read as the web reads it (a
        reader's connection, which also works on a card ext4 made read-only)."""
        code = ("import json, sys; from pathlib import Path\n"
                "from shutbox_hw.store.read.readonly import connect_readonly\n"
                "con, _ = connect_readonly(Path(sys.argv[1]), 2.0)\n"
                "rows = con.execute('SELECT closed FROM throws ORDER BY id').fetchall()\n"
                "print(json.dumps([json.loads(r[0]) for r in rows if r[0]]))\n")
        out = sh(VENV_PY, "-c", code, DB, timeout=120, check=False)
        if out.returncode != 0:
            raise RuntimeError("cannot read the record: "
                               + (out.stderr.strip().splitlines() or ["?"])[-1][:200])
        return json.loads(out.stdout)

    def set_runtime(self, folder: Path | None) -> None:
        """``[storage] runtime`` in the installed config (None: the default, /run)."""
        text = re.sub(r"(?m)^runtime = .*\n", "", CONFIG.read_text())
        if folder is not None:
            text, n = re.subn(r"(?m)^(db = .*)$", rf'\1\nruntime = "{folder}"', text, count=1)
            if not n:
                raise RuntimeError(f"no 'db =' line in {CONFIG}")
        CONFIG.write_text(text)

    # -- the box ---------------------------------------------------------------------

    def install(self) -> bool:
        """The gpio-9 build installed as ``full`` installs it, on a card of its own (on the
        VM's overlay root the box would say its record forgets from its first frame, a
        fault that could land after the ext4 checks' journal mark), then manual dice."""
        r = self.r
        self.unmount_all()
        self.new_card("installed").mount(owned=False)
        r.reference_config("gpio-9", display=False)
        mark = r.journal.mark()
        rc, text = r.install("--build", "gpio-9")
        r.note("install.sh: " + " | ".join(text.splitlines()[-2:]))
        ok = r.check("storage-box-installed", lambda: (
            rc == 0 and r.running(), f"exit {rc}, {r.prop('ActiveState')}" + r.last_error(mark)))
        if ok:
            r.set_config(dice='"manual"')
            self.stop()
        return ok

    # -- item 4: the block-level figure ----------------------------------------------

    def measure(self, label: str, runtime: Path | None) -> tuple[float, float, float]:
        """A game's throws on a fresh card: bytes, write requests and flushes reaching
        the card's block device per throw; the box left running on the card."""
        self.stop()
        self.unmount_all()
        self.all_open()
        self.shown = []
        card = self.card = self.new_card(label)
        card.mount()
        if runtime is not None:
            runtime.mkdir()
            sh("chown", "shutbox:shutbox", str(runtime))
        self.set_runtime(runtime)
        mark = self.start()
        self.new_game()
        sh("sync", "-f", str(STATE))
        before = card.stats()
        for tile in MEASURED:
            self.throw(tile)
        sh("sync", "-f", str(STATE))     # what is dirty yet is written later anyway
        after = card.stats()
        n = len(MEASURED)
        per = ((after[0] - before[0]) * 512 / n, (after[1] - before[1]) / n,
               (after[2] - before[2]) / n)
        where = "in RAM (/run/shutbox-hw)" if runtime is None else f"on the card ({runtime})"
        self.r.report.figure(
            f"card writes per throw, mirror {where}",
            f"{per[0]:,.0f} bytes, {per[1]:.1f} write requests, {per[2]:.1f} flushes "
            f"(/proc/diskstats of {card.loop}, ext4 noatime, {n} throws, shown {self.shown})")
        if self.shown != [[t] for t in MEASURED]:
            raise RuntimeError(f"the box showed {self.shown}, not the {n} throws played"
                               + self.r.last_error(mark))
        if runtime is not None:
            self.check("storage-mirror-on-the-card-when-configured", lambda: (
                any(runtime.glob("shown-*.json")), f"{sorted(p.name for p in runtime.iterdir())}"))
        return per

    def block_figure(self) -> None:
        self.before = self.measure("mirror-on-card", RUNTIME_ON_CARD)
        self.after = self.measure("card", None)
        b, a = self.before, self.after
        # issue 38's target, at most half of "before": a figure, not a check (before the
        # WAL was kept at one size, 0.52 to the byte in two runs; benchmarks/README.md)
        ratio = a[0] / BEFORE_BYTES
        self.r.report.figure(
            "card bytes per throw against before issue 38's writes were cut",
            f"{a[0]:,.0f} / {BEFORE_BYTES:,} = {ratio:.2f} (target at most 0.50: "
            f"{'met' if ratio <= 0.5 else 'missed'}); this build with the mirror on the "
            f"card {b[0]:,.0f} ({a[0] / max(b[0], 1):.2f}); write requests {a[1]:.1f} / "
            f"{b[1]:.1f}")
        self.check("storage-every-throw-flushed-to-the-card", lambda: (
            a[2] >= 1 and b[2] >= 1,
            f"{a[2]:.1f} and {b[2]:.1f} flush requests per throw reached the device"))

    # -- item 6: read-only mid-game, then back -----------------------------------------

    def read_only_mid_game(self) -> None:
        r, card = self.r, self.card
        if card is None or not r.running():
            raise RuntimeError("no box playing on a card (the figure's phase failed)")
        recorded = self.closures_on_card()
        dark = self.red(0, 1)
        mark = r.journal.mark()
        card.fail()
        played = [self.throw(t) for t in WHILE_READ_ONLY]
        fault = self.storage_fault(mark, "read-only")
        lit = self.red(1)
        tv = self.mirror_says("SD card read-only")
        held = self.closures_on_card()
        self.check("storage-read-only-mid-game-shown", lambda: (
            fault is not None and dark and lit,
            f"fault event {fault and fault.get('detail')!r}, the red light {dark=} before, "
            f"{lit=} after"))
        self.check("storage-read-only-mid-game-on-the-tv", lambda: (
            tv, f"the screen's mirror for the TV says {self.mirror_problem()!r}"))
        self.check("storage-read-only-mid-game-plays-on", lambda: (
            played == [[t] for t in WHILE_READ_ONLY] and r.running(),
            f"shown {played}, {r.prop('ActiveState')}"))
        self.check("storage-read-only-mid-game-nothing-recorded-lost", lambda: (
            held == recorded and recorded == self.shown[:len(recorded)],
            f"{len(recorded)} throws recorded before, {len(held)} on the read-only card"))
        self.check("storage-read-only-no-traceback", lambda: (
            not self.tracebacks(mark), "; ".join(self.tracebacks(mark)[:2]) or "none"))

        # the card comes back: ext4 keeps an emergency read-only file system read-only
        # until it is unmounted (remount,rw is accepted and changes nothing); if this
        # kernel lets it come back, fine, else a copy of the card's image, e2fsck'd
        sh("mount", "--options-source", "disable", "-o", "remount,rw", str(STATE),
           timeout=60, check=False)
        probe = STATE / ".rehearsal-probe"
        try:
            probe.write_text("x")
            probe.unlink()
            how = "remount,rw"
        except OSError as error:
            again = self.new_card("card-again", card)
            # mounted over the old one; the mount reaches the unit's own mount namespace
            # (PrivateMounts=: a slave of this one), where the box reopens its record by path
            again.mount()
            self.card = again
            how = (f"remount,rw refused ({error.strerror}): the card's image copied, "
                   f"{again.fsck}, mounted over it")
        back = r.journal.wait(mark, lambda e: e.event is not None
                              and e.event.get("event") == "recovered"
                              and e.event.get("device") == "storage", 20)
        off = self.red(0)
        tv_off = self.mirror_says(None)
        on_card = self.closures_on_card()
        self.check("storage-card-back-held-throws-written", lambda: (
            back is not None and on_card == self.shown,
            f"{how}; recovered {back is not None}; the record {on_card}, the box showed "
            f"{self.shown}"))
        self.check("storage-card-back-fault-cleared", lambda: (
            off and tv_off, f"the red light off {off}; the TV's mirror says "
            f"{self.mirror_problem()!r}"))

    # -- item 6: a restart on the read-only card --------------------------------------

    def restart_read_only(self) -> None:
        r, card = self.r, self.card
        if card is None or not r.running():
            raise RuntimeError("no box playing on a card (an earlier phase failed)")
        recorded = self.closures_on_card()
        card.fail()
        restarts = int(r.prop("NRestarts") or 0)
        mark = r.journal.mark()
        rc = sh("systemctl", "restart", UNIT, timeout=READY_LIMIT_S * 2, check=False).returncode
        fault = self.storage_fault(mark, "read-only")
        resumed = r.journal.wait_event(mark, "resumed", EVENT_WAIT_S)
        time.sleep(1)
        r.reapply_pulls()
        lit = self.red(1)
        tv = self.mirror_says("SD card read-only")
        self.check("storage-restart-on-read-only-card-shown", lambda: (
            rc == 0 and fault is not None and lit and tv,
            f"restart exit {rc}, fault event {fault and fault.get('detail')!r}, "
            f"the red light {lit}, the TV's mirror {self.mirror_problem()!r}"))
        pid = r.prop("MainPID")
        closed = self.throw(AFTER_RESTART)
        time.sleep(15)   # a crash loop would restart it within RestartSec=5
        self.check("storage-restart-on-read-only-card-plays-on-no-crash-loop", lambda: (
            resumed is not None and closed == [AFTER_RESTART] and r.running()
            and r.prop("MainPID") == pid and int(r.prop("NRestarts") or 0) == restarts,
            f"resumed {resumed is not None}, next throw shown {closed}, "
            f"{r.prop('ActiveState')}/{r.prop('SubState')}, restarts {restarts} -> "
            f"{r.prop('NRestarts')}, main PID {pid} -> {r.prop('MainPID')}"))
        self.check("storage-restart-on-read-only-card-no-traceback", lambda: (
            not self.tracebacks(mark), "; ".join(self.tracebacks(mark)[:2]) or "none"))
        held = self.closures_on_card()
        # the next boot: the card checked, mounted again
        self.stop()
        self.unmount_all()
        fixed = self.new_card("card-after-boot", card)
        fixed.mount()
        self.card = fixed
        after = self.closures_on_card()
        self.check("storage-restart-on-read-only-card-nothing-recorded-lost", lambda: (
            held == recorded and after == recorded,
            f"{len(recorded)} throws recorded before, {len(held)} while read-only, "
            f"{len(after)} after the card was checked ({fixed.fsck})"))

    # -- item 6: a damaged page --------------------------------------------------------

    def damaged_page(self) -> None:
        r = self.r
        if self.card is None or not mounted_here():
            raise RuntimeError("no card under the record (an earlier phase failed)")
        self.stop()
        con = sqlite3.connect(DB)
        try:
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            games = int(con.execute("SELECT count(*) FROM games").fetchone()[0])
            page = int(con.execute("PRAGMA page_size").fetchone()[0])
            root = int(con.execute("SELECT rootpage FROM sqlite_master"
                                   " WHERE type = 'table' AND name = 'throws'").fetchone()[0])
        finally:
            con.close()
        shm = Path(f"{DB}-shm")
        if shm.exists():
            shm.unlink()   # nobody has the record open: no stale index of root's to read
        for f in STATE.glob("shutbox.db*"):
            sh("chown", "shutbox:shutbox", str(f))
        with open(DB, "r+b") as out:     # the throws' root page: garbage
            out.seek((root - 1) * page)
            out.write(bytes((i * 131 + 7) % 251 for i in range(page)))
            os.fsync(out.fileno())
        mark = r.journal.mark()
        rc, took = r.start_timed()
        fault = self.storage_fault(mark, "record damaged", 30)
        detail = str(fault.get("detail")) if fault else ""
        m = re.search(r"([\d,]+) of ([\d,]+) games recovered", detail)
        aside = sorted(p.name for p in STATE.glob("shutbox.db.damaged-*"))
        con = sqlite3.connect(f"file:{DB}?mode=ro", uri=True)
        try:
            now = int(con.execute("SELECT count(*) FROM games").fetchone()[0])
        finally:
            con.close()
        self.check("storage-damaged-page-salvaged-at-start", lambda: (
            rc == 0 and r.running() and m is not None
            and int(m.group(1).replace(",", "")) == now and now >= 1
            and any(not n.endswith(".txt") for n in aside),
            f"page {root} of {page} bytes overwritten; start exit {rc} ({took:.1f} s), "
            f"the box: {detail!r}, {now} games in the new record ({games} before), "
            f"moved aside: {aside}"))
        self.check("storage-damaged-page-no-traceback", lambda: (
            not self.tracebacks(mark), "; ".join(self.tracebacks(mark)[:2]) or "none"))

    # -- item 6 (item 3): a file system that forgets ------------------------------------

    def forgetful(self) -> None:
        self.stop()
        self.unmount_all()
        self.set_runtime(None)
        # the VM's own root: an overlay whose changes are kept in RAM (Raspberry Pi OS's
        # overlay root keeps them in a tmpfs the same way)
        fs = sh("findmnt", "-n", "-T", str(STATE), "-o", "FSTYPE,SOURCE").stdout.strip()
        said = self.check_config()
        self.check("storage-overlay-root-check-config-says-it-forgets", lambda: (
            "lost at every power-off" in said and "overlay" in said,
            f"{STATE} on {fs}: " + " ".join(said.split())[-200:]))
        # the box under its unit there: its upper folder is out of sight (the initramfs
        # keeps it) and the unit sees its StateDirectory= as a bind mount of the overlay,
        # which store/disk/mounts.py knows for the overlay itself
        shown = self.forgets_fault()
        lit = self.red(1)
        self.check("storage-overlay-root-box-says-it-forgets", lambda: (
            shown is not None and lit, f"{STATE} on {fs}: fault event {shown!r}, "
            f"the red light {lit}"))
        self.stop()
        # a tmpfs under the record
        sh("mount", "-t", "tmpfs", "-o", "size=8m,mode=0755", "rehearsal-ram", str(STATE))
        sh("chown", "shutbox:shutbox", str(STATE))
        said = self.check_config()
        self.check("storage-tmpfs-check-config-says-it-forgets", lambda: (
            "lost at every power-off" in said and "tmpfs" in said,
            " ".join(said.split())[-200:]))
        shown = self.forgets_fault()
        lit = self.red(1)
        self.check("storage-tmpfs-box-says-it-forgets", lambda: (
            shown is not None and lit, f"fault event {shown!r}, the red light {lit}"))
        self.stop()
        self.unmount_all()

    def check_config(self) -> str:
        out = sh(CLI, "check-config", str(CONFIG), timeout=120, check=False)
        return out.stdout + out.stderr

    def forgets_fault(self) -> str | None:
        """The unit started: its fault event saying the record forgets, if any."""
        mark = self.r.journal.mark()
        self.r.start_timed()
        shown = self.r.journal.wait(mark, lambda e: e.event is not None
                                    and e.event.get("event") == "fault"
                                    and "kept in RAM" in str(e.event.get("detail")), 12)
        return f"{shown.event.get('device')}: {shown.event.get('detail')}" if shown else None

    def quiet_on_the_card(self) -> None:
        """No false alarm: on the ext4 card the box never said its record forgets."""
        said = [e.event for e in self.r.journal.since(self.card_mark) if e.event is not None
                and e.event.get("event") == "fault" and "kept in RAM" in str(e.event.get("detail"))]
        self.check("storage-ext4-card-not-said-to-forget", lambda: (
            not said, f"{len(said)} 'kept in RAM' faults while on the ext4 card"))

    # -- the whole ------------------------------------------------------------------------

    def run(self) -> None:
        try:
            sh("modprobe", "loop", check=False)
            if not self.install():
                return
        except Exception as exc:  # noqa: BLE001 - a FAIL line, never the end of the run
            self.r.report.check("storage-box-installed", False,
                                f"{type(exc).__name__}: {exc}"[:300])
            return
        self.card_mark = self.r.journal.mark()
        try:
            self.phase("block-figure", self.block_figure)
            self.phase("read-only-mid-game", self.read_only_mid_game)
            self.phase("restart-read-only", self.restart_read_only)
            self.phase("damaged-page", self.damaged_page)
            self.phase("ext4-quiet", self.quiet_on_the_card)
            self.phase("forgets", self.forgetful)
        finally:
            self.stop()
            self.unmount_all()
            for card in self.cards:
                card.detach()
            shutil.rmtree(WORK, ignore_errors=True)
            try:
                self.set_runtime(None)
            except OSError:
                pass


class StorageRehearsal(Rehearsal):
    """Only what the storage checks need: a Raspberry Pi OS, the gpio-9 build installed."""

    def run(self) -> None:
        self.note("storage rehearsal: installing the gpio-9 build")
        self.pi_os()
        StorageCheck(self).run()


if __name__ == "__main__":
    sys.exit(full.main(StorageRehearsal()))
