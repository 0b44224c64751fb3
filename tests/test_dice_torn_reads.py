"""The read-from-0 rule, proved by exhaustion under the real MicroPython.

``dice_core`` runs under MicroPython with a memory that logs every byte
written, through a whole life: a REQUEST, its tumble and publish, the ACK,
a button throw, a REQUEST refused as busy, a new throw replacing a waiting
result, a bad COUNT and its repair. Then, on the host, for every pass of
the loop that wrote anything, every interleaving of one 16-byte read from
register 0 with that pass's writes is fed to the Pi's driver. The target
serves each byte live, so the read's byte i is memory as it was after some
number t_i of the pass's writes, with t_0 <= t_1 <= ... <= t_15. Bytes that
the pass never writes read the same whatever t_i is, so only the t_i of the
written registers matter: enumerating those is every interleaving.

What the driver makes of each read must be a retry (CRC or identity), or a
state whose throw is the one before the pass or the one after it, never a
mix; and a read that passes its checks shows STATUS and ERROR as they were
before or after the pass.
"""

from __future__ import annotations

import itertools
import subprocess

from micropython_rig import micropython

from shutbox_hw.hal.adapters import dice_module as dm
from shutbox_hw.hal.simulated.dice_module import FIRMWARE_DIR

SCRIPT = """
import sys
sys.path.insert(0, %r)
import dice_core, dice_regs as r, dice_config as cfg

class LogMem:
    def __init__(self):
        self.b = bytearray(r.MEM_SIZE)
        self.log = []
    def __len__(self):
        return r.MEM_SIZE
    def __getitem__(self, i):
        return self.b[i]
    def __setitem__(self, i, v):
        if self.b[i] != v:
            self.log.append((i, v))
        self.b[i] = v

queue = [2, 4, 5, 0, 3, 1, 1, 5, 4, 4, 2, 3]
def entropy(n):
    out = bytearray(n)
    for i in range(n):
        out[i] = queue.pop(0) if queue else 77
    return bytes(out)

mem = LogMem()
core = dice_core.DiceCore(mem, entropy, 9)
print("INIT " + bytes(mem.b).hex())
def run(ms, button=False):
    for _ in range(ms // 2):
        mem.log = []
        core.tick(2, button, False)
        if mem.log:
            print("PASS " + bytes(mem.b).hex() + " " + " ".join("%%d:%%d" %% w for w in mem.log))
def pi(reg, value):
    mem.b[reg] = value
    print("PI " + bytes(mem.b).hex())
run(10)
pi(r.REQUEST, r.REQUEST_ROLL); run(1000)
pi(r.ACK, mem.b[r.SEQ]); run(10)
run(60, True); run(40)
pi(r.REQUEST, r.REQUEST_ROLL); run(1000)
pi(r.REQUEST, r.REQUEST_ROLL); run(1000)
pi(r.COUNT, 9); run(10)
pi(r.ACK, mem.b[r.SEQ]); run(10)
pi(r.COUNT, 1); run(10)
pi(r.REQUEST, r.REQUEST_ROLL); run(1000)
"""


def passes() -> list[tuple[bytes, list[tuple[int, int]]]]:
    """(memory before the pass, its writes) for every pass that wrote."""
    done = subprocess.run([micropython(), "-c", SCRIPT % str(FIRMWARE_DIR)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    out, mem = [], b""
    for line in done.stdout.splitlines():
        kind, *rest = line.split()
        if kind in ("INIT", "PI"):
            mem = bytes.fromhex(rest[0])
        else:
            writes = [tuple(map(int, w.split(":"))) for w in rest[1:]]
            out.append((mem, writes))
            mem = bytes.fromhex(rest[0])
    return out


class OneRead:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def read_i2c_block_data(self, address: int, register: int, length: int) -> list[int]:
        assert register == 0 and length == 16
        return list(self.data)


def outcome(data: bytes) -> dm.ModuleState | None:
    """The driver's view of one read: None for a read it would retry."""
    module = dm.DiceModule(OneRead(data), attempts=1, sleep=lambda s: None)
    try:
        return module.read_state()
    except dm.DiceModuleMissing:
        return None


def test_no_interleaving_of_a_read_from_0_with_any_pass_gives_a_mixed_state():
    lives = passes()
    assert len(lives) >= 10
    reads = retried = 0
    for before, writes in lives:
        snapshots = [bytearray(before)]
        for reg, value in writes:
            snap = bytearray(snapshots[-1])
            snap[reg] = value
            snapshots.append(snap)
        first, last = outcome(bytes(snapshots[0])), outcome(bytes(snapshots[-1]))
        assert first is not None and last is not None       # whole states pass
        allowed = {first.throw, last.throw}
        shown = {(first.status, first.error), (last.status, last.error)}
        written = sorted({reg for reg, _ in writes})
        w = len(writes)
        for ts in itertools.combinations_with_replacement(range(w + 1), len(written)):
            data = bytearray(snapshots[0])
            for reg, t in zip(written, ts):     # positions in order, t non-decreasing
                data[reg] = snapshots[t][reg]
            state = outcome(bytes(data))
            reads += 1
            if state is None:
                retried += 1
                continue
            assert state.throw in allowed, (before.hex(), writes, ts)
            assert (state.status, state.error) in shown, (before.hex(), writes, ts)
    assert reads > 1000 and retried > 0
    print(f"{reads} interleavings over {len(lives)} passes, {retried} retried, none mixed")
