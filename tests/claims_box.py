"""A running box with its claims socket, for the tests of seats from a phone: the
daemon's real loop on the real clock in a thread, woken by the socket's peers."""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from shutbox_hw.base.sdnotify import Notifier
from shutbox_hw.claims import client
from shutbox_hw.claims.server import ClaimServer
from shutbox_hw.commands.box.run import _claims_server, build_real_box, serve
from shutbox_hw.config.config_file import load_config
from shutbox_hw.daemon.daemon import Daemon
from shutbox_hw.hal.contracts.clock import MonotonicClock
from shutbox_hw.hal.contracts.poll import Waker
from shutbox_hw.store import Store


def claim_on_socket(runner: Any, sock: Path, name: str, secret: str | None = None,
                    join_code: str | None = None, address: str | None = None) -> dict[str, Any]:
    """A phone's claim over the box's real socket while a simulated box's loop runs (with
    its current join code unless ``join_code`` says another). Virtual time is moved on
    50 ms at a time, at most ten times as fast as real time: moved on as fast as the loop
    went, a claim that waited for the GIL on a loaded machine let minutes pass on the box,
    and the join code (five minutes) expired under the next claims."""
    code = runner.daemon.controller.state.join.code
    assert code is not None
    answer: dict[str, Any] = {}
    asking = threading.Thread(target=lambda: answer.update(
        client.claim(str(sock), name, join_code or code.code, address, secret=secret)))
    asking.start()
    while asking.is_alive():
        runner.advance(50)
        asking.join(0.005)
    return answer


@contextmanager
def short_folder() -> Iterator[Path]:
    """A directory whose socket paths fit sun_path (108 bytes), unlike tmp_path's."""
    folder = tempfile.mkdtemp(prefix="sbx")
    try:
        yield Path(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class RunningBox:
    """The daemon's loop on the real clock in a thread of its own, woken by the claims
    socket (the thread makes and closes the store: its connection is that thread's)."""

    def __init__(self, tmp_path: Path, sock: Path, network: str = "") -> None:
        conf = self.config_path = tmp_path / "box.toml"
        self.db = tmp_path / "db"
        conf.write_text(f'[hardware.display]\ndriver = "none"\n[storage]\ndb = "{self.db}"\n'
                        f'[network]\nclaims_socket = "{sock}"\n{network}')
        self.config = load_config(conf)
        self.clock = MonotonicClock()
        self.waker = Waker()
        self.sock = str(sock)
        self.events: list[dict] = []
        self.stop = False
        self.closed = False
        self.ready = threading.Event()
        self.failed: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        assert self.ready.wait(30), "the box did not start"
        if self.failed is not None:
            raise self.failed

    def _run(self) -> None:
        try:
            self.box = build_real_box(self.config, self.clock, "mock", self.waker.wake)
            self.store = Store(self.db)
            server = _claims_server(self.config, self.clock, self.waker)   # run's own
            assert server is not None, "the claims socket did not start"
            self.server: ClaimServer = server
            self.daemon = Daemon(self.config, self.box, self.store, self.clock,
                                 claims=self.server, on_event=self.events.append)
            self.daemon.start()
        except BaseException as error:
            self.failed = error
            self.ready.set()
            return
        self.ready.set()
        try:
            serve(self.daemon, Notifier({}), self.clock, self.waker.wait_until,
                  done=lambda: self.stop)
        finally:
            self.server.close()
            self.box.close()
            self.store.close()

    def close(self) -> None:
        """The daemon stops (once), its socket with it."""
        if self.closed:
            return
        self.closed = True
        self.stop = True
        self.waker.wake()
        self.thread.join(10)

    def code(self) -> str:
        code = self.daemon.controller.state.join.code
        assert code is not None
        return code.code

    def press(self, button: str) -> None:
        """A short press of ``button`` ("roll", "next") on the box's (mock) Pi pins: the
        pin pulled low past the debounce, then let go; the loop reads it as the box does."""
        for source in self.box.buttons._switches.sources:
            device = getattr(source, "_devices", {}).get(button)
            if device is not None:
                device.pin.drive_low()
                time.sleep(0.2)       # held well past the debounce, well short of a long press
                device.pin.drive_high()
                return
        raise AssertionError(f"no pin for {button}")
