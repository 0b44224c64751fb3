# MicroPython: the real `os`, with os.urandom from the board (seeded, or queued bytes).
import uos as _os
import board

rename = _os.rename
remove = _os.remove
stat = _os.stat


def urandom(n):
    return board.entropy(n)
