# MicroPython: micropython run.py FIRMWARE_DIR FLASH_DIR START_MS SEED
"""Boots the dice firmware's main.py on the fake board, again after every
reset, with FLASH_DIR as the Pico's filesystem (the boot counter lives there)."""

import sys

BOARD = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
firmware, flash, start, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
sys.path.insert(0, firmware)
sys.path.insert(0, BOARD)

import uos
import board

uos.chdir(flash)
board.now = board.until = board.last_feed = start
board._seed = seed or 1
board.reply("@hello")
with open(firmware + "/main.py") as f:
    source = f.read()
code = compile(source, "main.py", "exec")
while True:
    board.boots += 1
    board.target = None
    board.wdt_timeout = 0
    board.pins = {}
    try:
        exec(code, {"__name__": "__main__"})
        # main() returned (the button held with USB power): the REPL idles,
        # nothing runs, the host may still drive pins and let time pass
        while True:
            board.until = board.now
            board.serve()
            board.advance(board.until - board.now)
    except board.Reset:
        pass
