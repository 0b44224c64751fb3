"""The GPIO character device's structures as the rehearsal's guest code packs them
by hand (crash_daemon.py: the line-info watch; refusals.py: a held line), checked
against the kernel's own <linux/gpio.h> compiled here (skipped without a C compiler
or the header)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "guest"))

import crash_daemon  # noqa: E402
import refusals  # noqa: E402

HEADER = Path("/usr/include/linux/gpio.h")
PROGRAM = r"""
#include <stddef.h>
#include <stdio.h>
#include <linux/gpio.h>
int main(void) {
    printf("%lu %lu %lu\n", (unsigned long)GPIO_V2_GET_LINEINFO_WATCH_IOCTL,
           (unsigned long)sizeof(struct gpio_v2_line_info),
           (unsigned long)sizeof(struct gpio_v2_line_info_changed));
    printf("%lu %lu\n", (unsigned long)offsetof(struct gpio_v2_line_info, offset),
           (unsigned long)offsetof(struct gpio_v2_line_info_changed, event_type));
    printf("%d %d %d\n", GPIO_V2_LINE_CHANGED_REQUESTED, GPIO_V2_LINE_CHANGED_RELEASED,
           GPIO_V2_LINE_CHANGED_CONFIG);
    printf("%lu %lu\n", (unsigned long)GPIO_V2_GET_LINE_IOCTL,
           (unsigned long)sizeof(struct gpio_v2_line_request));
    printf("%lu %lu %lu %lu %lu\n", (unsigned long)offsetof(struct gpio_v2_line_request, consumer),
           (unsigned long)offsetof(struct gpio_v2_line_request, config.flags),
           (unsigned long)offsetof(struct gpio_v2_line_request, num_lines),
           (unsigned long)offsetof(struct gpio_v2_line_request, fd),
           (unsigned long)GPIO_V2_LINE_FLAG_INPUT);
    return 0;
}
"""


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> list[list[int]]:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None or not HEADER.is_file():
        pytest.skip("no C compiler or no <linux/gpio.h> (linux-libc-dev) to check against")
    tmp = tmp_path_factory.mktemp("gpio")
    (tmp / "layout.c").write_text(PROGRAM)
    subprocess.run([cc, "-o", str(tmp / "layout"), str(tmp / "layout.c")], check=True)
    out = subprocess.run([str(tmp / "layout")], capture_output=True, text=True, check=True).stdout
    return [[int(x) for x in line.split()] for line in out.splitlines()]


def test_the_line_info_watch_matches_the_kernel(kernel: list[list[int]]) -> None:
    assert kernel[0] == [crash_daemon.LINEINFO_WATCH, crash_daemon.INFO_SIZE,
                         crash_daemon.CHANGED_SIZE]
    assert kernel[1] == [crash_daemon.OFFSET_AT, crash_daemon.TYPE_AT]
    assert kernel[2] == [crash_daemon.REQUESTED, crash_daemon.RELEASED, crash_daemon.CONFIG]


def test_the_line_request_matches_the_kernel(kernel: list[list[int]]) -> None:
    assert kernel[3] == [refusals.GET_LINE, refusals.REQUEST_SIZE]
    assert kernel[4] == [refusals.CONSUMER_AT, refusals.FLAGS_AT, refusals.NUM_LINES_AT,
                         refusals.FD_AT, refusals.FLAG_INPUT]


def test_watch_events_are_read_back_by_line_and_kind() -> None:
    one = bytearray(crash_daemon.CHANGED_SIZE)
    one[crash_daemon.OFFSET_AT:crash_daemon.OFFSET_AT + 4] = (17).to_bytes(4, "little")
    one[crash_daemon.TYPE_AT:crash_daemon.TYPE_AT + 4] = (3).to_bytes(4, "little")
    two = bytearray(crash_daemon.CHANGED_SIZE)
    two[crash_daemon.OFFSET_AT] = 4
    two[crash_daemon.TYPE_AT] = 1
    assert crash_daemon.changes(bytes(one + two)) == [(17, 3), (4, 1)]
