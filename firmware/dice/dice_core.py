"""The dice module's logic: registers, inputs, throws, LEDs and the ready line.

Hardware-free: ``main.py`` feeds it the elapsed time and the button and tilt
levels and copies ``leds`` and ``ready`` to the pins; the simulator and the
tests drive the very same class. ``mem`` is the I2C target memory: the Pi
may write any byte of it at any time, so every tick the module's own
registers are restored from a private copy and the Pi's registers are read.
"""

try:        # in shutbox-hw on the Pi, as the package shutbox_hw.dice_firmware
    from . import dice_config as cfg
    from . import dice_regs as r
    from .dice_anim import Tumble
    from .dice_debounce import Button, ShakeDetector
    from .dice_faces import draw_faces
except ImportError:     # on the Pico: plain top-level modules
    import dice_config as cfg
    import dice_regs as r
    from dice_anim import Tumble
    from dice_debounce import Button, ShakeDetector
    from dice_faces import draw_faces


class DiceCore:
    """One dice module. ``entropy(n)`` returns n random bytes (``os.urandom``)."""

    def __init__(self, mem, entropy):
        self.mem = mem
        self.entropy = entropy
        self.button = Button(cfg.BUTTON_SETTLE_MS)
        self.shake = ShakeDetector(cfg.TILT_SETTLE_MS, cfg.SHAKE_MIN_EDGES, cfg.SHAKE_QUIET_MS)
        self.tumble = None
        self.leds = (0, 0)
        self.ready = False          # True: pull the ready line low
        self.throws = 0
        boot = 0
        while boot == 0:
            boot = entropy(1)[0]
        own = bytearray(r.MEM_SIZE)
        own[r.MAGIC0] = r.MAGIC[0]
        own[r.MAGIC1] = r.MAGIC[1]
        own[r.REG_FW_MAJOR] = r.FW_MAJOR
        own[r.REG_FW_MINOR] = r.FW_MINOR
        own[r.STATUS] = r.STATUS_IDLE
        own[r.COUNT] = r.MAX_DICE
        own[r.BOOT] = boot
        own[r.CRC] = r.crc8(own[r.RESULT_FIRST:r.CRC])
        self._own = own
        self._source = 0
        for i in range(r.MEM_SIZE):
            mem[i] = own[i]

    # -- the loop --------------------------------------------------------------

    def tick(self, dt_ms, button_down, tilt_closed):
        """One pass of the main loop, ``dt_ms`` after the previous one."""
        self._restore()
        self._read_pi()
        released = self.button.update(button_down, dt_ms)
        shaken = self.shake.update(tilt_closed, dt_ms)
        if released:
            self.start(r.SOURCE_BUTTON)
        elif shaken:
            self.start(r.SOURCE_SHAKE)
        if self.tumble is not None:
            if self.tumble.advance(dt_ms):
                self.leds = self.tumble.patterns()
            if self.tumble.done:
                self._publish()

    def start(self, source):
        """Begin a throw of COUNT dice; False if one is running or COUNT is bad."""
        if self.tumble is not None:
            return False
        count = self.mem[r.COUNT]
        if not 1 <= count <= r.MAX_DICE:
            return False
        faces = draw_faces(count, self.entropy)
        self.throws += 1
        seed = (self._own[r.BOOT] << 8 | self._own[r.SEQ]) ^ (self.throws * 40503)
        self.tumble = Tumble(faces, seed)
        self._source = source
        self.leds = self.tumble.patterns()
        self._set(r.STATUS, r.STATUS_ROLLING)
        self.ready = False
        return True

    # -- internals -------------------------------------------------------------

    def _set(self, reg, value):
        self._own[reg] = value
        self.mem[reg] = value

    def _restore(self):
        """Undo any write of the Pi to a register that is the module's."""
        mem, own = self.mem, self._own
        for i in range(r.MEM_SIZE):
            if i not in r.PI_WRITES and mem[i] != own[i]:
                mem[i] = own[i]

    def _read_pi(self):
        """Act on what the Pi wrote: ACK, COUNT, REQUEST (cleared once seen)."""
        mem = self.mem
        if self.ready and mem[r.ACK] == self._own[r.SEQ]:
            self.ready = False
            self._set(r.STATUS, r.STATUS_IDLE)
        request = mem[r.REQUEST]
        if request != r.REQUEST_NONE:
            mem[r.REQUEST] = r.REQUEST_NONE
        if not 1 <= mem[r.COUNT] <= r.MAX_DICE:
            self._error(r.ERROR_BAD_COUNT)
            return
        if self._own[r.ERROR] == r.ERROR_BAD_COUNT:
            self._clear_error()
        if request == r.REQUEST_NONE:
            return
        if request != r.REQUEST_ROLL:
            self._error(r.ERROR_BAD_REQUEST)
            return
        self._clear_error()
        self.start(r.SOURCE_REQUEST)

    def _error(self, code):
        self._set(r.ERROR, code)
        if self.tumble is None and not self.ready:
            self._set(r.STATUS, r.STATUS_ERROR)

    def _clear_error(self):
        if self._own[r.ERROR] == r.ERROR_NONE:
            return
        self._set(r.ERROR, r.ERROR_NONE)
        if self._own[r.STATUS] == r.STATUS_ERROR:
            self._set(r.STATUS, r.STATUS_IDLE)

    def _publish(self):
        """Write the result, then its CRC, then READY: a read that overlaps the
        update sees a CRC that does not match and is retried."""
        faces = self.tumble.faces
        self.tumble = None
        own = self._own
        seq = r.next_seq(own[r.SEQ])
        result = (seq, len(faces), faces[0], faces[1] if len(faces) > 1 else 0, self._source)
        for i, value in enumerate(result):
            self._set(r.SEQ + i, value)
        self._set(r.CRC, r.crc8(own[r.RESULT_FIRST:r.CRC]))
        self._set(r.STATUS, r.STATUS_READY)
        self.ready = True
