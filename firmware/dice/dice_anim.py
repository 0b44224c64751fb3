"""The pip patterns and the tumbling animation shown before a result.

Each die is 7 LEDs; bit i of a pattern lights LED i in this order:

    0 o   o 4        top-left      top-right
    1 o 3 o 5        middle-left   centre   middle-right
    2 o   o 6        bottom-left   bottom-right
"""

PIP_NAMES = ("top-left", "middle-left", "bottom-left", "centre",
             "top-right", "middle-right", "bottom-right")

_TL, _ML, _BL, _C, _TR, _MR, _BR = (1 << i for i in range(7))

PIPS = (
    0,                                  # 0: dark (no die)
    _C,                                 # 1
    _TL | _BR,                          # 2
    _TL | _C | _BR,                     # 3
    _TL | _BL | _TR | _BR,              # 4
    _TL | _BL | _C | _TR | _BR,         # 5
    _TL | _ML | _BL | _TR | _MR | _BR,  # 6
)

# How long each tumbling frame stays lit: fast at first, slowing down like a
# die coming to rest; the result follows the last frame (about 0.9 s in all).
TUMBLE_MS = (40, 45, 55, 65, 75, 90, 105, 125, 150, 180)


def pattern(face):
    """The 7-bit LED pattern of a face 1..6 (0 = dark)."""
    return PIPS[face]


class Tumble:
    """The frames of one throw: random faces that change every frame, then
    the result. ``seed`` only varies the look; the result is drawn elsewhere.

    Made once per throw; a tick that only moves it on allocates nothing (the
    shown faces are a bytearray changed in place, no comprehension: one that
    used ``self`` would make it a cell and allocate on every frame)."""

    def __init__(self, faces, seed):
        self.faces = bytes(faces)
        self._state = (seed & 0xFFFF) or 1
        self._index = 0
        self._left = TUMBLE_MS[0]
        self.shown = bytearray(len(self.faces))
        for i in range(len(self.shown)):
            self.shown[i] = self._other(0)
        self.done = False

    def _other(self, previous):
        """A face 1..6 other than ``previous`` (16-bit xorshift; fine for looks)."""
        while True:
            x = self._state
            x ^= (x << 7) & 0xFFFF
            x ^= x >> 9
            x ^= (x << 8) & 0xFFFF
            self._state = x
            face = x % 6 + 1
            if face != previous:
                return face

    def advance(self, dt_ms):
        """Move on by ``dt_ms``; True when the frame shown changed."""
        if self.done:
            return False
        changed = False
        self._left -= dt_ms
        shown = self.shown
        while self._left <= 0 and not self.done:
            self._index += 1
            changed = True
            if self._index < len(TUMBLE_MS):
                self._left += TUMBLE_MS[self._index]
                for i in range(len(shown)):
                    shown[i] = self._other(shown[i])
            else:
                for i in range(len(shown)):
                    shown[i] = self.faces[i]
                self.done = True
        return changed

    def show(self, leds):
        """Write the LED patterns of both dice now into ``leds`` (two items; a
        missing second die is dark)."""
        shown = self.shown
        leds[0] = PIPS[shown[0]]
        leds[1] = PIPS[shown[1]] if len(shown) > 1 else 0
