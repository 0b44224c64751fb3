"""The dice module's logic: registers, inputs, throws, LEDs and the ready line.

Hardware-free: ``main.py`` feeds it the elapsed time and the button and tilt
levels and copies ``leds`` and ``ready`` to the pins; the simulator and the
tests drive the very same class. ``mem`` is the I2C target memory: the Pi
may write any byte of it at any time, so every tick the module's own
registers are restored from a private copy and the Pi's registers are read.

The protocol (README.md, "The protocol") in one place: STATUS is what the
dice are doing and follows from the state alone (:meth:`_update_status`);
ERROR is why the Pi's last command was refused. A tick that only moves a
tumble on allocates nothing (tests check it under MicroPython).
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

THROWS_MASK = 0x3FFF    # throws are counted modulo 2**14: small ints on every build


class DiceCore:
    """One dice module. ``entropy(n)`` returns n random bytes (``os.urandom``);
    ``boot`` is this start's BOOT (1..255, from the boot counter; 0: drawn at
    random); ``button_down`` the button's level at power-up."""

    def __init__(self, mem, entropy, boot=0, button_down=False):
        self.mem = mem
        self.entropy = entropy
        self.button = Button(cfg.BUTTON_SETTLE_MS, button_down)
        self.shake = ShakeDetector(cfg.TILT_SETTLE_MS, cfg.SHAKE_MIN_EDGES, cfg.SHAKE_QUIET_MS)
        self.tumble = None
        self.leds = bytearray(2)    # the LED patterns of both dice, changed in place
        self.frame = 0              # +1 (mod 256) whenever ``leds`` change: redraw then
        self.ready = False          # True: pull the ready line low
        self.throws = 0
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
        own[r.CRC] = r.crc_registers(own)
        self._own = own
        self._source = 0
        self._count_ok = True
        self._dirty = False
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
        tumble = self.tumble
        if tumble is not None:
            if tumble.advance(dt_ms):
                self._show(tumble)
            if tumble.done:
                self._publish(tumble)
        self._update_status()
        self._seal()

    def start(self, source):
        """Begin a throw of COUNT dice; False if one is running or COUNT is bad."""
        if self.tumble is not None or not self._count_ok:
            return False
        faces = draw_faces(self.mem[r.COUNT], self.entropy)   # allocates: once a throw
        self.throws = (self.throws + 1) & THROWS_MASK
        seed = (self._own[r.BOOT] << 8 | self._own[r.SEQ]) ^ (self.throws * 3)
        self.tumble = Tumble(faces, seed)
        self._source = source
        self._show(self.tumble)
        self.ready = False
        self._update_status()
        self._seal()
        return True

    # -- internals -------------------------------------------------------------

    def _set(self, reg, value):
        if self._own[reg] != value:
            self._own[reg] = value
            self.mem[reg] = value
            self._dirty = True

    def _seal(self):
        """The CRC, last, after every change of a module register."""
        if self._dirty:
            self._dirty = False
            self._own[r.CRC] = r.crc_registers(self._own)
            self.mem[r.CRC] = self._own[r.CRC]

    def _show(self, tumble):
        tumble.show(self.leds)
        self.frame = (self.frame + 1) & 0xFF

    def _restore(self):
        """Undo any write of the Pi to a register that is the module's."""
        mem, own = self.mem, self._own
        for i in range(r.MEM_SIZE):
            if i != r.COUNT and i != r.REQUEST and i != r.ACK and mem[i] != own[i]:
                mem[i] = own[i]

    def _read_pi(self):
        """Act on what the Pi wrote: ACK and REQUEST are commands, cleared to 0
        once seen (a stale ACK can never match a later SEQ); COUNT is a setting."""
        mem = self.mem
        ack = mem[r.ACK]
        if ack != 0:
            mem[r.ACK] = 0
            if self.ready and ack == self._own[r.SEQ]:
                self.ready = False
        request = mem[r.REQUEST]
        if request != r.REQUEST_NONE:
            mem[r.REQUEST] = r.REQUEST_NONE
        count = mem[r.COUNT]
        self._count_ok = 1 <= count <= r.MAX_DICE
        if not self._count_ok:
            self._set(r.ERROR, r.ERROR_BAD_COUNT)
            return      # a REQUEST now is refused for the same reason
        if self._own[r.ERROR] == r.ERROR_BAD_COUNT:
            self._set(r.ERROR, r.ERROR_NONE)
        if request == r.REQUEST_NONE:
            return
        if request != r.REQUEST_ROLL:
            self._set(r.ERROR, r.ERROR_BAD_REQUEST)
        elif self.tumble is not None:
            self._set(r.ERROR, r.ERROR_BUSY)
        else:
            self._set(r.ERROR, r.ERROR_NONE)
            self.start(r.SOURCE_REQUEST)

    def _update_status(self):
        """STATUS from the state: tumbling, a result waiting, COUNT bad, or idle."""
        if self.tumble is not None:
            status = r.STATUS_ROLLING
        elif self.ready:
            status = r.STATUS_READY
        elif not self._count_ok:
            status = r.STATUS_ERROR
        else:
            status = r.STATUS_IDLE
        self._set(r.STATUS, status)

    def _publish(self, tumble):
        """Write the result; the caller then writes STATUS, then the CRC. A read
        from 0 sees STATUS before the result: READY there means the result
        after it is whole; any other mix fails the CRC and is read again."""
        self.tumble = None
        faces = tumble.faces
        self._set(r.SEQ, r.next_seq(self._own[r.SEQ]))
        self._set(r.RCOUNT, len(faces))
        self._set(r.FACE1, faces[0])
        self._set(r.FACE2, faces[1] if len(faces) > 1 else 0)
        self._set(r.SOURCE, self._source)
        self.ready = True
