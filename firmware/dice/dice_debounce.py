"""Debounced button and shake detection, driven by elapsed milliseconds.

Only durations are passed in (never absolute ticks), so the 30-bit
``time.ticks_ms`` wrap of MicroPython cannot confuse them. Every counter
stops growing once it has said what it has to say: on an rp2 build an int
past 2**30 is a heap object, and a module left alone for weeks must not
start allocating on every pass of its loop.
"""

MAX_EDGES = 255     # edges of one shake are counted up to here


class Debouncer:
    """A level that counts once it has held still for ``settle_ms``."""

    def __init__(self, settle_ms, state=False):
        self.settle_ms = settle_ms
        self.state = state
        self._raw = state
        self._held = 0

    def update(self, raw, dt_ms):
        """Feed the raw level after ``dt_ms``; True when the debounced state changed."""
        if raw != self._raw:
            self._raw = raw
            self._held = 0
        elif self._held < self.settle_ms:
            self._held += dt_ms
        if raw != self.state and self._held >= self.settle_ms:
            self.state = raw
            return True
        return False


class Button:
    """A push button: one throw per press, on release. ``down`` is the level at
    power-up: a press that began before it is no throw."""

    def __init__(self, settle_ms, down=False):
        self._level = Debouncer(settle_ms, down)
        self._armed = not down

    @property
    def pressed(self):
        return self._level.state

    def update(self, down, dt_ms):
        """True once, when a debounced press is released."""
        if not self._level.update(down, dt_ms):
            return False
        if self._level.state:
            self._armed = True
            return False
        fire, self._armed = self._armed, True
        return fire


class ShakeDetector:
    """A tilt switch being shaken: at least ``min_edges`` debounced edges, then
    ``quiet_ms`` without one. A single tilt (the box moved) is not a shake."""

    def __init__(self, settle_ms, min_edges, quiet_ms):
        self._level = Debouncer(settle_ms)
        self.min_edges = min_edges
        self.quiet_ms = quiet_ms
        self.edges = 0
        self._quiet = 0

    @property
    def shaking(self):
        return self.edges >= self.min_edges

    def update(self, closed, dt_ms):
        """True once, when a shake has stopped."""
        if self._level.update(closed, dt_ms):
            if self.edges < MAX_EDGES:
                self.edges += 1
            self._quiet = 0
            return False
        if self._quiet < self.quiet_ms:
            self._quiet += dt_ms
        if self.edges and self._quiet >= self.quiet_ms:
            shook = self.shaking
            self.edges = 0
            return shook
        return False
