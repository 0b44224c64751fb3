"""The register map the Pi sees, and the CRC-8 that guards it.

The Pico serves a 16-byte memory as an I2C target: the Pi writes a register
number, then reads or writes from there on (the pointer wraps at the end).
README.md has the table of what each register means and the protocol's rules.

CRC-8: polynomial 0x07 (x^8+x^2+x+1), initial value 0, MSB first, no final
XOR: the SMBus PEC CRC ("CRC-8/SMBUS", check value 0xF4 for b"123456789").
It covers every register the module writes (0x00..0x05 and 0x09..0x0E), so a
garbled STATUS is caught as surely as a garbled face.
"""

MAGIC = b"SD"
FW_MAJOR = 2        # 2: CRC over every module register, ACK cleared after use, ERROR 3
FW_MINOR = 0

MAGIC0 = 0x00
MAGIC1 = 0x01
REG_FW_MAJOR = 0x02
REG_FW_MINOR = 0x03
STATUS = 0x04
ERROR = 0x05
COUNT = 0x06
REQUEST = 0x07
ACK = 0x08
BOOT = 0x09
SEQ = 0x0A
RCOUNT = 0x0B
FACE1 = 0x0C
FACE2 = 0x0D
SOURCE = 0x0E
CRC = 0x0F
MEM_SIZE = 16

RESULT_FIRST = BOOT       # the result: BOOT..SOURCE
RESULT_LEN = CRC - BOOT   # 6 bytes

PI_WRITES = (COUNT, REQUEST, ACK)   # every other register is the module's

STATUS_IDLE = 0
STATUS_ROLLING = 1
STATUS_READY = 2
STATUS_ERROR = 3

ERROR_NONE = 0
ERROR_BAD_COUNT = 1
ERROR_BAD_REQUEST = 2
ERROR_BUSY = 3          # REQUEST while the dice tumble: refused, that throw's result comes

REQUEST_NONE = 0
REQUEST_ROLL = 0x52

SOURCE_BUTTON = 1
SOURCE_SHAKE = 2
SOURCE_REQUEST = 3

MAX_DICE = 2


def crc8_byte(crc, byte):
    """``crc`` continued over one byte."""
    crc ^= byte
    for _ in range(8):
        if crc & 0x80:
            crc = ((crc << 1) ^ 0x07) & 0xFF
        else:
            crc = (crc << 1) & 0xFF
    return crc


def crc8(data, crc=0):
    """CRC-8/SMBUS of ``data`` (bytes or a list of ints), continuing from ``crc``."""
    for byte in data:
        crc = crc8_byte(crc, byte)
    return crc


def crc_registers(regs):
    """The CRC register's value for ``regs`` (the 16 registers, or more): the
    CRC-8 over 0x00..0x0E without the Pi's COUNT, REQUEST and ACK. Allocates
    nothing (it runs on the module's loop)."""
    crc = 0
    for i in range(CRC):
        if i != COUNT and i != REQUEST and i != ACK:
            crc = crc8_byte(crc, regs[i])
    return crc


def next_seq(seq):
    """The sequence number after ``seq``: 1..255, never 0 (0 means no result yet)."""
    return seq % 255 + 1


def next_boot(boot):
    """The BOOT value of the start after one with ``boot``: 1..255, never 0 and
    never ``boot`` again, so the Pi sees every restart."""
    return boot % 255 + 1
