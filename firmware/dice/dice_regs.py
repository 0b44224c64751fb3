"""The register map the Pi sees, and the CRC-8 that guards the result.

The Pico serves a 16-byte memory as an I2C target: the Pi writes a register
number, then reads or writes from there on (the address wraps at the end).
README.md has the table of what each register means.

CRC-8: polynomial 0x07 (x^8+x^2+x+1), initial value 0, MSB first, no final
XOR: the SMBus PEC CRC ("CRC-8/SMBUS", check value 0xF4 for b"123456789").
"""

MAGIC = b"SD"
FW_MAJOR = 1
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

RESULT_FIRST = BOOT       # the CRC covers BOOT..SOURCE
RESULT_LEN = CRC - BOOT   # 6 bytes

PI_WRITES = (COUNT, REQUEST, ACK)   # every other register is the module's

STATUS_IDLE = 0
STATUS_ROLLING = 1
STATUS_READY = 2
STATUS_ERROR = 3

ERROR_NONE = 0
ERROR_BAD_COUNT = 1
ERROR_BAD_REQUEST = 2

REQUEST_NONE = 0
REQUEST_ROLL = 0x52

SOURCE_BUTTON = 1
SOURCE_SHAKE = 2
SOURCE_REQUEST = 3

MAX_DICE = 2


def crc8(data, crc=0):
    """CRC-8/SMBUS of ``data`` (bytes or a list of ints), continuing from ``crc``."""
    for byte in data:
        crc ^= byte
        for _ in range(8):
            if crc & 0x80:
                crc = ((crc << 1) ^ 0x07) & 0xFF
            else:
                crc = (crc << 1) & 0xFF
    return crc


def next_seq(seq):
    """The sequence number after ``seq``: 1..255, never 0 (0 means no result yet)."""
    return seq % 255 + 1
