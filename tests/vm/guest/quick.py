"""The quick rehearsal (PID 1 is a shell, no systemd): the kernel pieces the box relies on.

Run with the quick venv's python (lgpio, gpiozero, smbus2), as root, inside the VM.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from devices import GpioSim, Report, SMBus, load_i2c_stub  # noqa: E402

FAKE_CPUINFO = "/run/vm-pi/cpuinfo"


def attempt(report: Report, name: str, fn) -> None:
    """One check; an exception is its failure, with the reason on the line."""
    try:
        ok = fn()
        report.check(name, ok is not False)
    except Exception as exc:  # noqa: BLE001 - a check's failure, reported, never retried
        report.check(name, False, f"{type(exc).__name__}: {exc}")


def main() -> int:
    report = Report(os.environ["RH_RUN"])
    os.chdir("/tmp")
    os.environ["LG_WD"] = "/tmp"       # lgpio makes its notification FIFO here
    sim = GpioSim()
    bus = load_i2c_stub()
    report.note(f"gpio-sim {sim.dev}, i2c-stub /dev/i2c-{bus}")
    attempt(report, "gpio-sim-chip", lambda: Path(sim.dev).is_char_device())
    attempt(report, "i2c-stub-bus", lambda: Path(f"/dev/i2c-{bus}").is_char_device())

    def stub_registers() -> bool:
        import smbus2
        with smbus2.SMBus(bus) as b:
            b.write_i2c_block_data(0x20, 0x12, [0x5A, 0xA5])
            b.write_byte_data(0x21, 0x14, 0x3C)
            return (b.read_i2c_block_data(0x20, 0x12, 2) == [0x5A, 0xA5]
                    and b.read_byte_data(0x21, 0x14) == 0x3C
                    and SMBus(bus).read_block(0x20, 0x12, 2) == [0x5A, 0xA5])
    attempt(report, "smbus2-registers-on-i2c-stub", stub_registers)

    def rdwr_refused() -> bool:
        import smbus2
        with smbus2.SMBus(bus) as b:
            try:
                b.i2c_rdwr(smbus2.i2c_msg.write(0x3C, [0x40, 1, 2, 3]))
            except OSError:
                return True
        return False
    attempt(report, "i2c-stub-refuses-i2c-rdwr", rdwr_refused)

    def lgpio_lines() -> bool:
        import lgpio
        h = lgpio.gpiochip_open(int(sim.chip.removeprefix("gpiochip")))
        try:
            lgpio.gpio_claim_input(h, 17, lgpio.SET_PULL_UP)
            up = lgpio.gpio_read(h, 17)
            sim.pull(17, "down")
            time.sleep(0.05)
            down = lgpio.gpio_read(h, 17)
            lgpio.gpio_claim_output(h, 25, 0)
            lgpio.gpio_write(h, 25, 1)
            lit = sim.value(25)
            lgpio.gpio_write(h, 25, 0)
            dark = sim.value(25)
            return (up, down, lit, dark) == (1, 0, 1, 0)
        finally:
            lgpio.gpiochip_close(h)
            sim.pull(17, "up")
    attempt(report, "lgpio-input-pull-and-output-on-gpio-sim", lgpio_lines)

    def needs_revision() -> bool:
        out = subprocess.run([sys.executable, "-c",
                              "from gpiozero.pins.lgpio import LGPIOFactory as F\n"
                              "from gpiozero import Button\nButton(5, pin_factory=F())"],
                             capture_output=True, text=True, timeout=60)
        return out.returncode != 0 and "PinUnknownPi" in out.stderr
    attempt(report, "gpiozero-needs-pi-revision", needs_revision)

    # the VM's only pretence: a Raspberry Pi 4B revision in /proc/cpuinfo (bind mount)
    os.makedirs(os.path.dirname(FAKE_CPUINFO), exist_ok=True)
    pi4 = "Revision\t: c03112\nModel\t\t: Raspberry Pi 4 Model B Rev 1.2\n"
    Path(FAKE_CPUINFO).write_text(Path("/proc/cpuinfo").read_text() + pi4)
    subprocess.run(["mount", "--bind", FAKE_CPUINFO, "/proc/cpuinfo"], check=True, timeout=10)

    def gpiozero_button() -> bool:
        from gpiozero import LED, Button
        from gpiozero.pins.lgpio import LGPIOFactory
        factory = LGPIOFactory()
        button = Button(27, pin_factory=factory)       # pull-up, like a flap switch
        led = LED(12, pin_factory=factory)
        seen: list[str] = []
        button.when_pressed = lambda: seen.append("pressed")
        sim.pull(27, "down")
        deadline = time.monotonic() + 5
        while not seen and time.monotonic() < deadline:
            time.sleep(0.01)
        led.on()
        lit = sim.value(12)
        ok = seen == ["pressed"] and button.is_pressed and lit == 1
        button.close()
        led.close()
        factory.close()
        return ok
    attempt(report, "gpiozero-lgpio-button-and-led-on-gpio-sim", gpiozero_button)
    report.close()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as exc:  # noqa: BLE001 - the VM must still power off and say why
        print(f"rehearsal: quick checks stopped: {type(exc).__name__}: {exc}", flush=True)
        sys.exit(1)
