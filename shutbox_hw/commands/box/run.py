"""``shutbox-hw run``: the daemon on the real box (what systemd starts).

The loop is event-driven: it sleeps until the earliest deadline of the
daemon (debounce windows, hold timers, blinking, the settle timer, the
display's idle timers, the periodic re-reads) and of the systemd watchdog,
and the pins' callback threads, the display's sender and the signal handler
wake it early through one :class:`~shutbox_hw.hal.contracts.poll.Waker`. An idle box
therefore wakes only a few times a second.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...base.errors import TransientError, UserError

if TYPE_CHECKING:
    from ...base.sdnotify import Notifier
    from ...claims.server import ClaimServer
    from ...config.config_file import Config
    from ...daemon.daemon import Box, Daemon
    from ...hal.contracts.clock import Clock, MonotonicClock
    from ...hal.contracts.poll import Wake, Waker
    from ...store import Store

log = logging.getLogger("shutbox_hw")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ...hal.adapters.gpio import default_pin_factory
    from .boot_option import add_boot_config_option
    p = sub.add_parser("run", help="run the box (under systemd, or by hand on the Pi)")
    p.add_argument("--config", metavar="FILE", help="the box's config file")
    p.add_argument("--pin-factory", metavar="NAME",
                   default=default_pin_factory(),
                   help="gpiozero pin backend: lgpio (default, every Pi) or mock "
                        "(rpigpio: not for the box, see docs/build/install.md)")
    p.add_argument("--for-seconds", type=float, metavar="S", help=argparse.SUPPRESS)
    add_boot_config_option(p)
    p.set_defaults(run=run)


def open_i2c(number: int) -> Any:
    try:
        from smbus2 import SMBus
        return SMBus(number)
    except (FileNotFoundError, PermissionError, OSError) as error:
        # at boot the bus may come a moment after the unit (i2c-dev, udev): tried again
        raise TransientError(f"I2C bus {number} cannot be opened ({error}): enable I2C "
                             "(dtparam=i2c_arm=on) and add the user to the i2c group") from None


def build_real_box(config: Config, clock: MonotonicClock, pin_factory: str,
                   wake: Wake | None = None) -> Box:
    """The box's ports on real pins and buses; ``wake`` is what their threads call
    (the dice module's ready line can use it too: see hal/contracts/poll.py)."""
    from ...daemon.daemon import Box
    from ...hal.contracts.poll import no_wake
    wake = wake or no_wake
    from ...hal.adapters.box import build_module, build_ports
    from ...hal.adapters.dice_source import SoftwareDice
    from ...hal.adapters.display import make_display
    from ...hal.adapters.expander import ThreadReader
    from ...hal.adapters.gpio import make_pin_factory, pin_claim_problem
    factory = make_pin_factory(pin_factory)
    dice_cfg = config.hardware.dice if config.game.dice == "module" else None
    try:
        ports = build_ports(config.hardware, clock, pin_factory=factory, bus=open_i2c,
                            wake=wake, reader=lambda bus, address: ThreadReader(),
                            kernel_ticks=True)
        dice = (SoftwareDice() if dice_cfg is None else
                build_module(dice_cfg, clock, pin_factory=factory, bus=open_i2c, wake=wake,
                             timers=ports.timers))
    except Exception as exc:  # noqa: BLE001 - sorted out just below
        problem = pin_claim_problem(exc)
        if problem is None:
            raise
        raise UserError(problem) from None
    return Box(ports.flaps, ports.buttons, ports.indicators,
               make_display(config.hardware, wake=wake, timers=ports.timers), dice, ports.timers)


def run(args: argparse.Namespace) -> int:
    from ...config.config_file import default_db_path, load_config
    from ...hal.contracts.clock import MonotonicClock
    from ...hal.contracts.poll import Waker
    from ...store import Store
    from ...store.disk.lock import DatabaseInUse, DatabaseLock
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    config = load_config(args.config)
    # before any pin is claimed: a pin the kernel took at boot would fail as "busy"
    from ...config.boot_config import kernel_pin_problems
    from .boot_option import boot_config
    kernel = kernel_pin_problems(config.hardware, boot_config(args))
    if kernel:
        raise UserError("\n".join(kernel))
    clock = MonotonicClock()
    waker = Waker()
    # absolute first: importing lgpio changes into $LG_WD
    db_path = os.path.abspath(config.db or default_db_path())
    from ...store.read.shown import use_folder
    use_folder(config.runtime)   # the screen's mirror for the TV, in RAM
    # one database, one box: a second daemon (or a simulator) on it is refused
    # before it touches a pin; the kernel drops the lock when this process ends
    lock = DatabaseLock(Path(db_path))
    try:
        lock.acquire()
    except DatabaseInUse as error:   # a daemon on its way out still holds it: tried again
        raise TransientError(str(error)) from None
    try:
        box = build_real_box(config, clock, args.pin_factory, waker.wake)
        from ...store.disk.mounts import MOUNTINFO
        store = Store(db_path, mountinfo=MOUNTINFO)   # a record on RAM is said on the box
        from ...network.hookup import publishing
        with publishing(config, db_path, log.warning, drain_s=2.0,
                        wake_box=waker.wake) as outbox:
            store.outbox = outbox   # [network] mqtt: every event queued for the broker
            return _serve_box(args, config, box, store, clock, waker)
    finally:
        lock.release()


def _serve_box(args: argparse.Namespace, config: Config, box: Box, store: Store,
               clock: MonotonicClock, waker: Waker) -> int:
    """The daemon on ``box`` and ``store`` until SIGTERM (or ``--for-seconds``)."""
    from ...base.sdnotify import Notifier
    from ...daemon.daemon import Daemon
    stop = False

    def on_signal(signum: int, frame: Any) -> None:
        nonlocal stop
        stop = True
        waker.wake()    # never blocks, so safe in a handler

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    notifier = Notifier(timers=box.timers)
    from ...skill.rater import RatingWorker
    rater = RatingWorker(store.path, wake_box=waker.wake).start()
    if config.backup.place is not None:   # [backup]: the nightly copy, off the loop
        from ...store.disk.backup import BackupWorker
        store.backups = BackupWorker(store.path, Path(config.backup.place).expanduser(),
                                     config.backup.when, config.backup.keep, waker.wake)
        from ...network.hookup import Outbox
        if isinstance(store.outbox, Outbox):   # the newest copy's time in the MQTT state
            store.outbox.follow_backups(store.backups)
        store.backups.start()
    claims = _claims_server(config, clock, waker, store.path)
    # the box's adjustments over the config
    daemon = Daemon(config, box, store, clock, rater=rater, claims=claims)
    daemon.start()
    notifier.ready(f"{daemon.config.rules.preset}, {config.hardware.summary()}")
    log.info("shutbox-hw running: %s; database %s", config.hardware.summary(), store.path)
    end = None if args.for_seconds is None else clock.now_ms() + int(args.for_seconds * 1000)

    try:
        serve(daemon, notifier, clock, waker.wait_until, end, lambda: stop)
    finally:
        notifier.stopping()
        rater.stop()
        if store.backups is not None:
            store.backups.stop()
        if claims is not None:
            claims.close()
        box.close()
        store.close()
        from ...store.read.shown import withdraw
        withdraw(store.path)   # the TV shows the record alone while the box is away
    return 0


def _claims_server(config: Config, clock: MonotonicClock, waker: Waker,
                   db: str | Path | None = None) -> ClaimServer | None:
    """The phones' claims socket, listening (None: off, or it cannot be: said once,
    and the box plays as it does without it)."""
    from ...claims.server import ClaimServer, ClaimsUnavailable
    from ...config.config_file import default_db_path
    path = config.network.claims_path
    if path is None:
        return None
    from ...claims.league import Vetting
    from ...claims.league_join import LeagueJoins
    record = db or config.db or default_db_path()
    server = ClaimServer(path, waker.wake, clock.now_ms, config.network.web_url,
                         # league names and their secrets, against the record's roster
                         vet=Vetting(record),
                         # phones joining the league: through the outbox, with a broker
                         join=LeagueJoins(record, config.network.broker is not None))
    try:
        server.start()
    except ClaimsUnavailable as error:
        log.warning("seats from a phone are off: %s", error)
        return None
    log.info("seats from a phone: listening on %s", path)
    return server


def serve(daemon: Daemon, notifier: Notifier, clock: Clock,
          wait: Callable[[int | None], object], until_ms: int | None = None,
          done: Callable[[], bool] = lambda: False) -> None:
    """The daemon's loop: a step (and the watchdog's ping when due), then ``wait``
    until the earliest deadline in the box's scheduler, where the ports, the
    daemon and the watchdog (``notifier``, made with the same scheduler)
    register theirs (on the box :meth:`~shutbox_hw.hal.contracts.poll.Waker.wait_until`,
    which the pins' threads cut short)."""
    from ...hal.contracts.poll import run_loop

    def step(now: int) -> None:
        daemon.step()
        notifier.watchdog(clock.now_ms())

    run_loop(clock, step, daemon.timers, wait, until_ms, done)
