"""How long show() holds the caller, and what a frame costs on the I2C wire.

1. Counts the bytes luma's ssd1306 driver puts on the bus for one frame
   (through a counting fake bus) and turns them into wire time at 100 and
   400 kHz: 9 clocks per byte (8 bits + ACK) plus a start, address byte and
   stop per transaction.
2. Runs OledDisplay over a device that sleeps that wire time per frame
   (100 kHz) while the caller shows a new frame every 10 ms, and prints the
   median and worst show() call time, and how many frames reached the panel.

Run: .venv/bin/python benchmarks/display_show.py
"""

from __future__ import annotations

import statistics
import time

from luma.core.interface.serial import i2c
from luma.oled.device import ssd1306
from PIL import Image, ImageDraw

from shutbox_hw.hal.adapters.display import OledDisplay


class CountingBus:
    def __init__(self) -> None:
        self.bytes = 0
        self.transactions = 0
        self.payload = 0  # frame data bytes (control byte 0x40)

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        self.bytes += 2 + len(data)  # address byte, control byte, payload
        self.transactions += 1
        if register == 0x40:
            self.payload += len(data)


def wire_ms(n_bytes: int, transactions: int, hz: int) -> float:
    clocks = n_bytes * 9 + transactions * 2  # start and stop, roughly a clock each
    return clocks / hz * 1000


def frame(i: int) -> Image.Image:
    image = Image.new("1", (128, 64))
    ImageDraw.Draw(image).text((0, 0), f"frame {i}", fill=1)
    return image


class SlowDevice:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.frames = 0

    def display(self, image: Image.Image) -> None:
        time.sleep(self.seconds)
        self.frames += 1

    def contrast(self, level: int) -> None:
        pass

    def show(self) -> None:
        pass

    def hide(self) -> None:
        pass

    def cleanup(self) -> None:
        pass


def main() -> None:
    bus = CountingBus()
    device = ssd1306(i2c(bus=bus, address=0x3C))
    bus.bytes = bus.transactions = bus.payload = 0
    device.display(frame(0))
    data_blocks = -(-bus.payload // 32)
    # on the box luma opens the bus itself ("managed") and sends the frame
    # data as one i2c_rdwr message instead of 32-byte blocks
    managed_bytes = bus.bytes - bus.payload - 2 * data_blocks + 2 + bus.payload
    managed_transactions = bus.transactions - data_blocks + 1
    print(f"ssd1306 frame: {bus.payload} data bytes; on the wire {managed_bytes} bytes in "
          f"{managed_transactions} transactions (box, managed bus), {bus.bytes} bytes in "
          f"{bus.transactions} (32-byte blocks)")
    for hz in (100_000, 400_000):
        print(f"  wire time at {hz // 1000} kHz: "
              f"{wire_ms(managed_bytes, managed_transactions, hz):.1f} ms on the box, "
              f"{wire_ms(bus.bytes, bus.transactions, hz):.1f} ms in 32-byte blocks")
    per_frame = wire_ms(managed_bytes, managed_transactions, 100_000) / 1000
    slow = SlowDevice(per_frame)
    display = OledDisplay(lambda: slow)
    display.wait_idle(5)
    calls = []
    shown = 200
    for i in range(shown):
        start = time.perf_counter()
        display.show(frame(i), i * 10)
        calls.append(time.perf_counter() - start)
        time.sleep(0.010)
    display.wait_idle(5)
    display.close()
    calls_us = [c * 1e6 for c in calls]
    print(f"show() with a {per_frame * 1000:.0f} ms/frame device, a new frame every 10 ms: "
          f"median {statistics.median(calls_us):.0f} us, max {max(calls_us):.0f} us; "
          f"{slow.frames} of {shown} frames sent (the rest superseded)")


if __name__ == "__main__":
    main()
